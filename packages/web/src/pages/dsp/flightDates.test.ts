import { describe, expect, it } from 'vitest';
import dayjs from 'dayjs';
import { dateFromIso, flightLabel, isoFromDate } from './flightDates.js';

describe('flight dates', () => {
  it('turns YYYY-MM-DD into a picker value and back without shifting the day', () => {
    const d = dateFromIso('2026-03-01');
    expect(d?.format('YYYY-MM-DD')).toBe('2026-03-01');
    expect(isoFromDate(d)).toBe('2026-03-01');
    expect(isoFromDate(dayjs('2026-12-31'))).toBe('2026-12-31');
  });

  it('reads empty or malformed values as no date', () => {
    expect(dateFromIso(null)).toBeNull();
    expect(dateFromIso('')).toBeNull();
    expect(dateFromIso('01/03/2026')).toBeNull();
    expect(isoFromDate(null)).toBeNull();
    expect(isoFromDate(undefined)).toBeNull();
    expect(isoFromDate(dayjs('not a date'))).toBeNull();
  });

  it('labels a flight with or without its end', () => {
    expect(flightLabel('2026-03-01', '2026-04-30')).toBe('2026-03-01 – 2026-04-30');
    expect(flightLabel('2026-03-01', null)).toBe('2026-03-01 – no end');
    expect(flightLabel(null, '2026-04-30')).toBe('until 2026-04-30');
    expect(flightLabel(null, null)).toBe('Always on');
  });
});
