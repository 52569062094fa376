import { describe, expect, it } from 'vitest';
import { compileOwnersBefore, earliest, latest, ownersStoppedAt } from './accounts.js';
import { type AccountRow } from './loadRows.js';

const account = (over: Partial<AccountRow>): AccountRow => ({
  id: 1,
  type: 'demand',
  name: 'a',
  status: 1,
  archived: false,
  tenantId: null,
  managerId: null,
  timezone: 0,
  showDsp: true,
  domain: '',
  sellerEntryId: '',
  showCheckIVT: false,
  setCheckIVTAll: false,
  blockIVT: false,
  postbidGranted: false,
  postbidPercent: 0,
  setPostbidAll: false,
  updatedAt: 0,
  ...over,
});

describe('when the owners of a row stopped serving it', () => {
  it('takes the earlier (and the later) of two moments, either of which may be unknown', () => {
    expect(earliest(undefined, undefined)).toBeUndefined();
    expect(earliest(5, undefined)).toBe(5);
    expect(earliest(undefined, 7)).toBe(7);
    expect(earliest(9, 4)).toBe(4);
    expect(earliest(3, Number.NaN)).toBe(3);
    expect(latest(undefined, 7)).toBe(7);
    expect(latest(9, 4)).toBe(9);
    expect(latest(Number.NaN, 2)).toBe(2);
  });

  it("is the first of its tenant and advertiser to stop; a tenant's DSP view turned off stops its campaigns, not its tags", () => {
    const before = compileOwnersBefore([
      account({ id: 1, status: 0, updatedAt: 2_000 }), // a paused tenant
      account({ id: 2, showDsp: false, updatedAt: 3_000 }), // a live tenant without the DSP view
      account({ id: 10, type: 'adv', tenantId: 1, status: 0, updatedAt: 1_000 }),
      account({ id: 20, type: 'adv', tenantId: 2, updatedAt: 500 }), // live
      account({ id: 21, type: 'adv', tenantId: 2, archived: true, updatedAt: 4_000 }),
    ]);
    expect(ownersStoppedAt(before, 1, 10, true)).toBe(1_000);
    expect(ownersStoppedAt(before, 1, null, false)).toBe(2_000);
    expect(ownersStoppedAt(before, 2, 20, true)).toBe(3_000);
    expect(ownersStoppedAt(before, 2, 20, false)).toBeUndefined();
    expect(ownersStoppedAt(before, 2, 21, false)).toBe(4_000);
    // every account is an owner before it stopped, and every tenant buys
    expect([...before.owners.tenants.values()].every((t) => t.showDsp)).toBe(true);
    expect(before.owners.advertisers.has(10)).toBe(true);
  });
});
