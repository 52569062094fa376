import { FNV1A_OFFSET, FNV1A_PRIME } from '@adplane/shared';

/**
 * Counter rows in flat typed arrays: each row is a key of `width` numbers and `metrics` sums, found
 * through an open-addressing hash table. Adding to a row allocates nothing, and a table of 50,000
 * rows is a handful of objects (its arrays) for V8's collector, where a row as objects (its key
 * string, dimension objects, a map entry and a sums array) outlived the young generation and
 * filled the old one between flushes (docs/performance.md, "Where the tail comes from").
 *
 * Keys are numbers: ids as they are, text as the id `TextIds` gave it. Rows keep the order they were
 * added in (row 0, 1, 2...), which is how a flush reads them.
 */
export class RowTable {
  rows = 0;
  /** Row r's key is keys[r * width .. (r + 1) * width). */
  keys: Float64Array;
  /** Row r's sums are sums[r * metrics .. (r + 1) * metrics). */
  sums: Float64Array;
  private hashes: Int32Array;
  /** Per slot: 0 when empty, else its row + 1. Its length is a power of two, at least twice the rows. */
  private slots: Int32Array;

  constructor(
    readonly width: number,
    readonly metrics: number,
    capacity = 1024,
  ) {
    const rows = Math.max(16, capacity);
    this.keys = new Float64Array(rows * width);
    this.sums = new Float64Array(rows * metrics);
    this.hashes = new Int32Array(rows);
    this.slots = new Int32Array(slotsFor(rows));
  }

  /** The row whose key is `key[0 .. width)`, added with zero sums when there is none yet. */
  rowOf(key: Float64Array): number {
    const width = this.width;
    let h = FNV1A_OFFSET;
    for (let i = 0; i < width; i++) {
      const v = key[i]!;
      // ids and text ids are integers; anything else still lands on its own row (equality compares the numbers)
      h = Math.imul(h ^ (v | 0), FNV1A_PRIME);
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
    }
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = slots[s]!;
      if (at === 0) return this.insert(key, h, s);
      const row = at - 1;
      if (this.hashes[row] === h && this.sameKey(row, key)) return row;
    }
  }

  /** Adds `value` to metric `m` of `row`. */
  add(row: number, m: number, value: number): void {
    this.sums[row * this.metrics + m] += value;
  }

  private sameKey(row: number, key: Float64Array): boolean {
    const keys = this.keys;
    const width = this.width;
    const from = row * width;
    for (let i = 0; i < width; i++) if (keys[from + i] !== key[i]) return false;
    return true;
  }

  private insert(key: Float64Array, h: number, slot: number): number {
    const row = this.rows;
    if (row === this.hashes.length) {
      this.grow();
      // the slots moved: find the new row's slot again
      const mask = this.slots.length - 1;
      slot = h & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    }
    this.keys.set(key.subarray(0, this.width), row * this.width);
    this.hashes[row] = h;
    this.slots[slot] = row + 1;
    this.rows = row + 1;
    return row;
  }

  private grow(): void {
    const rows = this.hashes.length * 2;
    const keys = new Float64Array(rows * this.width);
    keys.set(this.keys);
    const sums = new Float64Array(rows * this.metrics);
    sums.set(this.sums);
    const hashes = new Int32Array(rows);
    hashes.set(this.hashes);
    const slots = new Int32Array(slotsFor(rows));
    const mask = slots.length - 1;
    for (let row = 0; row < this.rows; row++) {
      let s = hashes[row]! & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = row + 1;
    }
    this.keys = keys;
    this.sums = sums;
    this.hashes = hashes;
    this.slots = slots;
  }
}

/** A power of two at least twice `rows`: the table stays at most half full. */
function slotsFor(rows: number): number {
  let n = 16;
  while (n < rows * 2) n *= 2;
  return n;
}

/**
 * Text as small integers for the keys of a RowTable: '' is 0, each other text gets the next number.
 * A flush reads the text back by its number (`text`). The ids only grow until `renewed` starts a new
 * list (a bound on what varied traffic can make it hold); rows keep the list they were made with.
 */
export class TextIds {
  /** The text of each id: rows made with these ids read their text from this array. */
  text: string[] = [''];
  /** Bumped by `renew`: ids taken before it mean nothing in the new list. */
  generation = 0;
  private ids = new Map<string, number>([['', 0]]);

  idOf(value: string): number {
    const id = this.ids.get(value);
    if (id !== undefined) return id;
    const next = this.text.length;
    this.text.push(value);
    this.ids.set(value, next);
    return next;
  }

  get size(): number {
    return this.text.length;
  }

  /** Starts a new list; the old one stays readable through the `text` array a caller kept. */
  renew(): void {
    this.text = [''];
    this.ids = new Map([['', 0]]);
    this.generation++;
  }
}
