import { IdSlots } from './parsedRows.js';

/**
 * A map from row ids to values, its ids in typed arrays (parsedRows.ts IdSlots, and the ids in the
 * order they were set) and its values in one array: the snapshot's map of 100,000 campaigns by id
 * is then one array of references on V8's heap, where a Map's table holds a key, a value and a
 * chain link per entry, all for every full collection to mark. Iterates in the order ids were
 * first set, as a Map does. Nothing is ever deleted from it: a snapshot's maps are made once.
 */
export class IdMap<V> implements ReadonlyMap<number, V> {
  private readonly slots = new IdSlots();
  private ids = new Float64Array(64);
  private readonly list: V[] = [];

  get size(): number {
    return this.list.length;
  }

  set(id: number, value: V): this {
    const at = this.slots.get(id);
    if (at >= 0) {
      this.list[at] = value;
      return this;
    }
    const n = this.list.length;
    if (n >= this.ids.length) {
      const grown = new Float64Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[n] = id;
    this.slots.set(id, n);
    this.list.push(value);
    return this;
  }

  get(id: number): V | undefined {
    const at = this.slots.get(id);
    return at < 0 ? undefined : this.list[at];
  }

  has(id: number): boolean {
    return this.slots.get(id) >= 0;
  }

  *entries(): MapIterator<[number, V]> {
    for (let i = 0; i < this.list.length; i++) yield [this.ids[i]!, this.list[i]!];
  }

  *keys(): MapIterator<number> {
    for (let i = 0; i < this.list.length; i++) yield this.ids[i]!;
  }

  values(): MapIterator<V> {
    return this.list.values();
  }

  [Symbol.iterator](): MapIterator<[number, V]> {
    return this.entries();
  }

  forEach(each: (value: V, key: number, map: ReadonlyMap<number, V>) => void): void {
    for (let i = 0; i < this.list.length; i++) each(this.list[i]!, this.ids[i]!, this);
  }
}
