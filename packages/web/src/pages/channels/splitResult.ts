import { type ReportRequestInput, type ReportRow } from '@adplane/shared';

/**
 * The A/B result of a split channel (docs/reports.md, "A/B arms compared"): each arm's requests,
 * impressions, revenue and revenue per 1,000 requests with a 95 % confidence interval, read from one
 * report of the channel by hour and arm.
 *
 * Revenue per request is a ratio estimate (R = total revenue / total requests), and the requests of
 * one hour are not independent draws, so the interval takes the hours as the samples and uses the
 * delta method (the linearised variance of a ratio): with x_i the requests and y_i the revenue of
 * hour i, n hours, X = sum x_i,
 *
 *   Var(R) = n / (n - 1) * sum (y_i - R x_i)^2 / X^2
 *
 * and the interval is R +/- 1.96 sqrt(Var(R)), per 1,000 requests, cut at 0 below. Hours where an
 * arm served revenue but received no request (an impression counted in the hour after its request)
 * are samples too. Two arms differ significantly when their intervals do not overlap. Over a range
 * longer than HOURLY_DAYS the days are the samples instead (the report's rows stay within its limit).
 */
type SplitArm = 'A' | 'B';
const SPLIT_ARMS: readonly SplitArm[] = ['A', 'B'];

/** What an arm needs before it is compared: this many requests, over this many hours (samples). */
export const MIN_REQUESTS = 1_000;
export const MIN_HOURS = 6;
const Z95 = 1.96;

/** One hour of one arm: its requests and its revenue (micro-dollars). */
export interface HourSample {
  requests: number;
  revenue: number;
}

/** Revenue per 1,000 requests (micro-dollars) of `samples` and its 95 % interval; null interval with fewer than 2 hours or no request. */
export function revenuePerThousand(samples: readonly HourSample[]): {
  value: number | null;
  low: number | null;
  high: number | null;
} {
  const requests = samples.reduce((n, s) => n + s.requests, 0);
  const revenue = samples.reduce((n, s) => n + s.revenue, 0);
  if (requests === 0) return { value: null, low: null, high: null };
  const ratio = revenue / requests;
  const value = ratio * 1000;
  const n = samples.length;
  if (n < 2) return { value, low: null, high: null };
  const squares = samples.reduce((sum, s) => sum + (s.revenue - ratio * s.requests) ** 2, 0);
  const se = (Math.sqrt((n / (n - 1)) * squares) / requests) * 1000;
  return { value, low: Math.max(0, value - Z95 * se), high: value + Z95 * se };
}

export interface ArmResult {
  arm: SplitArm;
  requests: number;
  impressions: number;
  /** Micro-dollars. */
  revenue: number;
  /** Hours with requests or revenue: the samples of the interval. */
  hours: number;
  /** Revenue per 1,000 requests and its 95 % interval, micro-dollars (null: not estimable). */
  rpm: number | null;
  low: number | null;
  high: number | null;
  /** Whether the arm has MIN_REQUESTS over MIN_HOURS. */
  enough: boolean;
}

export type SplitVerdict =
  | { kind: 'none' }
  | { kind: 'too_few'; short: SplitArm[] }
  | { kind: 'not_significant' }
  | { kind: 'significant'; better: SplitArm; liftPercent: number };

export interface SplitResult {
  arms: ArmResult[];
  /** The channel's requests without an arm in the range: served while it had no split. */
  unsplitRequests: number;
  verdict: SplitVerdict;
}

/**
 * The longest range read by hour: its rows (an hour by up to three arm values: A, B and none) stay
 * within a report's 10,000 rows. A longer range takes its days as the samples.
 */
const HOURLY_DAYS = 120;

/** The report the result is read from: the channel by hour (by day past HOURLY_DAYS) and arm, requests, impressions and revenue. */
export function splitReport(
  channelId: number,
  range: { startDate: string; endDate: string },
  timezone: number,
): ReportRequestInput {
  const days = (Date.parse(`${range.endDate}T00:00:00Z`) - Date.parse(`${range.startDate}T00:00:00Z`)) / 86_400_000 + 1;
  const sample = days > HOURLY_DAYS ? 'date' : 'hour';
  return {
    ...range,
    timezone,
    dimensions: [sample, 'arm'],
    metrics: ['reqs', 'imps', 'revenue'],
    filters: { channel: [channelId] },
    sort: { by: sample, order: 'asc' },
  };
}

/** Each arm's numbers, interval and the comparison, from the rows of splitReport. */
export function splitResultOf(rows: readonly ReportRow[]): SplitResult {
  const samples: Record<SplitArm, HourSample[]> = { A: [], B: [] };
  const imps: Record<SplitArm, number> = { A: 0, B: 0 };
  let unsplitRequests = 0;
  for (const row of rows) {
    if (row.total) continue;
    const requests = Number(row.reqs ?? 0);
    const revenue = Number(row.revenue ?? 0);
    const arm = row.arm;
    if (arm !== 'A' && arm !== 'B') {
      unsplitRequests += requests;
      continue;
    }
    if (requests === 0 && revenue === 0 && Number(row.imps ?? 0) === 0) continue;
    samples[arm].push({ requests, revenue });
    imps[arm] += Number(row.imps ?? 0);
  }
  const arms = SPLIT_ARMS.map((arm): ArmResult => {
    const requests = samples[arm].reduce((n, s) => n + s.requests, 0);
    const { value, low, high } = revenuePerThousand(samples[arm]);
    return {
      arm,
      requests,
      impressions: imps[arm],
      revenue: samples[arm].reduce((n, s) => n + s.revenue, 0),
      hours: samples[arm].length,
      rpm: value,
      low,
      high,
      enough: requests >= MIN_REQUESTS && samples[arm].length >= MIN_HOURS,
    };
  });
  return { arms, unsplitRequests, verdict: verdictOf(arms) };
}

function verdictOf(arms: readonly ArmResult[]): SplitVerdict {
  if (arms.every((a) => a.requests === 0)) return { kind: 'none' };
  const short = arms.filter((a) => !a.enough).map((a) => a.arm);
  if (short.length > 0) return { kind: 'too_few', short };
  const [a, b] = arms as [ArmResult, ArmResult];
  if (a.low === null || b.low === null || a.high === null || b.high === null) return { kind: 'too_few', short: [] };
  if (a.low <= b.high && b.low <= a.high) return { kind: 'not_significant' };
  const better = b.rpm! > a.rpm! ? 'B' : 'A';
  const [winner, loser] = better === 'B' ? [b, a] : [a, b];
  const liftPercent = loser.rpm! > 0 ? ((winner.rpm! - loser.rpm!) / loser.rpm!) * 100 : Infinity;
  return { kind: 'significant', better, liftPercent };
}
