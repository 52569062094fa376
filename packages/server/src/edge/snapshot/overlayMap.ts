import { IdMap } from './idMap.js';

/** Changes an overlay holds before the next one is made a plain map again (a lookup reads them first). */
const MOST_CHANGES = 20_000;

/**
 * A read-only map as a base map and the changes made to it since (a value, or null for a key taken
 * out): a build that changes a few of a million campaigns hands the next snapshot the last one's
 * map and its changes, instead of a copy of a million entries. Neither part is written after it is
 * made (a snapshot still serving reads what it was built with): `with` makes a new overlay over the
 * same base, and a plain map again once the changes pass MOST_CHANGES.
 */
export class OverlayMap<V> implements ReadonlyMap<number, V> {
  private constructor(
    private readonly base: ReadonlyMap<number, V>,
    private readonly changes: ReadonlyMap<number, V | null>,
    readonly size: number,
  ) {}

  /** `map` as an overlay (itself when it is one). */
  static of<V>(map: ReadonlyMap<number, V>): OverlayMap<V> {
    return map instanceof OverlayMap ? (map as OverlayMap<V>) : new OverlayMap(map, new Map(), map.size);
  }

  /** This map with `changes` made (null: the key taken out). */
  with(changes: ReadonlyMap<number, V | null>): OverlayMap<V> {
    const merged = new Map(this.changes);
    let size = this.size;
    for (const [key, value] of changes) {
      size += (value === null ? 0 : 1) - (this.has(key) ? 1 : 0);
      merged.set(key, value);
    }
    if (merged.size <= MOST_CHANGES) return new OverlayMap(this.base, merged, size);
    const flat = new IdMap<V>();
    for (const [key, value] of this.base) if (!merged.has(key)) flat.set(key, value);
    for (const [key, value] of merged) if (value !== null) flat.set(key, value);
    return new OverlayMap(flat, new Map(), flat.size);
  }

  /**
   * The keys whose values may differ from `before` to `after` when one is an overlay made from the
   * other (over the same base), null when they are not: what left between two snapshots is then
   * found among a few keys instead of every key (departed.ts).
   */
  static changedBetween<V>(before: ReadonlyMap<number, V>, after: ReadonlyMap<number, V>): Iterable<number> | null {
    if (!(after instanceof OverlayMap)) return null;
    const a = after as OverlayMap<V>;
    if (before === a.base) return a.changes.keys();
    if (!(before instanceof OverlayMap) || (before as OverlayMap<V>).base !== a.base) return null;
    return new Set([...(before as OverlayMap<V>).changes.keys(), ...a.changes.keys()]);
  }

  get(key: number): V | undefined {
    const changed = this.changes.get(key);
    return changed === undefined ? this.base.get(key) : (changed ?? undefined);
  }

  has(key: number): boolean {
    const changed = this.changes.get(key);
    return changed === undefined ? this.base.has(key) : changed !== null;
  }

  *entries(): MapIterator<[number, V]> {
    for (const entry of this.base) if (!this.changes.has(entry[0])) yield entry;
    for (const [key, value] of this.changes) if (value !== null) yield [key, value];
  }

  *keys(): MapIterator<number> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[number, V]> {
    return this.entries();
  }

  forEach(each: (value: V, key: number, map: ReadonlyMap<number, V>) => void): void {
    for (const [key, value] of this.entries()) each(value, key, this);
  }
}
