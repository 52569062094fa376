import { describe, expect, it } from 'vitest';
import {
  allowedRate,
  CATCH_UP,
  createdAtMinute,
  DAY_MS,
  evenRate,
  HOUR_MS,
  lastHourRate,
  MINUTE_MS,
  pacingState,
  paceWindow,
  targetSoFar,
  tenantDay,
} from './pacing.js';
import { viewerKey } from './frequency.js';
import { qpsShare } from './sharedCounters.js';

const BUDGET = 24_000_000; // $24 a day: $1 an hour at the even rate

describe('tenantDay', () => {
  it("is the calendar day in the tenant's zone", () => {
    const at = Date.parse('2026-03-10T03:30:00Z');
    expect(tenantDay(at, 0)).toMatchObject({ date: '2026-03-10', hour: 3, start: Date.parse('2026-03-10T00:00:00Z') });
    expect(tenantDay(at, -5)).toMatchObject({
      date: '2026-03-09',
      hour: 22,
      start: Date.parse('2026-03-09T05:00:00Z'),
      end: Date.parse('2026-03-10T05:00:00Z'),
    });
    expect(tenantDay(at, 12)).toMatchObject({ date: '2026-03-10', hour: 15 });
    expect(tenantDay(Date.parse('2026-03-10T05:00:00Z'), -5)).toMatchObject({ date: '2026-03-10', hour: 0 });
  });
});

describe('even pacing', () => {
  const day = tenantDay(Date.parse('2026-03-10T00:00:00Z'), 0);
  const at = (h: number) => day.start + h * HOUR_MS;

  it('targets a straight line to the budget at midnight', () => {
    expect(targetSoFar(BUDGET, at(0), day)).toBe(0);
    expect(targetSoFar(BUDGET, at(6), day)).toBe(BUDGET / 4);
    expect(targetSoFar(BUDGET, at(24), day)).toBe(BUDGET);
  });

  it('on target, allows the even rate', () => {
    expect(allowedRate(BUDGET, BUDGET / 4, at(6), day) * HOUR_MS).toBeCloseTo(1_000_000, 0);
  });

  it('behind, catches up the shortfall over about an hour, never faster than 2x even', () => {
    // half an hour behind at 06:00: the rest over 18 hours, plus the $0.50 shortfall within the hour
    const halfHour = allowedRate(BUDGET, 5_500_000, at(6), day) * HOUR_MS;
    expect(halfHour).toBeCloseTo(18_500_000 / 18 + 500_000, 0);
    // an hour behind: over the ceiling, held at 2x even
    expect(allowedRate(BUDGET, 5_000_000, at(6), day) * HOUR_MS).toBeCloseTo(CATCH_UP * evenRate(BUDGET) * HOUR_MS, 0);
    // far behind: the ceiling
    expect(allowedRate(BUDGET, 0, at(12), day) * HOUR_MS).toBeCloseTo(2_000_000, 0);
    // late in the day the ceiling holds too: what cannot be caught up is not burst
    expect(allowedRate(BUDGET, BUDGET / 2, at(23), day) * HOUR_MS).toBeCloseTo(2_000_000, 0);
  });

  it('ahead, slows below even; spent, stops', () => {
    expect(allowedRate(BUDGET, BUDGET / 2, at(6), day) * HOUR_MS).toBeCloseTo(BUDGET / 2 / 18, 0);
    expect(allowedRate(BUDGET, BUDGET, at(6), day)).toBe(0);
  });
});

describe('the pace window: a campaign created mid-day (16:00 in UTC-5)', () => {
  const day = tenantDay(Date.parse('2026-03-10T12:00:00Z'), -5);
  const at = (h: number) => day.start + h * HOUR_MS;
  const created = at(16) / MINUTE_MS;
  const window = paceWindow(day, created);

  it('spreads its first day from its creation to midnight: half the budget by 20:00', () => {
    expect(window).toEqual({ start: at(16), end: day.end });
    expect(targetSoFar(BUDGET, at(10), window)).toBe(0);
    expect(targetSoFar(BUDGET, at(16), window)).toBe(0);
    expect(targetSoFar(BUDGET, at(20), window)).toBe(BUDGET / 2);
    expect(targetSoFar(BUDGET, at(24), window)).toBe(BUDGET);
  });

  it('at its creation may spend the budget over the 8 hours left, and catches up at most at 2x that', () => {
    // the whole day would allow only 2x daily/24 h ($2 an hour), and it would end the day at 20/24 of its budget
    expect(allowedRate(BUDGET, 0, at(16), window) * HOUR_MS).toBeCloseTo(BUDGET / 8, 0);
    expect(evenRate(BUDGET, window.end - window.start) * HOUR_MS).toBeCloseTo(BUDGET / 8, 6);
    // two hours without spend: $6 behind, held at the ceiling, 2 x $3 an hour
    expect(allowedRate(BUDGET, 0, at(18), window) * HOUR_MS).toBeCloseTo(CATCH_UP * (BUDGET / 8), 0);
    // on its line at 20:00: the window's even rate
    expect(allowedRate(BUDGET, BUDGET / 2, at(20), window) * HOUR_MS).toBeCloseTo(BUDGET / 8, 0);
  });

  it("is on pace at its creation, with the window's even rate", () => {
    const input = {
      campaignId: 1,
      pacing: 'even' as const,
      dailyBudget: BUDGET,
      timezone: -5,
      spentToday: 0,
      hourly: [],
      now: at(16),
    };
    expect(pacingState({ ...input, createdAtMinute: created })).toMatchObject({
      targetSoFar: 0,
      status: 'on_pace',
      evenPerHour: BUDGET / 8,
      allowedPerHour: BUDGET / 8,
    });
    // paced over the whole day it would be behind from its first minute
    expect(pacingState(input)).toMatchObject({
      targetSoFar: 16_000_000,
      status: 'behind',
      evenPerHour: 1_000_000,
      allowedPerHour: 2_000_000,
    });
  });

  it('takes the whole day on the days after, and when created before the day', () => {
    const next = tenantDay(day.end + HOUR_MS, -5);
    expect(paceWindow(next, created)).toEqual({ start: next.start, end: next.end });
    expect(paceWindow(day, (day.start - 8 * HOUR_MS) / MINUTE_MS)).toEqual({ start: day.start, end: day.end });
    expect(paceWindow(day)).toEqual({ start: day.start, end: day.end });
    const later = pacingState({
      campaignId: 1,
      pacing: 'even',
      dailyBudget: BUDGET,
      timezone: -5,
      spentToday: 0,
      hourly: [],
      now: next.start + 6 * HOUR_MS,
      createdAtMinute: created,
    });
    expect(later).toMatchObject({
      targetSoFar: BUDGET / 4,
      evenPerHour: 1_000_000,
      allowedPerHour: 2_000_000,
      status: 'behind',
    });
    expect(allowedRate(BUDGET, BUDGET / 4, next.start + 6 * HOUR_MS, paceWindow(next, created))).toBe(
      allowedRate(BUDGET, BUDGET / 4, next.start + 6 * HOUR_MS, next),
    );
  });

  it('takes the creation to the minute; a creation after the day leaves it a minute', () => {
    expect(createdAtMinute('2026-03-10T21:00:40.500Z')).toBe(at(16) / MINUTE_MS);
    expect(createdAtMinute(new Date(at(16) + 59_999))).toBe(at(16) / MINUTE_MS);
    expect(createdAtMinute('not a time')).toBeUndefined();
    expect(paceWindow(day, (day.end + DAY_MS) / MINUTE_MS)).toEqual({ start: day.end - MINUTE_MS, end: day.end });
  });
});

describe('pacingState', () => {
  const now = Date.parse('2026-03-10T10:30:00Z'); // 05:30 in UTC-5
  const hourly = [1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000, 500_000];

  it("shows spend, target and the projection at the last hour's rate", () => {
    const state = pacingState({
      campaignId: 1,
      pacing: 'even',
      dailyBudget: BUDGET,
      timezone: -5,
      spentToday: 5_500_000,
      hourly,
      now,
    });
    expect(state).toMatchObject({
      day: '2026-03-10',
      targetSoFar: 5_500_000,
      status: 'on_pace',
      evenPerHour: 1_000_000,
      allowedPerHour: 1_000_000,
    });
    // last 60 minutes: 0.5 of this hour + half of the previous hour = $1: 18.5 hours more
    expect(state.projected).toBe(5_500_000 + 18_500_000);
  });

  it('caps the projection at the budget, and says behind, ahead, spent, unlimited', () => {
    const base = {
      campaignId: 1,
      pacing: 'even' as const,
      dailyBudget: BUDGET,
      timezone: -5,
      hourly: [0, 0, 0, 0, 9_000_000, 9_000_000],
      now,
    };
    expect(pacingState({ ...base, spentToday: 20_000_000 })).toMatchObject({ status: 'ahead', projected: BUDGET });
    expect(pacingState({ ...base, spentToday: 1_000_000 }).status).toBe('behind');
    expect(pacingState({ ...base, spentToday: BUDGET }).status).toBe('spent');
    expect(pacingState({ ...base, dailyBudget: 'unlimited', spentToday: 1 })).toMatchObject({
      status: 'unlimited',
      targetSoFar: null,
      allowedPerHour: null,
    });
    expect(pacingState({ ...base, pacing: 'asap', spentToday: 1_000 })).toMatchObject({
      targetSoFar: BUDGET,
      allowedPerHour: null,
    });
  });

  it('reads the last hour within the day only', () => {
    const midnight = tenantDay(Date.parse('2026-03-10T05:30:00Z'), -5);
    expect(lastHourRate([600_000], Date.parse('2026-03-10T05:30:00Z'), midnight) * HOUR_MS).toBeCloseTo(1_200_000, 0);
  });
});

describe('viewers and QPS shares', () => {
  it('keys a viewer by device id, else by a hash of IP and user agent', () => {
    expect(viewerKey('ABCD-1234', '1.2.3.4', 'UA')).toBe('d:abcd-1234');
    expect(viewerKey('00000000-0000-0000-0000-000000000000', '1.2.3.4', 'UA')).toMatch(/^h:[\w-]{16}$/);
    expect(viewerKey('', '1.2.3.4', 'UA')).toBe(viewerKey(null, '1.2.3.4', 'UA'));
    expect(viewerKey('', '1.2.3.4', 'UA')).not.toBe(viewerKey('', '1.2.3.5', 'UA'));
    // adplane's id for the browser (the uids cookie) after the device id, before the address
    expect(viewerKey('', '1.2.3.4', 'UA', 'uid-1')).toBe('u:uid-1');
    expect(viewerKey('', '1.2.3.5', 'UA', 'uid-1')).toBe(viewerKey('', '1.2.3.4', 'Other UA', 'uid-1'));
    expect(viewerKey('IFA-1', '1.2.3.4', 'UA', 'uid-1')).toBe('d:ifa-1');
    expect(viewerKey('', '1.2.3.4', 'UA', 'x'.repeat(100))).toMatch(/^u:[\w-]{27}$/);
  });

  it('splits a QPS limit: spare shared equally, else in proportion to demand; shares add up to the limit', () => {
    expect(qpsShare(100, 10, 30, 2)).toBe(10 + 35);
    expect(qpsShare(100, 150, 200, 2)).toBe(75);
    expect(qpsShare(100, 50, 200, 2) + qpsShare(100, 150, 200, 2)).toBe(100);
  });
});
