import { describe, expect, it } from 'vitest';
import { forEachDeliveryEngine } from '../../test/deliveryEngines.js';
import { Account } from './allowances.js';
import { askOf } from './exchangeBatch.js';
import { DAY_MS } from './pacing.js';
import { type BudgetAsk, type SharedCounters } from './sharedCounters.js';

/**
 * The last impressions of a budget must not strand in pieces: a lease smaller than one decision's
 * price serves nothing, and two processes each holding such a piece of the last impression's price
 * (6,666 and 3,334 of 10,000) kept it from both, exchange after exchange (seen as 299 of 300
 * billed in bench/workers.bench.ts, and by the random walks' drain in deliveryCounters.test.ts).
 */
const T0 = Date.UTC(2026, 10, 23, 12);
const PRICE = 10_000;

const ask = (over: Partial<BudgetAsk>): BudgetAsk => ({
  key: 'c1:d1',
  limit: 10 * PRICE,
  want: 2 * PRICE,
  min: PRICE,
  used: 0,
  reserved: 0,
  floor: 0,
  floorGen: '',
  evenRate: 0,
  dayEnd: T0 + DAY_MS,
  hour: 12,
  ttlMs: DAY_MS,
  ...over,
});

forEachDeliveryEngine((t) => {
  it('leases nothing smaller than a price from what is free, so the last impression goes to one process whole', async () => {
    const deployment = t.deployment();
    const [a, b] = [await deployment.openShared('a'), await deployment.openShared('b')];
    const exchange = async (shared: SharedCounters, over: Partial<BudgetAsk>, now = T0) =>
      (await shared.exchange({ now, budgets: [ask(over)], frequencies: [], qps: [] })).budgets[0]!;
    // nine impressions spent; a holds 6,666 of the last one (it asked for no more)
    expect(await exchange(a, { used: 9 * PRICE, want: 6_666 })).toMatchObject({ granted: 6_666, spent: 9 * PRICE });
    // b wants two impressions: 3,334 are free, less than one: none of it (before: 3,334, stranded beside a's)
    expect(await exchange(b, {})).toMatchObject({ granted: 0, others: 6_666 });
    // a asks again: the whole impression
    expect(await exchange(a, {}, T0 + 100)).toMatchObject({ granted: PRICE, others: 0 });
    // and what is left of it for b is nothing: it is a's to spend
    expect(await exchange(b, {}, T0 + 200)).toMatchObject({ granted: 0, others: PRICE });
  });
});

describe("an exchange's claim", () => {
  const account = (granted: number): Account => {
    const acc = new Account('c1:d1', 'daily_budget', DAY_MS, 0, T0 + DAY_MS, T0);
    acc.limit = 10 * PRICE;
    acc.granted = granted;
    acc.price = PRICE;
    acc.wantedAt = T0;
    return acc;
  };
  const claim = (acc: Account, reserved = 0) => {
    acc.reserved = reserved;
    askOf({ accounts: [acc], viewers: [], buckets: [] }, T0, { idleMs: 5_000, chunkMs: 1_000 }, false);
    return acc.claimed;
  };

  it("claims room for whole decisions only: a lease's piece under one price is not kept from the others", () => {
    expect(claim(account(3_739))).toBe(0);
    expect(claim(account(3_739 + PRICE), PRICE)).toBe(PRICE);
    expect(claim(account(3 * PRICE))).toBe(2 * PRICE);
    expect(claim(account(PRICE + 1))).toBe(PRICE + 1);
  });
});
