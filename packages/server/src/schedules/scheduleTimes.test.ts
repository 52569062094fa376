import { describe, expect, it } from 'vitest';
import { nextRunAfter, type ScheduleWhen } from './scheduleTimes.js';

const at = (iso: string) => Date.parse(iso);
const next = (when: Partial<ScheduleWhen>, after: string) =>
  new Date(
    nextRunAfter({ frequency: 'daily', hour: 6, weekday: null, monthDay: null, timeZone: 'UTC', ...when }, at(after)),
  ).toISOString();

describe('next run of a schedule', () => {
  it('runs daily at the local hour of its time zone', () => {
    expect(next({ hour: 6 }, '2026-11-28T05:59:59Z')).toBe('2026-11-28T06:00:00.000Z');
    expect(next({ hour: 6 }, '2026-11-28T06:00:00Z')).toBe('2026-11-29T06:00:00.000Z');
    // 06:00 in Tokyo (UTC+9) is 21:00 UTC the day before
    expect(next({ hour: 6, timeZone: 'Asia/Tokyo' }, '2026-11-28T12:00:00Z')).toBe('2026-11-28T21:00:00.000Z');
    // 06:00 in Los Angeles (UTC-8 in winter) is 14:00 UTC
    expect(next({ hour: 6, timeZone: 'America/Los_Angeles' }, '2026-11-28T15:00:00Z')).toBe('2026-11-29T14:00:00.000Z');
  });

  it('keeps the local hour across daylight saving time changes', () => {
    const berlin = { hour: 8, timeZone: 'Europe/Berlin' };
    // Berlin goes from UTC+1 to UTC+2 on 2026-03-29 at 02:00
    expect(next(berlin, '2026-03-28T08:00:00Z')).toBe('2026-03-29T06:00:00.000Z');
    expect(next(berlin, '2026-03-27T08:00:00Z')).toBe('2026-03-28T07:00:00.000Z');
    // and back on 2026-10-25 at 03:00
    expect(next(berlin, '2026-10-24T07:00:00Z')).toBe('2026-10-25T07:00:00.000Z');
    // 02:00 does not exist on 2026-03-29 in Berlin: it runs at 03:00 local, the same instant
    expect(next({ hour: 2, timeZone: 'Europe/Berlin' }, '2026-03-28T12:00:00Z')).toBe('2026-03-29T01:00:00.000Z');
    // 02:00 exists twice on 2026-10-25: it runs once, at the first
    const first = next({ hour: 2, timeZone: 'Europe/Berlin' }, '2026-10-24T12:00:00Z');
    expect(first).toBe('2026-10-25T00:00:00.000Z');
    expect(next({ hour: 2, timeZone: 'Europe/Berlin' }, first)).toBe('2026-10-26T01:00:00.000Z');
    // New York: 2026-03-08 forward, 2026-11-01 back
    expect(next({ hour: 9, timeZone: 'America/New_York' }, '2026-03-07T15:00:00Z')).toBe('2026-03-08T13:00:00.000Z');
    expect(next({ hour: 9, timeZone: 'America/New_York' }, '2026-10-31T15:00:00Z')).toBe('2026-11-01T14:00:00.000Z');
  });

  it('runs weekly on its weekday', () => {
    // 2026-11-28 is a Saturday; Monday (1) 07:00 in Kolkata (UTC+5:30) is 01:30 UTC
    expect(next({ frequency: 'weekly', weekday: 1, hour: 7, timeZone: 'Asia/Kolkata' }, '2026-11-28T00:00:00Z')).toBe(
      '2026-11-30T01:30:00.000Z',
    );
    expect(next({ frequency: 'weekly', weekday: 6, hour: 0 }, '2026-11-28T00:00:00Z')).toBe('2026-12-05T00:00:00.000Z');
  });

  it('runs monthly on its date, or the last day of a shorter month', () => {
    const m31 = { frequency: 'monthly' as const, monthDay: 31, hour: 23, timeZone: 'UTC' };
    expect(next(m31, '2026-01-31T23:00:00Z')).toBe('2026-02-28T23:00:00.000Z');
    expect(next(m31, '2026-02-28T23:00:00Z')).toBe('2026-03-31T23:00:00.000Z');
    expect(next(m31, '2026-03-31T23:00:00Z')).toBe('2026-04-30T23:00:00.000Z');
    expect(next({ ...m31, monthDay: 29 }, '2028-02-01T00:00:00Z')).toBe('2028-02-29T23:00:00.000Z');
    // the 1st at 00:00 in Auckland (UTC+13 in summer) is the day before in UTC
    expect(
      next({ frequency: 'monthly', monthDay: 1, hour: 0, timeZone: 'Pacific/Auckland' }, '2026-11-28T00:00:00Z'),
    ).toBe('2026-11-30T11:00:00.000Z');
  });
});
