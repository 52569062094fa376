import { describe, expect, it } from 'vitest';
import {
  admitDecision,
  forEachDeliveryEngine,
  serveDecision,
  sleep,
  testClock,
  until,
} from '../../test/deliveryEngines.js';
import { HOUR_MS } from './pacing.js';
import { type CampaignLimits, type DeliveryCounters, type Refusal, type TagLimits } from './types.js';

/**
 * Delivery control on both engines: the in-process counters, and Redis when REDIS_URL is set. Two
 * engines opened on one deployment are two "processes" sharing the counters. Time is simulated;
 * the background exchange (every 100 ms in production) runs when a test calls flush().
 */
const T0 = Date.parse('2026-03-10T05:00:00Z'); // 00:00 on 2026-03-10 in UTC-5
const PRICE = 10_000; // $10 CPM

const campaign = (over: Partial<CampaignLimits> = {}): CampaignLimits => ({
  id: 1,
  timezone: -5,
  dailyBudget: 'unlimited',
  totalBudget: 'unlimited',
  pacing: 'asap',
  frequencyCap: null,
  ...over,
});
const tag = (over: Partial<TagLimits> = {}): TagLimits => ({
  id: 7,
  timezone: -5,
  qpsLimit: 'unlimited',
  dailyRequestCap: 'unlimited',
  dailyImpCap: 'unlimited',
  ...over,
});

const admit = admitDecision;
const serve = serveDecision;

forEachDeliveryEngine((t) => {
  describe('budgets', () => {
    it("holds a daily budget exactly, in the tenant's day", async () => {
      const clock = testClock(T0 + 10 * HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const c = campaign({ dailyBudget: 10 * PRICE });
      const a = { campaign: c, priceMicros: PRICE };
      const got: (Refusal | null)[] = [];
      for (let i = 0; i < 12; i++) got.push(await serve(counters, a, clock.now()));
      expect(got.filter((r) => r === null)).toHaveLength(10);
      expect(got.slice(10)).toEqual(['daily_budget', 'daily_budget']);
      expect(counters.campaignRefusal(c, PRICE, null, clock.now())).toBe('daily_budget');
      // 04:59 UTC the next day is still 23:59 of the same day in UTC-5; 05:00 is a new day
      expect(counters.campaignRefusal(c, PRICE, null, clock.set(T0 + 24 * HOUR_MS - 60_000))).toBe('daily_budget');
      expect(await serve(counters, a, clock.set(T0 + 24 * HOUR_MS))).toBeNull();
      await counters.flush();
      const [state] = await counters.readPacing([c], clock.now());
      expect(state).toMatchObject({ day: '2026-03-11', spentToday: PRICE });
    });

    it('holds nothing per decision for a campaign without budgets or caps, and still counts its spend', async () => {
      const clock = testClock(T0 + 10 * HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const c = campaign();
      const a = { campaign: c, priceMicros: PRICE };
      for (let i = 0; i < 5; i++) expect(await admit(counters, a, clock.now(), `u${i}`)).toBeNull();
      expect(counters.stats()).toMatchObject({ admitted: 5, held: 0 });
      for (let i = 0; i < 3; i++) counters.commit(`u${i}`, a, clock.now());
      expect(counters.stats()).toMatchObject({ committed: 3, committedUnreserved: 0, overAllowance: 0 });
      await counters.flush();
      const [state] = await counters.readPacing([c], clock.now());
      expect(state!.spentToday).toBe(3 * PRICE);
    });

    it('holds a total budget across days', async () => {
      const clock = testClock(T0);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const c = campaign({ id: 2, totalBudget: 5 * PRICE });
      let served = 0;
      for (let day = 0; day < 4; day++) {
        clock.set(T0 + day * 24 * HOUR_MS + HOUR_MS);
        for (let i = 0; i < 2; i++)
          if ((await serve(counters, { campaign: c, priceMicros: PRICE }, clock.now())) === null) served++;
      }
      expect(served).toBe(5);
      expect(counters.campaignRefusal(c, PRICE, null, clock.now())).toBe('total_budget');
    });

    it('holds a daily budget across two processes sharing the counters', async () => {
      const clock = testClock(T0 + HOUR_MS);
      const deployment = t.deployment();
      const [a, b] = [
        await deployment.open({ clock: clock.now, timers: false }),
        await deployment.open({ clock: clock.now, timers: false }),
      ];
      const c = campaign({ id: 3, dailyBudget: 25 * PRICE });
      const served = [0, 0];
      for (let i = 0; i < 80; i++) {
        const which = i % 2;
        if ((await serve(which ? b : a, { campaign: c, priceMicros: PRICE }, clock.advance(50))) === null)
          served[which]!++;
        if (i % 5 === 4) await Promise.all([a.flush(), b.flush()]);
      }
      await Promise.all([a.flush(), b.flush()]);
      expect(served[0]! + served[1]!).toBe(25);
      expect(served[0]).toBeGreaterThan(0);
      expect(served[1]).toBeGreaterThan(0);
      const [state] = await a.readPacing([c], clock.now());
      expect(state!.spentToday).toBe(25 * PRICE);
    });

    /**
     * Two processes sharing a daily budget of `BUDGET` impressions, driven by a seeded random walk of
     * 300 steps: decisions admitted on either, impressions counted by either, exchanges awaited, or
     * (`leaveInFlight`) some exchanges left on their way while the walk goes on. No more decisions
     * are admitted than the budget holds, and the shared spend is theirs.
     */
    async function randomWalk(
      seed: number,
      id: number,
      odds: { admit: number; commit: number; leaveInFlight?: number },
    ): Promise<void> {
      const BUDGET = 20;
      let state = seed;
      const random = () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
      const clock = testClock(T0 + HOUR_MS);
      const deployment = t.deployment();
      const processes = [
        await deployment.open({ clock: clock.now, timers: false }),
        await deployment.open({ clock: clock.now, timers: false }),
      ];
      const either = () => processes[random() < 0.5 ? 0 : 1]!;
      const c = campaign({ id, dailyBudget: BUDGET * PRICE });
      const a = { campaign: c, priceMicros: PRICE };
      const pending: string[] = [];
      const flights: Promise<void>[] = [];
      let admitted = 0;
      for (let step = 0; step < 300; step++) {
        clock.advance(Math.floor(random() * 5));
        const r = random();
        if (r < odds.admit) {
          if (either().admit(`x${id}-${step}`, a, clock.now()) === null) {
            admitted++;
            pending.push(`x${id}-${step}`);
          }
        } else if (r < odds.commit && pending.length) {
          either().commit(pending.splice(Math.floor(random() * pending.length), 1)[0]!, a, clock.now());
        } else {
          if (odds.leaveInFlight !== undefined && r < odds.leaveInFlight) flights.push(either().flush());
          else if (odds.leaveInFlight !== undefined) await Promise.all(flights.splice(0));
          else await either().flush();
          // (on Redis, the commit notices travel over pub/sub)
          if (t.engine === 'redis' && (odds.leaveInFlight === undefined || r >= odds.leaveInFlight)) await sleep(1);
        }
      }
      await Promise.all(flights);
      expect(admitted, `seed ${seed}: ${admitted} decisions admitted on a budget of ${BUDGET}`).toBeLessThanOrEqual(
        BUDGET,
      );
      for (const id of pending) either().commit(id, a, clock.now());
      await Promise.all(processes.map((p) => p.flush()));
      const [spent] = await processes[0]!.readPacing([c], clock.now());
      expect(spent!.spentToday).toBe(admitted * PRICE);
      // what is left of the budget is not stranded: traffic on both, as a player sends it (an
      // impression for each decision), spends it to the last impression within a few seconds
      let drained = admitted;
      for (let step = 0; step < 200 && drained < BUDGET; step++) {
        const p = processes[step % 2]!;
        const decision = `d${id}-${step}`;
        if (p.admit(decision, a, clock.advance(50)) === null) {
          drained++;
          p.commit(decision, a, clock.now());
        }
        await p.flush();
        if (t.engine === 'redis') await sleep(1);
      }
      expect(drained, `seed ${seed}: ${drained} of ${BUDGET} spent after 10 s of traffic`).toBe(BUDGET);
    }

    it('never leases budget a reservation still holds when another process counted impressions of this one (random interleavings)', async () => {
      // Decisions on both processes; each impression counted by either, some before and some after
      // exchanges and commit notices. A process that counts another's impressions spends them from
      // the shared budget while the deciding one still holds their reservations in its lease: the
      // lease granted to the counting process must not fall below its own reservations, or what those
      // hold is leased again (up to 3 over a budget of 20 in these runs before it was fixed).
      // (fewer on Redis, where each exchange is a round trip: the fault showed by seed 9 there, by seed 3 in process)
      for (let seed = 1; seed <= (t.engine === 'redis' ? 20 : 40); seed++)
        await randomWalk(seed, 1_000 + seed, { admit: 0.45, commit: 0.8 });
    });

    it('never admits past the budget while an exchange is in flight (random interleavings, exchanges left to answer later)', async () => {
      // An exchange's answer may cut the lease to what it claimed when it left (the reservations then,
      // and a little room): decisions admitted while it is on its way must fit in that claim, or the
      // part of the lease they took can be leased to the other process before the next exchange.
      for (let seed = 1; seed <= (t.engine === 'redis' ? 30 : 20); seed++)
        await randomWalk(seed, 2_000 + seed, { admit: 0.5, commit: 0.75, leaveInFlight: 0.92 });
    });

    it('admits within what its exchange in flight claimed, and goes on once it answers', async () => {
      const clock = testClock(T0 + HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const a = { campaign: campaign({ id: 3_001, dailyBudget: 1_000 * PRICE }), priceMicros: PRICE };
      // traffic, so that the lease holds several impressions
      for (let i = 0; i < 40; i++) expect(await serve(counters, a, clock.now())).toBeNull();
      await counters.flush();
      // an exchange on its way (it leaves at once and answers later): the decisions meanwhile fit in
      // its claim, the room of two impressions here, not in the whole lease it may cut
      const flight = counters.flush();
      let during = 0;
      for (let i = 0; i < 10; i++) if (counters.admit(`during-${i}`, a, clock.now()) === null) during++;
      await flight;
      expect(during).toBe(2);
      expect(await admit(counters, a, clock.now(), 'after')).toBeNull();
    });

    it('returns reservations not committed within the hold time, and counts a late impression all the same', async () => {
      const clock = testClock(T0 + HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false, holdMs: 60_000 });
      const c = campaign({ id: 4, dailyBudget: 2 * PRICE });
      const a = { campaign: c, priceMicros: PRICE };
      expect(await admit(counters, a, clock.now(), 'x1')).toBeNull();
      expect(await admit(counters, a, clock.now(), 'x2')).toBeNull();
      expect(await admit(counters, a, clock.now(), 'x3')).toBe('daily_budget');
      expect(counters.stats().held).toBe(2);
      counters.commit('x1', a, clock.advance(30_000));
      expect(await admit(counters, a, clock.now(), 'x3')).toBe('daily_budget');
      clock.advance(31_000); // x2 is 61 s old: returned
      expect(await admit(counters, a, clock.now(), 'x4')).toBeNull();
      expect(counters.stats()).toMatchObject({ expired: 1, committed: 1 });
      // x2's impression after all: counted, beyond the allowance (the measured overspend)
      counters.commit('x2', a, clock.now());
      expect(counters.stats()).toMatchObject({ committedUnreserved: 1, overAllowance: PRICE });
      counters.release('x4');
      await counters.flush();
      const [state] = await counters.readPacing([c], clock.now());
      expect(state!.spentToday).toBe(2 * PRICE);
    });

    it("caps a demand tag's daily requests and impressions", async () => {
      const clock = testClock(T0 + HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const requests = tag({ id: 8, dailyRequestCap: 3 });
      const got: (Refusal | null)[] = [];
      for (let i = 0; i < 4; i++) {
        let r = counters.takeTagRequest(requests, clock.now());
        if (r === 'budget_lease') {
          await counters.flush();
          r = counters.takeTagRequest(requests, clock.now());
        }
        got.push(r);
      }
      expect(got).toEqual([null, null, null, 'daily_request_cap']);
      const imps = tag({ id: 9, dailyImpCap: 2 });
      expect(await serve(counters, { tag: imps, priceMicros: 0 }, clock.now())).toBeNull();
      expect(await serve(counters, { tag: imps, priceMicros: 0 }, clock.now())).toBeNull();
      expect(await serve(counters, { tag: imps, priceMicros: 0 }, clock.now())).toBe('daily_imp_cap');
      expect(counters.takeTagRequest(imps, clock.now())).toBe('daily_imp_cap');
      // the next day in the tag's zone
      expect(await serve(counters, { tag: imps, priceMicros: 0 }, clock.advance(24 * HOUR_MS))).toBeNull();
    });

    it('counts the impression of a decision made by another process once: the deciding process lets its reservation go', async () => {
      const clock = testClock(T0 + HOUR_MS);
      const deployment = t.deployment();
      const [a, b] = [
        await deployment.open({ clock: clock.now, timers: false }),
        await deployment.open({ clock: clock.now, timers: false }),
      ];
      const c = campaign({ id: 5, dailyBudget: 10 * PRICE });
      const adm = { campaign: c, priceMicros: PRICE };
      expect(await admit(a, adm, clock.now(), 'elsewhere')).toBeNull();
      b.commit('elsewhere', adm, clock.now());
      await b.flush();
      // (on Redis, `a` hears of it over pub/sub: 5 s at most, for a busy two-core machine)
      await until('the commit notice', () => a.stats().committedElsewhere > 0, 5_000);
      expect(a.stats()).toMatchObject({ committedElsewhere: 1, held: 0 });
      await Promise.all([a.flush(), b.flush()]);
      const [state] = await a.readPacing([c], clock.now());
      expect(state!.spentToday).toBe(PRICE);
    });
  });

  describe('pacing', () => {
    /** Requests every `everyMs` from `from` to `to`; returns the impressions served per 10 minutes. */
    async function traffic(
      counters: DeliveryCounters,
      c: CampaignLimits,
      clock: ReturnType<typeof testClock>,
      from: number,
      to: number,
      everyMs: number,
    ): Promise<number[]> {
      const served = new Array<number>(Math.ceil((to - from) / 600_000)).fill(0);
      for (let now = clock.set(from); now < to; now = clock.advance(everyMs)) {
        if ((await serve(counters, { campaign: c, priceMicros: PRICE }, now)) === null)
          served[Math.floor((now - from) / 600_000)]!++;
        if (t.engine === 'redis') await counters.flush();
      }
      return served;
    }
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

    it('even: spreads the daily budget over the day, and catches up after a slow spell without bursting', async () => {
      const clock = testClock(T0);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      // $24 a day at $10 CPM: an even 100 impressions an hour; traffic brings 720 an hour
      const c = campaign({ id: 20, dailyBudget: 2_400 * PRICE, pacing: 'even' });
      const first = await traffic(counters, c, clock, T0, T0 + 2 * HOUR_MS, 5_000);
      expect(sum(first)).toBeGreaterThanOrEqual(195);
      expect(sum(first)).toBeLessThanOrEqual(205);
      expect(counters.pacingState(c, clock.now())).toMatchObject({ status: 'on_pace', targetSoFar: 2 * PRICE * 100 });
      // two hours without traffic: behind
      clock.set(T0 + 4 * HOUR_MS);
      const behind = counters.pacingState(c, clock.now());
      expect(behind.status).toBe('behind');
      expect(behind.allowedPerHour).toBe(2 * behind.evenPerHour!); // the catch-up ceiling
      // traffic again: faster than even, never above 2x even, in every 10 minutes
      const after = await traffic(counters, c, clock, T0 + 4 * HOUR_MS, T0 + 6 * HOUR_MS, 5_000);
      expect(Math.max(...after)).toBeLessThanOrEqual(Math.ceil((2 * 100) / 6) + 1);
      expect(sum(after)).toBeGreaterThan(300);
      expect(sum(after)).toBeLessThanOrEqual(401);
      const state = counters.pacingState(c, clock.now());
      expect(state.spentToday).toBe((sum(first) + sum(after)) * PRICE);
      expect(state.status).toBe('on_pace');
      expect(state.projected).toBeLessThanOrEqual(2_400 * PRICE);
    });

    it('asap: spends as traffic comes, up to the daily budget', async () => {
      const clock = testClock(T0);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const c = campaign({ id: 21, dailyBudget: 300 * PRICE, pacing: 'asap' });
      const served = await traffic(counters, c, clock, T0, T0 + HOUR_MS, 10_000);
      expect(sum(served)).toBe(300);
      expect(served[0]).toBe(60);
      const state = counters.pacingState(c, clock.now());
      expect(state).toMatchObject({
        status: 'spent',
        spentToday: 300 * PRICE,
        targetSoFar: 300 * PRICE,
        projected: 300 * PRICE,
      });
    });
  });

  describe('frequency caps', () => {
    it('caps a viewer per campaign over the window, across two processes', async () => {
      const clock = testClock(T0 + HOUR_MS);
      const deployment = t.deployment();
      const [a, b] = [
        await deployment.open({ clock: clock.now, timers: false }),
        await deployment.open({ clock: clock.now, timers: false }),
      ];
      const c = campaign({ id: 30, frequencyCap: { count: 3, periodHours: 2 } });
      const adm = { campaign: c, priceMicros: PRICE, viewer: 'd:viewer-1' };
      const served: string[] = [];
      for (let i = 0; i < 8; i++) {
        const p = i % 2 ? b : a;
        if ((await serve(p, adm, clock.advance(60_000))) === null) served.push(i % 2 ? 'b' : 'a');
        // the minute between two requests: exchanges, and the notice of the impression reaching the other process
        await Promise.all([a.flush(), b.flush()]);
        await sleep(10);
      }
      expect(served).toEqual(['a', 'b', 'a']);
      // another viewer and another campaign are counted apart
      expect(await serve(b, { ...adm, viewer: 'd:viewer-2' }, clock.now())).toBeNull();
      expect(await serve(b, { ...adm, campaign: { ...c, id: 31 } }, clock.now())).toBeNull();
      // the window opened at the first impression (T0+1h+1min) and lasts 2 hours
      expect(b.campaignRefusal(c, PRICE, 'd:viewer-1', clock.set(T0 + 3 * HOUR_MS + 59_000))).toBe('frequency_cap');
      expect(b.campaignRefusal(c, PRICE, 'd:viewer-1', clock.set(T0 + 3 * HOUR_MS + 60_000))).toBeNull();
    });

    it('counts decisions still in flight in the process that made them', async () => {
      const clock = testClock(T0 + HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const adm = {
        campaign: campaign({ id: 32, frequencyCap: { count: 2, periodHours: 1 } }),
        priceMicros: PRICE,
        viewer: 'h:abc',
      };
      expect(await admit(counters, adm, clock.now())).toBeNull();
      expect(await admit(counters, adm, clock.now())).toBeNull();
      expect(await admit(counters, adm, clock.now())).toBe('frequency_cap');
      // never shown: the reservations go back after the hold time
      expect(await admit(counters, adm, clock.advance(61_000))).toBeNull();
    });
  });

  describe('QPS limits', () => {
    it('holds a QPS limit across two processes: local buckets refilled from shares of the limit', async () => {
      const clock = testClock(T0);
      const deployment = t.deployment();
      const [a, b] = [
        await deployment.open({ clock: clock.now, timers: false }),
        await deployment.open({ clock: clock.now, timers: false }),
      ];
      // each process gets 100 requests a second; the supplier allows 20 a second in all
      const allowed: number[] = [];
      for (let ms = 0; ms < 4_000; ms += 10) {
        clock.set(T0 + ms);
        const second = Math.floor(ms / 1000);
        for (const p of [a, b])
          if (p.takeQps('supplier', 1, 20, clock.now())) allowed[second] = (allowed[second] ?? 0) + 1;
        if (ms % 100 === 90) await Promise.all([a.flush(), b.flush()]);
      }
      // the first second: each starts on an equal share; after: the limit, give or take the buckets' depth
      for (const n of allowed.slice(1)) {
        expect(n).toBeGreaterThanOrEqual(16);
        expect(n).toBeLessThanOrEqual(26);
      }
      expect(a.takeQps('adexchange', 2, 'unlimited', clock.now())).toBe(true);
      expect(a.takeQps('tag', 3, 0, clock.now())).toBe(false);
      expect(a.stats().refused.qps_limit).toBeGreaterThan(0);
    });

    it("a tag call counts against the tag's QPS limit", async () => {
      const clock = testClock(T0);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const limited = tag({ id: 11, qpsLimit: 5 });
      let allowed = 0;
      for (let ms = 0; ms < 2_000; ms += 20)
        if (counters.takeTagRequest(limited, clock.set(T0 + ms)) === null) allowed++;
      expect(allowed).toBeGreaterThanOrEqual(9);
      expect(allowed).toBeLessThanOrEqual(12);
    });
  });

  it('reports its engine and health', async () => {
    const counters = await t.deployment().open();
    expect(counters.engine).toBe(t.engine);
    expect(counters.health()).toMatchObject({ engine: t.engine, redis: t.engine === 'memory' ? 'unused' : 'ok' });
  });
});
