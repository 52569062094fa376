import {
  ALERT_METRIC_LABELS,
  type AlertCondition,
  type AlertMetric,
  type AlertWindow,
  formatAlertValue,
  type MetricId,
} from '@adplane/shared';

/**
 * The arithmetic of alert rules (docs/alerts.md): which window a check measures, what it compares
 * with, how a metric's value comes from a report's sums and when a condition holds. Pure functions
 * of their inputs, so each is tested number by number.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;

/** A span of whole UTC hours: [from, to) in ms. */
export interface Span {
  from: number;
  to: number;
}

/** The window a check at `now` measures: the last whole UTC hour, or the 24 whole hours before the current one. */
export function windowOf(now: number, period: AlertWindow): Span {
  const to = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { from: to - (period === 'hour' ? HOUR_MS : DAY_MS), to };
}

/** What a drop compares the window with: the window just before it, or the same hours a week earlier. */
export function comparisonOf(window: Span, against: 'previous' | 'lastWeek'): Span {
  const back = against === 'previous' ? window.to - window.from : WEEK_MS;
  return { from: window.from - back, to: window.to - back };
}

/**
 * How an alert metric is read from report metrics: a count is one report metric; a share is one
 * over another (over the same sums, as the report's own ratios are), its denominator the volume
 * that `minVolume` asks of the window.
 */
type Reading =
  | { kind: 'count'; metric: MetricId }
  | { kind: 'ratio'; numerator: MetricId; denominator: MetricId; scale: number };

const READINGS: Readonly<Record<Exclude<AlertMetric, 'pace'>, Reading>> = {
  reqs: { kind: 'count', metric: 'reqs' },
  imps: { kind: 'count', metric: 'imps' },
  revenue: { kind: 'count', metric: 'revenue' },
  // imps / opps: a demand tag's row counts the times it was called (docs/reports.md, "Requests and fill by scope")
  fill: { kind: 'ratio', numerator: 'imps', denominator: 'opps', scale: 100 },
  timeoutShare: { kind: 'ratio', numerator: 'timeouts', denominator: 'demandCalls', scale: 100 },
  errorShare: { kind: 'ratio', numerator: 'errors', denominator: 'reqs', scale: 100 },
  ecpm: { kind: 'ratio', numerator: 'revenue', denominator: 'imps', scale: 1000 },
};

/** The report metrics a reading needs. */
export function reportMetricsOf(metric: Exclude<AlertMetric, 'pace'>): MetricId[] {
  const r = READINGS[metric];
  return r.kind === 'count' ? [r.metric] : [r.numerator, r.denominator];
}

/** A metric's value and volume from summed report metrics; a share over no volume is 0. */
export function readingOf(
  metric: Exclude<AlertMetric, 'pace'>,
  sums: Readonly<Partial<Record<MetricId, number>>>,
): { value: number; volume: number } {
  const r = READINGS[metric];
  if (r.kind === 'count') {
    const value = sums[r.metric] ?? 0;
    return { value, volume: value };
  }
  const volume = sums[r.denominator] ?? 0;
  const value = volume > 0 ? ((sums[r.numerator] ?? 0) / volume) * r.scale : 0;
  // money reads in whole micro-dollars, as a report's eCPM does
  return { value: r.scale === 1000 ? Math.round(value) : value, volume };
}

/** Whether a reading is judged: counts always; a share over at least `minVolume` (and more than none). */
export const measurable = (metric: Exclude<AlertMetric, 'pace'>, volume: number, minVolume: number): boolean =>
  READINGS[metric].kind === 'count' || (volume > 0 && volume >= minVolume);

export interface Judgement {
  firing: boolean;
  /** The line the value is held against: the condition's value, or a drop's comparison less its percent. */
  threshold: number;
}

/**
 * Whether a condition holds: below or above its value (strictly), or a drop of at least `percent` %
 * from the comparison (a comparison of 0 cannot drop). `offPace` is judged by the pacing state, not here.
 */
export function judge(condition: AlertCondition, value: number, comparison: number | null): Judgement {
  switch (condition.op) {
    case 'below':
      return { firing: value < condition.value, threshold: condition.value };
    case 'above':
      return { firing: value > condition.value, threshold: condition.value };
    case 'drop': {
      if (comparison === null || comparison <= 0) return { firing: false, threshold: 0 };
      const threshold = comparison * (1 - condition.percent / 100);
      return { firing: value <= threshold, threshold };
    }
    case 'offPace':
      return { firing: false, threshold: 0 };
  }
}

const hourText = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/** The window in words: `2026-11-28 13:00 to 14:00 UTC`, `2026-11-27 14:00 to 2026-11-28 14:00 UTC`. */
export function spanText(span: Span): string {
  const to = hourText(span.to);
  return `${hourText(span.from)} to ${span.to - span.from === HOUR_MS ? to.slice(11) : to} UTC`;
}

const VOLUME_WORDS: Partial<Record<MetricId, string>> = {
  opps: 'opportunities',
  demandCalls: 'demand calls',
  reqs: 'requests',
  imps: 'impressions',
};

/** The numbers that fired (or would fire) a rule, in one sentence. */
export function detailOf(input: {
  metric: Exclude<AlertMetric, 'pace'>;
  condition: AlertCondition;
  value: number;
  volume: number;
  threshold: number;
  comparison: number | null;
  window: Span;
}): string {
  const { metric, condition, value, threshold, comparison, window } = input;
  const label = ALERT_METRIC_LABELS[metric];
  const f = (v: number) => formatAlertValue(metric, v);
  const reading = READINGS[metric];
  const over =
    reading.kind === 'ratio'
      ? ` over ${Math.round(input.volume).toLocaleString('en-US')} ${VOLUME_WORDS[reading.denominator] ?? reading.denominator}`
      : '';
  const when = spanText(window);
  if (condition.op === 'drop') {
    const down = comparison && comparison > 0 ? Math.round((1 - value / comparison) * 100) : 0;
    const before = condition.against === 'previous' ? 'the window before' : 'the same hours a week earlier';
    return `${label} ${f(value)}${over} in ${when}, down ${down}% from ${f(comparison ?? 0)} ${before} (alert at a drop of ${condition.percent}%: ${f(threshold)} or less)`;
  }
  const side = condition.op === 'below' ? 'below' : 'above';
  return `${label} ${f(value)}${over} in ${when} (alert ${side} ${f(threshold)})`;
}
