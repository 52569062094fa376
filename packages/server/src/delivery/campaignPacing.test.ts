import { describe, expect, it } from 'vitest';
import { campaignPacing, type PacedCampaign } from './campaignPacing.js';
import { HOUR_MS, MINUTE_MS } from './pacing.js';

/** The console's pacing state on a simulated clock: 2026-03-10 in a tenant at UTC+3. */
const TZ = 3;
const dayStart = Date.UTC(2026, 2, 10) - TZ * HOUR_MS;
const at = (hours: number) => dayStart + hours * HOUR_MS;
const BUDGET = 24_000_000; // $24 a day: $1 an hour at even pace

const campaign = (over: Partial<PacedCampaign> = {}): PacedCampaign => ({
  id: 7,
  status: 1,
  archived: false,
  startDate: '2026-03-01',
  endDate: null,
  dailyBudget: BUDGET,
  totalBudget: 'unlimited',
  pacing: 'even',
  timezone: TZ,
  ...over,
});
/** Spend of `perHour` in each hour before `hours` (and the current hour so far). */
const spendOf = (hours: number, perHour: number, totalSpent: number | null = null) => {
  const hourly = Array.from({ length: 24 }, (_, h) =>
    h < Math.floor(hours) ? perHour : h === Math.floor(hours) ? Math.round(perHour * (hours % 1)) : 0,
  );
  return { spentToday: hourly.reduce((a, b) => a + b, 0), hourly, totalSpent };
};

describe('campaignPacing', () => {
  it('is on pace at the even rate, with the target, the projection and the even line in the tenant day', () => {
    const p = campaignPacing(campaign(), spendOf(12.5, 1_000_000), at(12.5));
    expect(p).toMatchObject({
      day: '2026-03-10',
      hour: 12,
      spentToday: 12_500_000,
      targetSoFar: 12_500_000,
      projected: BUDGET,
      allowedPerHour: 1_000_000,
      state: 'on_pace',
    });
    expect(p.evenByHour![0]).toBe(1_000_000);
    expect(p.evenByHour![23]).toBe(BUDGET);
    expect(p.hourly[12]).toBe(500_000);
  });

  it('says why it is on pace in numbers: the share of the day budget spent against the share of the day gone', () => {
    expect(campaignPacing(campaign(), spendOf(12.5, 1_000_000), at(12.5)).reason).toBe(
      "52% of today's $24.00 spent, 52% of the day gone (within 5 points)",
    );
    // 12% of a $500 day spent at 11% of the day: on pace, and the reason says so with both numbers
    const hourly = Array.from({ length: 24 }, (_, h) => (h < 3 ? 20_000_000 : 0));
    for (const pacing of ['even', 'asap'] as const) {
      const p = campaignPacing(
        campaign({ dailyBudget: 500_000_000, pacing }),
        { spentToday: 60_000_000, hourly, totalSpent: null },
        at(2.64),
      );
      expect(p.state, pacing).toBe('on_pace');
      expect(p.reason, pacing).toBe("12% of today's $500.00 spent, 11% of the day gone (within 5 points)");
    }
    expect(campaignPacing(campaign(), spendOf(12, 500_000), at(12.25)).reason).toBe(
      "25% of today's $24.00 spent, 51% of the day gone (more than 5 points behind)",
    );
    expect(campaignPacing(campaign(), spendOf(6, 2_000_000), at(6.5)).reason).toBe(
      "50% of today's $24.00 spent, 27% of the day gone (more than 5 points ahead)",
    );
  });

  it('is behind after slow hours and catches up at most at twice the even rate', () => {
    const p = campaignPacing(campaign(), spendOf(12, 500_000), at(12.25));
    expect(p.state).toBe('behind');
    expect(p.targetSoFar).toBe(12_250_000);
    expect(p.allowedPerHour).toBe(2_000_000);
    expect(p.projected).toBeLessThan(BUDGET);
  });

  it('is ahead when the spend runs over the even line, and capped once the day or the total is spent', () => {
    expect(campaignPacing(campaign(), spendOf(6, 2_000_000), at(6.5)).state).toBe('ahead');
    expect(campaignPacing(campaign(), spendOf(12, 2_000_000), at(12.5))).toMatchObject({
      state: 'capped',
      reason: "Today's budget spent",
    });
    expect(
      campaignPacing(campaign({ totalBudget: 5_000_000 }), spendOf(3, 1_000_000, 5_000_000), at(3.5)),
    ).toMatchObject({ state: 'capped', reason: 'Total budget spent' });
  });

  it('is not delivering when paused, archived, outside its flight or without spend in the last hour', () => {
    const spend = spendOf(10, 1_000_000);
    expect(campaignPacing(campaign({ status: 0 }), spend, at(10.5)).reason).toBe('Paused');
    expect(campaignPacing(campaign({ archived: true }), spend, at(10.5)).reason).toBe('Archived');
    expect(campaignPacing(campaign({ startDate: '2026-03-11' }), spend, at(10.5)).reason).toBe('Starts on 2026-03-11');
    expect(campaignPacing(campaign({ endDate: '2026-03-09' }), spend, at(10.5)).reason).toBe('Ended on 2026-03-09');
    // the tenant's day: at 23:30 UTC on the 9th it is already the 10th in UTC+3
    expect(
      campaignPacing(campaign({ startDate: '2026-03-10' }), spendOf(0.5, 0), Date.UTC(2026, 2, 9, 21, 30)).reason,
    ).toBe('No spend yet today');
    const quiet = spendOf(8, 1_000_000);
    expect(campaignPacing(campaign(), quiet, at(10.5))).toMatchObject({
      state: 'not_delivering',
      reason: 'No spend in the last hour',
    });
  });

  it('says a campaign created within the hour is new, not "No spend" (the console warns about that one)', () => {
    const fresh = campaign({ createdAtMinute: at(10) / MINUTE_MS });
    const none = spendOf(0, 0);
    expect(campaignPacing(fresh, none, at(10) + 20_000)).toMatchObject({
      state: 'not_delivering',
      reason: 'Created just now: no spend yet',
    });
    expect(campaignPacing(fresh, none, at(10.5))).toMatchObject({
      state: 'not_delivering',
      reason: 'Created 30 min ago: no spend yet',
    });
    expect(campaignPacing(fresh, none, at(11.5)).reason).toBe('No spend yet today');
  });

  it('says a quiet campaign that spent earlier today is quiet, never "no spend yet", even when just created', () => {
    // today's spend without its hours, as raised from the stats store at start
    const earlier = { spentToday: 2_000_000, hourly: new Array<number>(24).fill(0), totalSpent: null };
    const fresh = campaign({ createdAtMinute: at(10) / MINUTE_MS });
    expect(campaignPacing(fresh, earlier, at(10.5))).toMatchObject({
      state: 'not_delivering',
      reason: 'No spend in the last hour',
      spentToday: 2_000_000,
    });
  });

  it('a campaign created today at 16:00 is on pace from its creation, its even line from then to midnight', () => {
    const created = campaign({ startDate: '2026-03-10', createdAtMinute: at(16) / MINUTE_MS });
    const none = { spentToday: 0, hourly: new Array<number>(24).fill(0), totalSpent: null };
    const first = campaignPacing(created, none, at(16));
    // nothing is due yet: not behind (no spend yet, so not delivering), the budget over the 8 hours left
    expect(first).toMatchObject({ targetSoFar: 0, allowedPerHour: BUDGET / 8, state: 'not_delivering' });
    expect(first.evenByHour!.slice(0, 16)).toEqual(new Array<number>(16).fill(0));
    expect(first.evenByHour![16]).toBe(BUDGET / 8);
    expect(first.evenByHour![19]).toBe(BUDGET / 2);
    expect(first.evenByHour![23]).toBe(BUDGET);
    // ten minutes in, on the line from 16:00: on pace (over the whole day it would be $16 behind)
    const hourly = new Array<number>(24).fill(0);
    hourly[16] = BUDGET / 48;
    const tenMinutes = campaignPacing(created, { spentToday: BUDGET / 48, hourly, totalSpent: null }, at(16 + 1 / 6));
    expect(tenMinutes).toMatchObject({ targetSoFar: BUDGET / 48, state: 'on_pace', allowedPerHour: BUDGET / 8 });
    // the next day: the whole day again
    const next = campaignPacing(created, spendOf(12.5, 1_000_000), at(24 + 12.5));
    expect(next).toMatchObject({ targetSoFar: 12_500_000, allowedPerHour: 1_000_000, state: 'on_pace' });
    expect(next.evenByHour![0]).toBe(1_000_000);
  });

  it('a campaign created before the day is paced over the whole day', () => {
    const p = campaignPacing(
      campaign({ createdAtMinute: (dayStart - 3 * HOUR_MS) / MINUTE_MS }),
      spendOf(12, 500_000),
      at(12.25),
    );
    expect(p).toMatchObject({ state: 'behind', targetSoFar: 12_250_000, allowedPerHour: 2_000_000 });
  });

  it('asap has the whole budget as its target; no daily budget means no target and no even line', () => {
    expect(campaignPacing(campaign({ pacing: 'asap' }), spendOf(2, 3_000_000), at(2.5))).toMatchObject({
      targetSoFar: BUDGET,
      allowedPerHour: null,
      state: 'ahead',
    });
    expect(campaignPacing(campaign({ dailyBudget: 'unlimited' }), spendOf(2, 3_000_000), at(2.5))).toMatchObject({
      targetSoFar: null,
      evenByHour: null,
      state: 'on_pace',
    });
  });
});
