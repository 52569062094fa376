import { describe, expect, it } from 'vitest';
import { admitDecision, forEachDeliveryEngine, serveDecision, testClock, until } from '../../test/deliveryEngines.js';
import { HOUR_MS } from './pacing.js';
import { type Admission, type DealLimits, type DeliveryCounters, type Refusal, type TagLimits } from './types.js';

/**
 * A supply deal's impression caps (docs/delivery.md, "Supply deals' impression caps"): its
 * impressions over its life and per day of its tenant, counted as a demand tag's daily impressions
 * are (a lease of the shared count, a reservation at the decision, the spend at the impression), on
 * both engines and across two processes sharing the counters.
 */
const T0 = Date.parse('2026-03-10T05:00:00Z'); // 00:00 on 2026-03-10 in UTC-5

const deal = (over: Partial<DealLimits> = {}): DealLimits => ({
  id: 31,
  timezone: -5,
  impCap: 'unlimited',
  dailyImpCap: 'unlimited',
  ...over,
});
const tag: TagLimits = {
  id: 7,
  timezone: -5,
  qpsLimit: 'unlimited',
  dailyRequestCap: 'unlimited',
  dailyImpCap: 'unlimited',
};
const onDeal = (d: DealLimits): Admission => ({ tag, deal: d, priceMicros: 20_000 });

/** Whether the deal may be offered now, after the lease a process without one asks for has come. */
async function offered(counters: DeliveryCounters, d: DealLimits, now: number): Promise<Refusal | null> {
  let refusal = counters.dealRefusal(d, now);
  for (let i = 0; i < 3 && refusal === 'budget_lease'; i++) {
    await counters.flush();
    refusal = counters.dealRefusal(d, now);
  }
  return refusal;
}

forEachDeliveryEngine((t) => {
  describe('supply deal caps', () => {
    it('stops a deal at exactly its impression cap, over days', async () => {
      const clock = testClock(T0 + HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const d = deal({ id: 32, impCap: 5 });
      let served = 0;
      for (let day = 0; day < 3; day++) {
        clock.set(T0 + day * 24 * HOUR_MS + HOUR_MS);
        for (let i = 0; i < 3; i++) if ((await serveDecision(counters, onDeal(d), clock.now())) === null) served++;
      }
      expect(served).toBe(5);
      expect(counters.dealRefusal(d, clock.now())).toBe('deal_imp_cap');
      await counters.flush();
      expect(await counters.readDealCounts([d], clock.now())).toEqual([{ imps: 5, today: 0 }]);
      // a cap raised while serving serves again
      expect(await offered(counters, { ...d, impCap: 6 }, clock.now())).toBeNull();
    });

    it("holds a daily cap in the tenant's day, and a reservation counts until its impression comes", async () => {
      const clock = testClock(T0 + HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const d = deal({ id: 33, dailyImpCap: 2 });
      expect(await admitDecision(counters, onDeal(d), clock.now(), 'first')).toBeNull();
      expect(await admitDecision(counters, onDeal(d), clock.now(), 'second')).toBeNull();
      // two decisions wait for their impressions: the deal is not offered a third time
      expect(counters.dealRefusal(d, clock.now())).toBe('deal_daily_imp_cap');
      expect(await admitDecision(counters, onDeal(d), clock.now(), 'third')).toBe('deal_daily_imp_cap');
      counters.commit('first', onDeal(d), clock.now());
      counters.release('second');
      expect(await offered(counters, d, clock.now())).toBeNull();
      // 04:59 UTC the next day is still the same day in UTC-5; 05:00 is a new one
      expect(await serveDecision(counters, onDeal(d), clock.set(T0 + 24 * HOUR_MS - 60_000))).toBeNull();
      expect(counters.dealRefusal(d, clock.now())).toBe('deal_daily_imp_cap');
      expect(await offered(counters, d, clock.set(T0 + 24 * HOUR_MS))).toBeNull();
    });

    it('holds a cap across two processes sharing the counters', async () => {
      const clock = testClock(T0 + HOUR_MS);
      const deployment = t.deployment();
      const [a, b] = [
        await deployment.open({ clock: clock.now, timers: false }),
        await deployment.open({ clock: clock.now, timers: false }),
      ];
      const d = deal({ id: 34, impCap: 12 });
      const served = [0, 0];
      for (let i = 0; i < 40; i++) {
        const which = i % 2;
        if ((await serveDecision(which ? b : a, onDeal(d), clock.advance(50))) === null) served[which]!++;
        if (i % 4 === 3) await Promise.all([a.flush(), b.flush()]);
      }
      await Promise.all([a.flush(), b.flush()]);
      expect(served[0]! + served[1]!).toBe(12);
      expect(served[0]).toBeGreaterThan(0);
      expect(served[1]).toBeGreaterThan(0);
      expect(a.dealRefusal(d, clock.now())).toBe('deal_imp_cap');
      expect(b.dealRefusal(d, clock.now())).toBe('deal_imp_cap');
      expect(await a.readDealCounts([d], clock.now())).toEqual([{ imps: 12, today: 0 }]);
    });

    it('counts the impression of a decision another process made once', async () => {
      const clock = testClock(T0 + HOUR_MS);
      const deployment = t.deployment();
      const [a, b] = [
        await deployment.open({ clock: clock.now, timers: false }),
        await deployment.open({ clock: clock.now, timers: false }),
      ];
      const d = deal({ id: 36, impCap: 2 });
      expect(await admitDecision(a, onDeal(d), clock.now(), 'elsewhere')).toBeNull();
      b.commit('elsewhere', onDeal(d), clock.now());
      await b.flush();
      await until('the commit notice', () => a.stats().committedElsewhere > 0, 5_000);
      await a.flush();
      expect(await serveDecision(a, onDeal(d), clock.now())).toBeNull();
      expect(await serveDecision(a, onDeal(d), clock.now())).toBe('deal_imp_cap');
      await Promise.all([a.flush(), b.flush()]);
      expect(await b.readDealCounts([d], clock.now())).toEqual([{ imps: 2, today: 0 }]);
    });

    it("raises a deal's counts to the stats store's, never lowers them", async () => {
      const clock = testClock(T0 + HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const d = deal({ id: 35, impCap: 10, dailyImpCap: 4 });
      await counters.raiseCounts({ campaigns: [], tags: [], deals: [{ deal: d, today: 3, total: 9 }] }, clock.now());
      expect(await serveDecision(counters, onDeal(d), clock.now())).toBeNull();
      expect(await offered(counters, d, clock.now())).toBe('deal_imp_cap');
      await counters.flush();
      expect(await counters.readDealCounts([d], clock.now())).toEqual([{ imps: 10, today: 4 }]);
    });
  });
});
