import { describe, expect, it } from 'vitest';
import { DATE_PRESETS, isDatePreset, PRESET_LABELS, presetRange, withPresetDates } from './datePresets.js';
import { ReportRequest } from './report.js';

const at = (iso: string) => Date.parse(iso);
const range = (startDate: string, endDate: string) => ({ startDate, endDate });

describe('presetRange', () => {
  it('covers each preset on an ordinary day in UTC', () => {
    const now = at('2026-11-23T12:00:00Z');
    expect(presetRange('today', 0, now)).toEqual(range('2026-11-23', '2026-11-23'));
    expect(presetRange('yesterday', 0, now)).toEqual(range('2026-11-22', '2026-11-22'));
    expect(presetRange('last7', 0, now)).toEqual(range('2026-11-17', '2026-11-23'));
    expect(presetRange('last30', 0, now)).toEqual(range('2026-10-25', '2026-11-23'));
    expect(presetRange('thisMonth', 0, now)).toEqual(range('2026-11-01', '2026-11-23'));
    expect(presetRange('lastMonth', 0, now)).toEqual(range('2026-10-01', '2026-10-31'));
  });

  it('on the first of a month: yesterday and last month are the month before, month to date is one day', () => {
    const now = at('2026-03-01T00:00:00Z');
    expect(presetRange('today', 0, now)).toEqual(range('2026-03-01', '2026-03-01'));
    expect(presetRange('yesterday', 0, now)).toEqual(range('2026-02-28', '2026-02-28'));
    expect(presetRange('thisMonth', 0, now)).toEqual(range('2026-03-01', '2026-03-01'));
    expect(presetRange('lastMonth', 0, now)).toEqual(range('2026-02-01', '2026-02-28'));
    expect(presetRange('last7', 0, now)).toEqual(range('2026-02-23', '2026-03-01'));
    expect(presetRange('last30', 0, now)).toEqual(range('2026-01-31', '2026-03-01'));
  });

  it('knows leap February and months of 30 and 31 days', () => {
    expect(presetRange('lastMonth', 0, at('2028-03-15T10:00:00Z'))).toEqual(range('2028-02-01', '2028-02-29'));
    expect(presetRange('yesterday', 0, at('2028-03-01T10:00:00Z'))).toEqual(range('2028-02-29', '2028-02-29'));
    expect(presetRange('lastMonth', 0, at('2026-05-31T23:59:59Z'))).toEqual(range('2026-04-01', '2026-04-30'));
    expect(presetRange('lastMonth', 0, at('2026-07-01T00:00:00Z'))).toEqual(range('2026-06-01', '2026-06-30'));
    expect(presetRange('thisMonth', 0, at('2026-01-31T23:59:59Z'))).toEqual(range('2026-01-01', '2026-01-31'));
  });

  it('crosses the year end', () => {
    const newYear = at('2027-01-01T08:00:00Z');
    expect(presetRange('yesterday', 0, newYear)).toEqual(range('2026-12-31', '2026-12-31'));
    expect(presetRange('lastMonth', 0, newYear)).toEqual(range('2026-12-01', '2026-12-31'));
    expect(presetRange('last7', 0, newYear)).toEqual(range('2026-12-26', '2027-01-01'));
    expect(presetRange('last30', 0, newYear)).toEqual(range('2026-12-03', '2027-01-01'));
    expect(presetRange('thisMonth', 0, newYear)).toEqual(range('2027-01-01', '2027-01-01'));
  });

  it('reads today in the time zone east of UTC: already the next day', () => {
    // 2026-12-31 22:30 UTC is 2027-01-01 00:30 at UTC+2 and 10:30 at UTC+12
    const now = at('2026-12-31T22:30:00Z');
    expect(presetRange('today', 2, now)).toEqual(range('2027-01-01', '2027-01-01'));
    expect(presetRange('yesterday', 2, now)).toEqual(range('2026-12-31', '2026-12-31'));
    expect(presetRange('lastMonth', 2, now)).toEqual(range('2026-12-01', '2026-12-31'));
    expect(presetRange('thisMonth', 12, now)).toEqual(range('2027-01-01', '2027-01-01'));
    // one hour earlier it is still the old year at UTC+1
    expect(presetRange('today', 1, at('2026-12-31T22:59:59Z'))).toEqual(range('2026-12-31', '2026-12-31'));
    expect(presetRange('today', 1, at('2026-12-31T23:00:00Z'))).toEqual(range('2027-01-01', '2027-01-01'));
  });

  it('reads today in the time zone west of UTC: still the day before', () => {
    const now = at('2026-03-01T03:00:00Z');
    expect(presetRange('today', -5, now)).toEqual(range('2026-02-28', '2026-02-28'));
    expect(presetRange('yesterday', -5, now)).toEqual(range('2026-02-27', '2026-02-27'));
    expect(presetRange('thisMonth', -5, now)).toEqual(range('2026-02-01', '2026-02-28'));
    expect(presetRange('lastMonth', -5, now)).toEqual(range('2026-01-01', '2026-01-31'));
    expect(presetRange('lastMonth', -12, at('2027-01-01T11:59:59Z'))).toEqual(range('2026-11-01', '2026-11-30'));
    expect(presetRange('lastMonth', -12, at('2027-01-01T12:00:00Z'))).toEqual(range('2026-12-01', '2026-12-31'));
  });

  it('has a label for every preset and knows its names', () => {
    for (const p of DATE_PRESETS) {
      expect(PRESET_LABELS[p]).toBeTruthy();
      expect(isDatePreset(p)).toBe(true);
    }
    expect(isDatePreset('lastYear')).toBe(false);
    expect(isDatePreset(undefined)).toBe(false);
  });
});

describe('withPresetDates', () => {
  const base = { startDate: '2026-01-05', endDate: '2026-01-05', timezone: -3, metrics: ['imps'] };
  it('replaces the dates of a rolling request with its preset range in its own time zone', () => {
    // 02:00 UTC on Nov 24 is still Nov 23 at UTC-3
    expect(withPresetDates({ ...base, datePreset: 'yesterday' as const }, at('2026-11-24T02:00:00Z'))).toEqual({
      ...base,
      datePreset: 'yesterday',
      startDate: '2026-11-22',
      endDate: '2026-11-22',
    });
  });
  it('leaves a fixed request as it is', () => {
    expect(withPresetDates(base, at('2026-11-24T02:00:00Z'))).toBe(base);
  });
});

describe('ReportRequest datePreset', () => {
  it('accepts a preset with dates that disagree with it (the preset wins when it runs)', () => {
    const parsed = ReportRequest.parse({
      startDate: '2026-02-10',
      endDate: '2025-01-01',
      datePreset: 'last7',
      metrics: ['imps'],
    });
    expect(parsed.datePreset).toBe('last7');
  });
  it('still refuses fixed dates out of order and an unknown preset, naming the field', () => {
    const fixed = ReportRequest.safeParse({ startDate: '2026-02-10', endDate: '2026-02-01', metrics: ['imps'] });
    expect(fixed.success).toBe(false);
    expect(fixed.error?.issues[0]?.path).toEqual(['endDate']);
    const unknown = ReportRequest.safeParse({
      startDate: '2026-02-10',
      endDate: '2026-02-10',
      datePreset: 'lastYear',
      metrics: ['imps'],
    });
    expect(unknown.success).toBe(false);
    expect(unknown.error?.issues[0]?.path).toEqual(['datePreset']);
  });
  it('still needs real dates beside a preset', () => {
    expect(
      ReportRequest.safeParse({ startDate: 'soon', endDate: '2026-02-10', datePreset: 'today', metrics: ['imps'] })
        .success,
    ).toBe(false);
  });
});
