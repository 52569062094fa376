import { describe, expect, it } from 'vitest';
import { RowTable, TextIds } from './rowTable.js';

const keyOf = (...values: number[]) => Float64Array.from(values);

describe('counter row table', () => {
  it('finds the same row for the same key and a new row for any other, in the order they came', () => {
    const t = new RowTable(3, 2, 16);
    const a = t.rowOf(keyOf(1, 2, 3));
    const b = t.rowOf(keyOf(1, 2, 4));
    const c = t.rowOf(keyOf(3, 2, 1));
    expect([a, b, c]).toEqual([0, 1, 2]);
    expect(t.rowOf(keyOf(1, 2, 3))).toBe(0);
    expect(t.rowOf(keyOf(3, 2, 1))).toBe(2);
    // keys that are not small integers still get rows of their own
    expect(t.rowOf(keyOf(1.5, 2, 3))).toBe(3);
    expect(t.rowOf(keyOf(2 ** 40, 2, 3))).toBe(4);
    expect(t.rowOf(keyOf(2 ** 40 + 1, 2, 3))).toBe(5);
    expect(t.rowOf(keyOf(1.5, 2, 3))).toBe(3);
    expect(t.rows).toBe(6);
  });

  it('sums per row and keeps keys and sums when it grows far past its first size', () => {
    const t = new RowTable(2, 3, 16);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5000; i++) {
        const row = t.rowOf(keyOf(i % 97, i));
        t.add(row, 0, 1);
        t.add(row, 2, i);
      }
    }
    expect(t.rows).toBe(5000);
    for (const i of [0, 1, 96, 97, 2500, 4999]) {
      const row = t.rowOf(keyOf(i % 97, i));
      expect(row).toBe(i);
      expect(Array.from(t.keys.subarray(row * 2, row * 2 + 2))).toEqual([i % 97, i]);
      expect(Array.from(t.sums.subarray(row * 3, row * 3 + 3))).toEqual([3, 0, 3 * i]);
    }
  });

  it('reads only the first `width` numbers of the key it is given', () => {
    const t = new RowTable(2, 1);
    expect(t.rowOf(keyOf(7, 8, 1))).toBe(t.rowOf(keyOf(7, 8, 2)));
  });
});

describe('text ids', () => {
  it("gives '' the id 0, each other text the next id, and reads them back", () => {
    const ids = new TextIds();
    expect(ids.idOf('')).toBe(0);
    expect(ids.idOf('US')).toBe(1);
    expect(ids.idOf('desktop')).toBe(2);
    expect(ids.idOf('US')).toBe(1);
    expect(ids.text[2]).toBe('desktop');
    expect(ids.size).toBe(3);
  });

  it('starts a new list on renew while the old list stays readable by those who kept it', () => {
    const ids = new TextIds();
    ids.idOf('a');
    ids.idOf('b');
    const old = ids.text;
    ids.renew();
    expect(ids.generation).toBe(1);
    expect(ids.idOf('b')).toBe(1);
    expect(old[2]).toBe('b');
    expect(ids.text).toEqual(['', 'b']);
  });
});
