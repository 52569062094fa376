import { describe, expect, it } from 'vitest';
import {
  comparisonOf,
  detailOf,
  judge,
  measurable,
  readingOf,
  reportMetricsOf,
  spanText,
  windowOf,
} from './conditions.js';

const at = (iso: string) => Date.parse(iso);

describe('alert windows', () => {
  it('measures the last whole UTC hour before the check, or the 24 whole hours before it', () => {
    const now = at('2026-11-28T14:37:12Z');
    expect(windowOf(now, 'hour')).toEqual({ from: at('2026-11-28T13:00:00Z'), to: at('2026-11-28T14:00:00Z') });
    expect(windowOf(now, 'day')).toEqual({ from: at('2026-11-27T14:00:00Z'), to: at('2026-11-28T14:00:00Z') });
    // on the hour, the hour that just ended
    expect(windowOf(at('2026-11-28T14:00:00Z'), 'hour').from).toBe(at('2026-11-28T13:00:00Z'));
  });

  it('compares with the window just before, or the same hours a week earlier', () => {
    const hour = windowOf(at('2026-11-28T14:37:00Z'), 'hour');
    expect(comparisonOf(hour, 'previous')).toEqual({
      from: at('2026-11-28T12:00:00Z'),
      to: at('2026-11-28T13:00:00Z'),
    });
    expect(comparisonOf(hour, 'lastWeek')).toEqual({
      from: at('2026-11-21T13:00:00Z'),
      to: at('2026-11-21T14:00:00Z'),
    });
    const day = windowOf(at('2026-11-28T14:37:00Z'), 'day');
    expect(comparisonOf(day, 'previous')).toEqual({ from: at('2026-11-26T14:00:00Z'), to: at('2026-11-27T14:00:00Z') });
    expect(comparisonOf(day, 'lastWeek')).toEqual({ from: at('2026-11-20T14:00:00Z'), to: at('2026-11-21T14:00:00Z') });
  });

  it('names a window in words', () => {
    expect(spanText(windowOf(at('2026-11-28T14:37:00Z'), 'hour'))).toBe('2026-11-28 13:00 to 14:00 UTC');
    expect(spanText(windowOf(at('2026-11-28T14:37:00Z'), 'day'))).toBe('2026-11-27 14:00 to 2026-11-28 14:00 UTC');
  });
});

describe('alert readings', () => {
  it('reads counts as they are and shares over their denominator', () => {
    expect(reportMetricsOf('timeoutShare')).toEqual(['timeouts', 'demandCalls']);
    expect(reportMetricsOf('reqs')).toEqual(['reqs']);
    expect(readingOf('timeoutShare', { timeouts: 3, demandCalls: 12 })).toEqual({ value: 25, volume: 12 });
    expect(readingOf('fill', { imps: 30, opps: 120 })).toEqual({ value: 25, volume: 120 });
    expect(readingOf('errorShare', { errors: 1, reqs: 8 })).toEqual({ value: 12.5, volume: 8 });
    // eCPM in whole micro-dollars: $2.50 of revenue over 3 impressions is $833.333333 CPM
    expect(readingOf('ecpm', { revenue: 2_500_000, imps: 3 })).toEqual({ value: 833_333_333, volume: 3 });
    expect(readingOf('reqs', { reqs: 41 })).toEqual({ value: 41, volume: 41 });
    expect(readingOf('fill', {})).toEqual({ value: 0, volume: 0 });
  });

  it('judges a share only over enough volume, a count always', () => {
    expect(measurable('fill', 99, 100)).toBe(false);
    expect(measurable('fill', 100, 100)).toBe(true);
    expect(measurable('fill', 0, 0)).toBe(false);
    expect(measurable('reqs', 0, 1000)).toBe(true);
  });
});

describe('alert conditions', () => {
  it('fires strictly below or above the value', () => {
    expect(judge({ op: 'above', value: 20 }, 20, null)).toEqual({ firing: false, threshold: 20 });
    expect(judge({ op: 'above', value: 20 }, 20.01, null)).toEqual({ firing: true, threshold: 20 });
    expect(judge({ op: 'below', value: 1000 }, 999, null)).toEqual({ firing: true, threshold: 1000 });
    expect(judge({ op: 'below', value: 1000 }, 1000, null)).toEqual({ firing: false, threshold: 1000 });
  });

  it('fires on a drop of at least the percent, never against nothing', () => {
    const half = { op: 'drop', percent: 50, against: 'previous' } as const;
    expect(judge(half, 20, 40)).toEqual({ firing: true, threshold: 20 });
    expect(judge(half, 20.5, 40)).toEqual({ firing: false, threshold: 20 });
    expect(judge(half, 0, 0)).toEqual({ firing: false, threshold: 0 });
    expect(judge(half, 0, null)).toEqual({ firing: false, threshold: 0 });
    expect(judge({ op: 'drop', percent: 30, against: 'lastWeek' }, 69, 100).firing).toBe(true);
  });

  it('says the numbers in one sentence', () => {
    const window = windowOf(at('2026-11-28T14:37:00Z'), 'hour');
    expect(
      detailOf({
        metric: 'timeoutShare',
        condition: { op: 'above', value: 20 },
        value: 100,
        volume: 5,
        threshold: 20,
        comparison: null,
        window,
      }),
    ).toBe('Timeouts share 100.00% over 5 demand calls in 2026-11-28 13:00 to 14:00 UTC (alert above 20.00%)');
    expect(
      detailOf({
        metric: 'fill',
        condition: { op: 'drop', percent: 50, against: 'previous' },
        value: 10,
        volume: 200,
        threshold: 20,
        comparison: 40,
        window,
      }),
    ).toBe(
      'Fill rate 10.00% over 200 opportunities in 2026-11-28 13:00 to 14:00 UTC, down 75% from 40.00% the window before (alert at a drop of 50%: 20.00% or less)',
    );
  });
});
