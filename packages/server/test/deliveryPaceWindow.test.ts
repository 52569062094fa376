import { describe, expect, it } from 'vitest';
import { campaignPacing } from '../src/delivery/campaignPacing.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../src/delivery/pacing.js';
import { type CampaignLimits } from '../src/delivery/types.js';
import { forEachDeliveryEngine, serveDecision, testClock } from './deliveryEngines.js';

/**
 * Even pacing of a campaign created mid-day (docs/delivery.md, "Pacing"), on both engines and a
 * simulated clock: its first day's budget is spread from its creation to midnight in the tenant's
 * zone, so under steady traffic it spends its whole daily budget that day (over the whole day it
 * would start "behind" and be held at 2x daily/24 h: 16/24 of it by midnight), and the day after is
 * paced whole.
 */
const PRICE = 3_330; // $3.33 CPM
const TZ = 10; // UTC+10
const midnight = Date.parse('2026-03-10T00:00:00Z') - TZ * HOUR_MS;
const created = midnight + 16 * HOUR_MS;

const campaign = (over: Partial<CampaignLimits> = {}): CampaignLimits => ({
  id: 1,
  timezone: TZ,
  dailyBudget: 240 * PRICE,
  totalBudget: 'unlimited',
  pacing: 'even',
  frequencyCap: null,
  createdAtMinute: created / MINUTE_MS,
  ...over,
});
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

forEachDeliveryEngine((t) => {
  describe('even pacing of a campaign created mid-day', () => {
    it('created at 16:00, spends its whole daily budget by midnight, at most 2x the even rate of its 8 hours; the next day is paced whole', async () => {
      const clock = testClock(created);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      // 240 impressions a day over the 8 hours left: 30 an hour at its even rate; traffic every 15 s (240 an hour)
      const c = campaign({ id: 70 });
      expect(counters.pacingState(c, clock.now())).toMatchObject({
        targetSoFar: 0,
        status: 'on_pace',
        evenPerHour: 30 * PRICE,
        allowedPerHour: 30 * PRICE,
      });
      const perHour = new Array<number>(9).fill(0);
      for (let now = created; now < midnight + DAY_MS + HOUR_MS; now = clock.advance(15_000)) {
        if ((await serveDecision(counters, { campaign: c, priceMicros: PRICE }, now)) === null)
          perHour[Math.floor((now - created) / HOUR_MS)]!++;
        if (t.engine === 'redis') await counters.flush();
        if (now === created + 4 * HOUR_MS) {
          // 20:00: on the line from 16:00 (half the budget), as the console shows it too
          await counters.flush();
          const engine = counters.pacingState(c, now);
          expect(engine.targetSoFar).toBe(120 * PRICE);
          expect(engine.status).toBe('on_pace');
          const [spend] = await counters.readCampaignSpend([c], now);
          const console = campaignPacing(
            {
              id: c.id,
              status: 1,
              archived: false,
              startDate: '2026-03-10',
              endDate: null,
              dailyBudget: c.dailyBudget,
              totalBudget: 'unlimited',
              pacing: 'even',
              timezone: TZ,
              createdAtMinute: c.createdAtMinute,
            },
            spend!,
            now,
          );
          expect(console).toMatchObject({
            spentToday: engine.spentToday,
            targetSoFar: engine.targetSoFar,
            allowedPerHour: engine.allowedPerHour,
            state: 'on_pace',
          });
        }
      }
      // 16:00-24:00: about 30 an hour, never over 2x (60) plus the bucket's burst; the whole budget by midnight
      for (const h of perHour.slice(0, 8)) {
        expect(h).toBeGreaterThanOrEqual(27);
        expect(h).toBeLessThanOrEqual(34);
      }
      expect(sum(perHour.slice(0, 8))).toBeGreaterThanOrEqual(236);
      expect(sum(perHour.slice(0, 8))).toBeLessThanOrEqual(240);
      // the next day is paced whole: about 10 in its first hour
      expect(perHour[8]).toBeGreaterThanOrEqual(8);
      expect(perHour[8]).toBeLessThanOrEqual(12);
      await counters.flush();
      expect(counters.pacingState(c, clock.now())).toMatchObject({ evenPerHour: 10 * PRICE });
    });

    it('created before the day (or not said), is paced over the whole day as before', async () => {
      const clock = testClock(created);
      const counters = await t.deployment().open({ clock: clock.now, timers: false });
      const before = campaign({ id: 71, createdAtMinute: (midnight - 3 * HOUR_MS) / MINUTE_MS });
      const unknown = campaign({ id: 72, createdAtMinute: undefined });
      for (const c of [before, unknown]) {
        expect(counters.pacingState(c, clock.now())).toMatchObject({
          targetSoFar: 160 * PRICE,
          status: 'behind',
          evenPerHour: 10 * PRICE,
          allowedPerHour: 20 * PRICE,
        });
      }
      // behind from 16:00: held at 2x daily/24 h, 20 an hour
      const served = [0, 0];
      for (let now = created; now < created + HOUR_MS; now = clock.advance(15_000)) {
        for (const [i, c] of [before, unknown].entries())
          if ((await serveDecision(counters, { campaign: c, priceMicros: PRICE }, now)) === null) served[i]!++;
        if (t.engine === 'redis') await counters.flush();
      }
      for (const n of served) {
        expect(n).toBeGreaterThanOrEqual(18);
        expect(n).toBeLessThanOrEqual(22);
      }
    });
  });
});
