import { describe, expect, it } from 'vitest';
import { assignedTo, countByAccount } from './assigned.js';

describe('rows assigned to an account', () => {
  const channels = [
    { id: 1, name: 'Roku preroll', subpublisherId: 7 },
    { id: 2, name: 'Fire TV midroll', subpublisherId: 7, archived: true },
    { id: 3, name: 'Web outstream', subpublisherId: 8 },
    { id: 4, name: 'Unassigned', subpublisherId: null },
  ];

  it('lists the live rows of one account', () => {
    expect(assignedTo(channels, 'subpublisherId', 7).map((c) => c.id)).toEqual([1]);
    expect(assignedTo(channels, 'subpublisherId', 9)).toEqual([]);
  });

  it('counts live rows per account, ignoring unassigned and archived ones', () => {
    expect([...countByAccount(channels, 'subpublisherId')]).toEqual([
      [7, 1],
      [8, 1],
    ]);
  });
});
