import { describe, expect, it } from 'vitest';
import { HOUR_MS, DAY_MS } from '../src/delivery/pacing.js';
import { type Admission, type CampaignLimits, type Refusal, type TagLimits } from '../src/delivery/types.js';
import { admitDecision, forEachDeliveryEngine, serveDecision, testClock } from './deliveryEngines.js';

/**
 * Audit probes of delivery control (docs/delivery.md) on both engines, on a simulated clock: budgets
 * changed mid-day, the tenant's day boundary east and west of UTC, and the day an impression that
 * comes after its decision's day ended is booked to.
 */
const PRICE = 3_330; // $3.33 CPM
const EAST = 10; // UTC+10
const WEST = -7; // UTC-7
/** 00:00 of 2026-03-10 in a zone `tz` hours from UTC. */
const midnight = (tz: number) => Date.parse('2026-03-10T00:00:00Z') - tz * HOUR_MS;

const campaign = (over: Partial<CampaignLimits> = {}): CampaignLimits => ({
  id: 1,
  timezone: EAST,
  dailyBudget: 'unlimited',
  totalBudget: 'unlimited',
  pacing: 'asap',
  frequencyCap: null,
  ...over,
});
const tag = (over: Partial<TagLimits> = {}): TagLimits => ({
  id: 7,
  timezone: WEST,
  qpsLimit: 'unlimited',
  dailyRequestCap: 'unlimited',
  dailyImpCap: 'unlimited',
  ...over,
});

const admit = admitDecision;
const serve = serveDecision;

forEachDeliveryEngine((t) => {
  describe('audit: budgets changed mid-day', () => {
    it('a daily budget lowered to what is spent refuses the next impression at once, whatever lease is held', async () => {
      const clock = testClock(midnight(EAST) + 9 * HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const c = campaign({ id: 11, dailyBudget: 1_000 * PRICE });
      // a busy campaign: its lease holds several impressions beyond what it spent
      for (let i = 0; i < 40; i++)
        expect(await serve(counters, { campaign: c, priceMicros: PRICE }, clock.now())).toBeNull();
      await counters.flush();
      expect(await serve(counters, { campaign: c, priceMicros: PRICE }, clock.now())).toBeNull();
      const lowered = { ...c, dailyBudget: 41 * PRICE };
      expect(counters.campaignRefusal(lowered, PRICE, null, clock.now())).toBe('daily_budget');
      expect(await serve(counters, { campaign: lowered, priceMicros: PRICE }, clock.now())).toBe('daily_budget');
      await counters.flush();
      const [spend] = await counters.readCampaignSpend([lowered], clock.now());
      expect(spend!.spentToday).toBe(41 * PRICE);
    });

    it('a total budget lowered to what is spent refuses the next impression at once', async () => {
      const clock = testClock(midnight(EAST) + 9 * HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const c = campaign({ id: 12, totalBudget: 1_000 * PRICE });
      for (let i = 0; i < 40; i++)
        expect(await serve(counters, { campaign: c, priceMicros: PRICE }, clock.now())).toBeNull();
      await counters.flush();
      const lowered = { ...c, totalBudget: 40 * PRICE };
      expect(await serve(counters, { campaign: lowered, priceMicros: PRICE }, clock.now())).toBe('total_budget');
    });

    it('a daily budget raised once spent serves again at once', async () => {
      const clock = testClock(midnight(WEST) + 9 * HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const c = campaign({ id: 13, timezone: WEST, dailyBudget: 3 * PRICE });
      for (let i = 0; i < 3; i++)
        expect(await serve(counters, { campaign: c, priceMicros: PRICE }, clock.now())).toBeNull();
      expect(await serve(counters, { campaign: c, priceMicros: PRICE }, clock.now())).toBe('daily_budget');
      const raised = { ...c, dailyBudget: 5 * PRICE };
      const got: (Refusal | null)[] = [];
      for (let i = 0; i < 3; i++)
        got.push(await serve(counters, { campaign: raised, priceMicros: PRICE }, clock.advance(1_000)));
      expect(got).toEqual([null, null, 'daily_budget']);
    });
  });

  describe("audit: the tenant's day", () => {
    for (const tz of [EAST, WEST]) {
      it(`resets the daily budget at midnight in UTC${tz > 0 ? '+' : ''}${tz}, not at UTC's`, async () => {
        const clock = testClock(midnight(tz) + 23 * HOUR_MS);
        const counters = await t.deployment().open({ clock: clock.now, timers: false });
        const c = campaign({ id: 20 + tz, timezone: tz, dailyBudget: 2 * PRICE });
        expect(await serve(counters, { campaign: c, priceMicros: PRICE }, clock.now())).toBeNull();
        expect(await serve(counters, { campaign: c, priceMicros: PRICE }, clock.now())).toBeNull();
        // UTC midnight falls within the tenant's day (east: at 10:00 there; west: at 17:00): no reset
        const utcMidnight = Date.parse('2026-03-10T00:00:00Z') + (tz > 0 ? 0 : DAY_MS);
        expect(utcMidnight > midnight(tz) && utcMidnight < midnight(tz) + DAY_MS).toBe(true);
        expect(counters.campaignRefusal(c, PRICE, null, midnight(tz) + DAY_MS - 1)).toBe('daily_budget');
        clock.set(midnight(tz) + DAY_MS);
        expect(await serve(counters, { campaign: c, priceMicros: PRICE }, clock.now())).toBeNull();
        await counters.flush();
        const [spend] = await counters.readCampaignSpend([c], clock.now());
        expect(spend).toMatchObject({ spentToday: PRICE });
        expect(spend!.hourly[0]).toBe(PRICE);
      });
    }
  });

  describe("audit: an impression that comes after its decision's day ended", () => {
    // the reports book an impression to the hour of its event (edge/doors/trackingEvents.ts); so
    // does the stats store read at a restart (deliverySeed.ts): the counters must agree, in whichever
    // process the event arrives
    it('is booked to the day of the impression in the deciding process, as in another process and in the reports', async () => {
      const clock = testClock(midnight(EAST) + DAY_MS - 5_000);
      const deployment = t.deployment();
      const [a, b] = [
        await deployment.open({ clock: clock.now, timers: false }),
        await deployment.open({ clock: clock.now, timers: false }),
      ];
      const c = campaign({ id: 30, dailyBudget: 100 * PRICE });
      const tg = tag({ id: 31, timezone: EAST, dailyImpCap: 100 });
      const admission: Admission = { campaign: c, tag: tg, priceMicros: PRICE };
      expect(await admit(a, admission, clock.now(), 'late-1')).toBeNull();
      expect(await admit(a, admission, clock.now(), 'late-2')).toBeNull();
      clock.set(midnight(EAST) + DAY_MS + 5_000);
      a.commit('late-1', admission, clock.now()); // the deciding process
      b.commit('late-2', admission, clock.now()); // another one
      await a.flush();
      await b.flush();
      const [today] = await a.readCampaignSpend([c], clock.now());
      expect(today).toMatchObject({ spentToday: 2 * PRICE });
      expect(today!.hourly[0]).toBe(2 * PRICE);
      const [yesterday] = await a.readCampaignSpend([c], midnight(EAST) + DAY_MS - 1);
      expect(yesterday!.spentToday).toBe(0);
      // nothing is left held on the day that ended
      expect(a.stats().held).toBe(0);
      // the tag's impressions of today: 2 of 100 (98 more fit, not 99)
      let more = 0;
      for (let i = 0; i < 100; i++) if ((await serve(a, { tag: tg, priceMicros: 0 }, clock.now())) === null) more++;
      expect(more).toBe(98);
    });
  });
});

forEachDeliveryEngine((t) => {
  describe('audit: even pacing', () => {
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

    it('a campaign starting at 14:00 (UTC+10) catches up at 2x even at most, to the last hour, and not into the next day', async () => {
      const start = midnight(EAST) + 14 * HOUR_MS;
      const clock = testClock(start);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      // 240 impressions a day: 10 an hour at the even rate; traffic every 15 s (240 an hour)
      const c = campaign({ id: 40, dailyBudget: 240 * PRICE, pacing: 'even' });
      const perHour = new Array<number>(11).fill(0);
      for (let now = start; now < midnight(EAST) + DAY_MS + HOUR_MS; now = clock.advance(15_000)) {
        if ((await serve(counters, { campaign: c, priceMicros: PRICE }, now)) === null)
          perHour[Math.floor((now - start) / HOUR_MS)]!++;
        if (t.engine === 'redis') await counters.flush();
      }
      // 14:00-24:00: at most 2x even (20 an hour) plus the bucket's burst (2 s, or one impression)
      for (const h of perHour.slice(0, 10)) expect(h).toBeLessThanOrEqual(21);
      expect(sum(perHour.slice(0, 10))).toBeGreaterThanOrEqual(195);
      // the next day starts on the even line: about 10 in its first hour
      expect(perHour[10]).toBeLessThanOrEqual(12);
      expect(perHour[10]).toBeGreaterThanOrEqual(8);
    });

    it("the pacing state the console shows is the engine's: spent, target so far, projected, allowed rate", async () => {
      const { campaignPacing } = await import('../src/delivery/campaignPacing.js');
      const start = midnight(WEST) + 9 * HOUR_MS;
      const clock = testClock(start);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const c = campaign({ id: 41, timezone: WEST, dailyBudget: 240 * PRICE, pacing: 'even' });
      for (let now = start; now < start + 90 * 60_000; now = clock.advance(20_000)) {
        await serve(counters, { campaign: c, priceMicros: PRICE }, now);
        if (t.engine === 'redis') await counters.flush();
      }
      await counters.flush();
      const engine = counters.pacingState(c, clock.now());
      const [spend] = await counters.readCampaignSpend([c], clock.now());
      const console = campaignPacing(
        {
          id: c.id,
          status: 1,
          archived: false,
          startDate: '2026-03-01',
          endDate: null,
          dailyBudget: c.dailyBudget,
          totalBudget: 'unlimited',
          pacing: 'even',
          timezone: WEST,
        },
        spend!,
        clock.now(),
      );
      expect(console).toMatchObject({
        spentToday: engine.spentToday,
        targetSoFar: engine.targetSoFar,
        projected: engine.projected,
        allowedPerHour: engine.allowedPerHour,
        hour: 10,
      });
      expect(engine.targetSoFar).toBe(Math.round((240 * PRICE * 10.5) / 24));
    });
  });

  describe('audit: frequency caps', () => {
    it("a cap of 1 per hour, anchored on the viewer's first impression; two campaigns count apart", async () => {
      const clock = testClock(midnight(EAST) + 10 * HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const one = campaign({ id: 50, frequencyCap: { count: 1, periodHours: 1 } });
      const two = campaign({ id: 51, frequencyCap: { count: 1, periodHours: 1 } });
      const viewer = 'd:device-50';
      const first = clock.advance(17 * 60_000); // 10:17
      expect(await serve(counters, { campaign: one, priceMicros: PRICE, viewer }, first)).toBeNull();
      await counters.flush();
      expect(await serve(counters, { campaign: one, priceMicros: PRICE, viewer }, clock.advance(1_000))).toBe(
        'frequency_cap',
      );
      // the other campaign, and the other viewer, are their own
      expect(await serve(counters, { campaign: two, priceMicros: PRICE, viewer }, clock.now())).toBeNull();
      expect(
        await serve(counters, { campaign: one, priceMicros: PRICE, viewer: 'd:device-51' }, clock.now()),
      ).toBeNull();
      await counters.flush();
      // not at 11:00 (a calendar hour would reopen), still not at 11:16:59
      expect(counters.campaignRefusal(one, PRICE, viewer, clock.set(midnight(EAST) + 11 * HOUR_MS + 1_000))).toBe(
        'frequency_cap',
      );
      expect(counters.campaignRefusal(one, PRICE, viewer, clock.set(first + HOUR_MS - 1_500))).toBe('frequency_cap');
      // the window closes an hour after the first impression (its exchange: within a tick)
      clock.set(first + HOUR_MS + 1_000);
      await counters.flush();
      expect(await serve(counters, { campaign: one, priceMicros: PRICE, viewer }, clock.now())).toBeNull();
      await counters.flush();
      expect(await serve(counters, { campaign: one, priceMicros: PRICE, viewer }, clock.advance(2_000))).toBe(
        'frequency_cap',
      );
    });
  });

  describe('audit: QPS limits', () => {
    it('0 serves nothing; a burst at the second boundary gets the bucket only', async () => {
      const clock = testClock(midnight(EAST) + 10 * HOUR_MS - 50);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      for (let i = 0; i < 5; i++) expect(counters.takeQps('supplier', 60, 0, clock.now())).toBe(false);
      expect(counters.takeTagRequest(tag({ id: 61, qpsLimit: 0 }), clock.now())).toBe('qps_limit');
      // 10 a second: a bucket of 2; a burst of 20 just before the second and 20 just after
      let passed = 0;
      for (let i = 0; i < 20; i++) if (counters.takeQps('supplier', 62, 10, clock.now())) passed++;
      clock.advance(100);
      for (let i = 0; i < 20; i++) if (counters.takeQps('supplier', 62, 10, clock.now())) passed++;
      expect(passed).toBeLessThanOrEqual(3);
      // over 3 s of requests every 10 ms: at most about the limit a second
      passed = 0;
      for (let i = 0; i < 300; i++) {
        if (counters.takeQps('supplier', 62, 10, clock.advance(10))) passed++;
        if (i % 10 === 0) await counters.flush();
      }
      expect(passed).toBeLessThanOrEqual(33);
      expect(passed).toBeGreaterThanOrEqual(27);
    });

    it('a limit lowered while serving holds from the next request', async () => {
      const clock = testClock(midnight(EAST) + 10 * HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      for (let i = 0; i < 100; i++) {
        counters.takeQps('adexchange', 70, 1_000, clock.advance(10));
        if (i % 10 === 0) await counters.flush();
      }
      await counters.flush();
      clock.advance(500); // idle: the bucket fills (200 ms at the share)
      let passed = 0;
      for (let i = 0; i < 50; i++) if (counters.takeQps('adexchange', 70, 2, clock.now())) passed++;
      expect(passed).toBeLessThanOrEqual(1);
    });
  });
});

forEachDeliveryEngine((t) => {
  describe('audit: money', () => {
    it('a million impressions at odd CPMs add up to the micro-dollar, as the reports round each impression', async () => {
      const { DeliveryGate } = await import('../src/edge/auction/deliveryGate.js');
      const { payoutCpm } = await import('../src/edge/demand/money.js');
      const clock = testClock(midnight(EAST) + 3 * HOUR_MS);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const pacing = new DeliveryGate(counters);
      const c = campaign({ id: 80, totalBudget: 10_000_000_000_000 });
      // $3.33 and $3.333333 CPM: the impression's price is the CPM / 1000 rounded to the micro-dollar (trackingEvents.ts rounds revenue so)
      const cpms = [3_330_000, 3_333_333];
      let expected = 0;
      for (let i = 0; i < 1_000_000; i++) {
        const cpm = cpms[i % 2]!;
        const admission = pacing.admission(null, null, EAST, cpm, '');
        counters.commit(`m${i}`, { ...admission, campaign: c }, clock.now());
        expected += Math.round(cpm / 1000);
        if (i % 100_000 === 99_999) await counters.flush();
      }
      await counters.flush();
      expect(expected).toBe(500_000 * 3_330 + 500_000 * 3_333);
      const [spend] = await counters.readCampaignSpend([c], clock.now());
      expect(spend).toMatchObject({ spentToday: expected, totalSpent: expected });
      // a revenue share's payout is whole micro-dollars CPM, never above the revenue
      for (const cpm of cpms)
        for (const percent of [33, 70, 99]) {
          const payout = payoutCpm({ type: 'revshare', percent }, cpm);
          expect(Number.isInteger(payout)).toBe(true);
          expect(payout).toBe(Math.floor((cpm * percent) / 100));
        }
    }, 60_000);
  });
});
