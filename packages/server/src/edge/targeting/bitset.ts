/** A fixed-size bit set over positions 0..size-1 (campaigns of one tenant). */
export class Bitset {
  readonly words: Uint32Array;
  constructor(readonly size: number) {
    this.words = new Uint32Array((size + 31) >>> 5);
  }
  set(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31);
  }
}

/** The first position >= `from` set in `words`, or -1: walk a set with `for (p = nextBit(w, 0); p >= 0; p = nextBit(w, p + 1))`. */
export function nextBit(words: Uint32Array, from: number): number {
  let k = from >>> 5;
  if (k >= words.length) return -1;
  let word = words[k]! & (~0 << (from & 31));
  for (;;) {
    if (word !== 0) return (k << 5) + 31 - Math.clz32(word & -word);
    if (++k >= words.length) return -1;
    word = words[k]!;
  }
}

/** How many positions are set. */
export function countBits(words: Uint32Array): number {
  let count = 0;
  for (let k = 0; k < words.length; k++) {
    let x = words[k]!;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    count += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return count;
}

/** out = out AND (any OR include[v]) AND NOT exclude[v], word by word, without allocating. */
export function narrow(
  out: Uint32Array,
  any: Uint32Array,
  include: Uint32Array | undefined,
  exclude: Uint32Array | undefined,
): void {
  for (let k = 0; k < out.length; k++) {
    let pass = any[k]!;
    if (include) pass |= include[k]!;
    if (exclude) pass &= ~exclude[k]!;
    out[k]! &= pass;
  }
}

/** out = out OR other (nothing when other is undefined). */
export function or(out: Uint32Array, other: Uint32Array | undefined): void {
  if (other) for (let k = 0; k < out.length; k++) out[k]! |= other[k]!;
}

/** out = out AND NOT other (nothing when other is undefined). */
export function andNot(out: Uint32Array, other: Uint32Array | undefined): void {
  if (other) for (let k = 0; k < out.length; k++) out[k]! &= ~other[k]!;
}
