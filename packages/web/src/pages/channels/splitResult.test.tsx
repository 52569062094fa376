import '../../test/setup.js';
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { type ReportRow } from '@adplane/shared';
import { MIN_HOURS, revenuePerThousand, splitReport, splitResultOf } from './splitResult.js';
import { SplitResultView } from './SplitResult.js';

/** Rows of the split report (by hour and arm) for `arm`: one a sample, [requests, revenue in micro-dollars]. */
const rowsOf = (arm: string, samples: readonly [number, number][], from = 0): ReportRow[] =>
  samples.map(
    ([reqs, revenue], i) =>
      ({
        hour: `2026-11-0${1 + Math.floor((from + i) / 24)} ${String((from + i) % 24).padStart(2, '0')}:00`,
        arm,
        reqs,
        imps: Math.round(reqs / 10),
        revenue,
      }) as ReportRow,
  );
const TOTAL = { total: true, reqs: 0, imps: 0, revenue: 0 } as unknown as ReportRow;

describe('revenue per 1,000 requests and its 95% interval', () => {
  it('is the ratio of the sums, its interval by the delta method over the hours (a case worked by hand)', () => {
    // x = 1,000, 1,000, 2,000 requests; y = $2, $3, $4. R = $9 / 4,000 = 2,250 micros a request, $2.25 per 1,000.
    // residuals y - R x: -250,000, 750,000, -500,000; their squares sum to 8.75e11; n / (n - 1) = 1.5.
    // SE(R) = sqrt(1.5 x 8.75e11) / 4,000 = 286.41 micros a request: $0.28641 per 1,000.
    const r = revenuePerThousand([
      { requests: 1000, revenue: 2_000_000 },
      { requests: 1000, revenue: 3_000_000 },
      { requests: 2000, revenue: 4_000_000 },
    ]);
    expect(r.value).toBe(2_250_000);
    const se = 286_410.87;
    expect(r.low!).toBeCloseTo(2_250_000 - 1.96 * se, -1);
    expect(r.high!).toBeCloseTo(2_250_000 + 1.96 * se, -1);
    expect(r.low!).toBeCloseTo(1_688_635, -1);
    expect(r.high!).toBeCloseTo(2_811_365, -1);
  });

  it('has no interval from one hour, and no value without requests; is never below $0', () => {
    expect(revenuePerThousand([{ requests: 500, revenue: 1_000_000 }])).toEqual({
      value: 2_000_000,
      low: null,
      high: null,
    });
    expect(revenuePerThousand([])).toEqual({ value: null, low: null, high: null });
    // hours that vary a lot: the interval is cut at 0
    const wide = revenuePerThousand([
      { requests: 100, revenue: 0 },
      { requests: 100, revenue: 0 },
      { requests: 100, revenue: 3_000_000 },
    ]);
    expect(wide.low).toBe(0);
    expect(wide.high!).toBeGreaterThan(wide.value!);
  });
});

describe('the A/B result of a split channel', () => {
  const steady = (rpmUsd: number, hours: number): [number, number][] =>
    Array.from({ length: hours }, (_, i) => {
      const reqs = 1000 + (i % 3) * 100;
      return [reqs, Math.round(reqs * rpmUsd * 1000 * (1 + ((i % 2) - 0.5) * 0.02))];
    });

  it('asks the report for the channel by hour and arm, by day over a range too long for its rows', () => {
    expect(splitReport(7, { startDate: '2026-11-01', endDate: '2026-11-07' }, 2)).toMatchObject({
      dimensions: ['hour', 'arm'],
      metrics: ['reqs', 'imps', 'revenue'],
      filters: { channel: [7] },
      timezone: 2,
    });
    // 120 days of hours by three arm values fit in a report's 10,000 rows; 121 would not
    expect(splitReport(7, { startDate: '2026-01-01', endDate: '2026-04-30' }, 0).dimensions).toEqual(['hour', 'arm']);
    expect(splitReport(7, { startDate: '2026-01-01', endDate: '2026-05-01' }, 0).dimensions).toEqual(['date', 'arm']);
  });

  it('says which arm earns more when the intervals do not overlap', () => {
    const result = splitResultOf([...rowsOf('A', steady(2, 24)), ...rowsOf('B', steady(3, 24)), TOTAL]);
    expect(result.arms.map((a) => [a.arm, a.hours, a.enough])).toEqual([
      ['A', 24, true],
      ['B', 24, true],
    ]);
    expect(result.verdict).toMatchObject({ kind: 'significant', better: 'B' });
    render(<SplitResultView result={result} />);
    expect(screen.getByTestId('split-verdict').textContent).toMatch(
      /^Arm B earns more per 1,000 requests: \$3\.00 against \$2\.00 \(\+50\.\d%\), and the 95% intervals do not overlap\.$/,
    );
    expect(screen.getByTestId('split-arm-A').textContent).toContain('$2.00');
    expect(screen.getByTestId('split-interval-B').textContent).toMatch(/^\$2\.9\d – \$3\.0\d$/);
  });

  it('says plainly when the difference is not significant', () => {
    const noisy = (rpmUsd: number): [number, number][] =>
      Array.from({ length: 12 }, (_, i) => [1000, (i % 2 ? 0.2 : 1.8) * rpmUsd * 1_000_000]);
    const result = splitResultOf([...rowsOf('A', noisy(2)), ...rowsOf('B', noisy(2.2))]);
    expect(result.verdict).toEqual({ kind: 'not_significant' });
    render(<SplitResultView result={result} />);
    expect(screen.getByTestId('split-verdict').textContent).toMatch(/^Not significant: the 95% intervals overlap/);
  });

  it('says when an arm has too few requests, and leaves out the requests served without a split', () => {
    const result = splitResultOf([
      ...rowsOf('A', steady(2, 24)),
      ...rowsOf('B', [[300, 900_000]]),
      ...rowsOf('', [[5000, 9_000_000]]),
    ]);
    expect(result.verdict).toEqual({ kind: 'too_few', short: ['B'] });
    expect(result.unsplitRequests).toBe(5000);
    expect(result.arms[1]).toMatchObject({ requests: 300, hours: 1, rpm: 3_000_000, low: null, high: null });
    render(<SplitResultView result={result} />);
    expect(screen.getByTestId('split-verdict').textContent).toBe(
      `Too few requests to compare yet: each arm needs at least 1,000 requests over ${MIN_HOURS} hours (arm B has 300 requests over 1 hour).`,
    );
    // no interval from one hour: the grey em dash
    expect(screen.getByTestId('split-arm-B').querySelector('.empty-value')).not.toBeNull();
    expect(screen.getByTestId('split-result').textContent).toContain(
      '5,000 requests in these dates were served without a split',
    );
  });
});
