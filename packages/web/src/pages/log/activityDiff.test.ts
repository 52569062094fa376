import { describe, expect, it } from 'vitest';
import { diffFields, entryName, showValue } from './activityDiff.js';

describe('activity diff', () => {
  it('lists only the fields that changed, leaving out row metadata', () => {
    const before = { id: 4, name: 'PMP', floorCpm: 15_000_000, buyerSeats: ['a'], updatedAt: 'x' };
    const after = { id: 4, name: 'PMP', floorCpm: 20_000_000, buyerSeats: ['a', 'b'], updatedAt: 'y' };
    expect(diffFields(before, after)).toEqual([
      { field: 'buyerSeats', before: ['a'], after: ['a', 'b'] },
      { field: 'floorCpm', before: 15_000_000, after: 20_000_000 },
    ]);
  });

  it('shows every field of a created row', () => {
    expect(diffFields(null, { id: 1, name: 'New', status: 1 }).map((c) => c.field)).toEqual(['name', 'status']);
  });

  it('names the row and prints values on one line', () => {
    expect(entryName({ name: 'Old' }, { name: 'New' })).toBe('New');
    expect(entryName({ key: 'channels.floorCpm' }, null)).toBe('channels.floorCpm');
    expect(showValue(null)).toBe('—');
    expect(showValue({ a: 1 })).toBe('{"a":1}');
  });
});
