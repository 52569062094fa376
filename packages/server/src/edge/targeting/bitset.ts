/** A fixed-size bit set over positions 0..size-1 (campaigns of one tenant). */
export class Bitset {
  readonly words: Uint32Array;
  constructor(readonly size: number) {
    this.words = new Uint32Array((size + 31) >>> 5);
  }
  set(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31);
  }
  has(i: number): boolean {
    return (this.words[i >>> 5]! & (1 << (i & 31))) !== 0;
  }
  /** Positions set, ascending. */
  *positions(): Generator<number> {
    const w = this.words;
    for (let k = 0; k < w.length; k++) {
      let word = w[k]!;
      while (word !== 0) {
        const low = word & -word;
        yield (k << 5) + 31 - Math.clz32(low);
        word ^= low;
      }
    }
  }
}

/** out = out AND (any OR include[v]) AND NOT exclude[v], word by word, without allocating. */
export function narrow(out: Uint32Array, any: Uint32Array, include: Uint32Array | undefined, exclude: Uint32Array | undefined): void {
  for (let k = 0; k < out.length; k++) {
    let pass = any[k]!;
    if (include) pass |= include[k]!;
    if (exclude) pass &= ~exclude[k]!;
    out[k]! &= pass;
  }
}
