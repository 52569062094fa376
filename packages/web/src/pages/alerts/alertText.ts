import {
  ALERT_METRIC_LABELS,
  type AlertCondition,
  type AlertMetric,
  type AlertRule,
  type AlertScopeKind,
  formatAlertValue,
} from '@adplane/shared';

/** How the console names a rule's parts and numbers (the Alerts page and the bell). */

export const SCOPE_LABELS: Readonly<Record<AlertScopeKind, string>> = {
  account: 'Whole account',
  channel: 'Channel',
  tag: 'Demand tag',
  campaign: 'Campaign',
};

const EACH: Readonly<Record<AlertScopeKind, string>> = {
  account: 'Whole account',
  channel: 'Each channel',
  tag: 'Each demand tag',
  campaign: 'Each campaign',
};

/** A metric's number as people read it, or nothing when there is none. */
export const alertValueText = (metric: AlertMetric, value: number | null): string =>
  value === null ? '' : formatAlertValue(metric, value);

/** What a rule watches: `Each channel`, `Channel Sports Player`. */
export function scopeText(scope: AlertRule['scope'], name: (kind: AlertScopeKind, id: number) => string): string {
  if (scope.kind === 'account' || scope.id === null) return EACH[scope.kind];
  return `${SCOPE_LABELS[scope.kind]} ${name(scope.kind, scope.id)}`;
}

/** A condition in words: `above 20.00%`, `drops 50% vs the previous hour`, `behind pace or budget spent`. */
export function conditionText(metric: AlertMetric, condition: AlertCondition, window: AlertRule['window']): string {
  switch (condition.op) {
    case 'below':
    case 'above':
      return `${condition.op} ${alertValueText(metric, condition.value)}`;
    case 'drop':
      return `drops ${condition.percent}% vs ${condition.against === 'previous' ? `the previous ${window}` : 'the same hours last week'}`;
    case 'offPace':
      return 'behind pace or budget spent';
  }
}

export const metricLabel = (metric: AlertMetric) => ALERT_METRIC_LABELS[metric];
