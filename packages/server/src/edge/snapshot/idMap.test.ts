import { SeededRandom } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { IdMap } from './idMap.js';

/**
 * The snapshot's map of campaigns by id (idMap.ts) answers as a Map would: lookups, size, a value
 * set again for an id it holds, and iteration in the order ids were first set, over ids of every
 * size a store hands out (past int32 too).
 */
describe('IdMap', () => {
  it('answers as a Map of the same entries', () => {
    const rnd = new SeededRandom(5);
    const ids = new IdMap<string>();
    const map = new Map<number, string>();
    for (let i = 0; i < 20_000; i++) {
      const id = rnd.pick([1 + rnd.int(5000), 2 ** 31 + rnd.int(5000), 2 ** 40 + rnd.int(100)]);
      ids.set(id, `v${i}`);
      map.set(id, `v${i}`);
    }
    expect(ids.size).toBe(map.size);
    expect([...ids]).toEqual([...map]);
    expect([...ids.keys()]).toEqual([...map.keys()]);
    expect([...ids.values()]).toEqual([...map.values()]);
    const each: [number, string][] = [];
    ids.forEach((value, key, whole) => {
      expect(whole).toBe(ids);
      each.push([key, value]);
    });
    expect(each).toEqual([...map]);
    for (let id = 0; id < 6000; id++) {
      expect(ids.get(id)).toBe(map.get(id));
      expect(ids.has(2 ** 31 + id)).toBe(map.has(2 ** 31 + id));
    }
  });
});
