import {
  type DimensionId,
  formatDate,
  isDimensionVisible,
  isMetricVisible,
  type MetricId,
  type ReportRequestInput,
  type StatsViewer,
  visibleMetrics,
} from '@adplane/shared';

/** A report as the form holds it (dates are local days of the user's time zone). */
export interface ReportForm {
  startDate: string;
  endDate: string;
  timezone: number;
  dimensions: DimensionId[];
  metrics: MetricId[];
  filters: Partial<Record<DimensionId, (string | number)[]>>;
  sortBy: string | null;
  sortOrder: 'asc' | 'desc';
  limit: number;
  hideErrors: boolean;
}

export const DATE_PRESETS = ['today', 'yesterday', 'last7', 'last30', 'thisMonth', 'lastMonth'] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];
export const PRESET_LABELS: Record<DatePreset, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last7: 'Last 7 days',
  last30: 'Last 30 days',
  thisMonth: 'This month',
  lastMonth: 'Last month',
};

const addDays = (date: string, days: number) => formatDate(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);

/** Today's date in the user's time zone. */
const todayAt = (timezone: number, now = Date.now()) => formatDate(now, timezone);

/** The local days a preset covers, ending today (or the previous month). */
export function presetRange(
  preset: DatePreset,
  timezone: number,
  now = Date.now(),
): { startDate: string; endDate: string } {
  const today = todayAt(timezone, now);
  const monthStart = `${today.slice(0, 8)}01`;
  switch (preset) {
    case 'today':
      return { startDate: today, endDate: today };
    case 'yesterday':
      return { startDate: addDays(today, -1), endDate: addDays(today, -1) };
    case 'last7':
      return { startDate: addDays(today, -6), endDate: today };
    case 'last30':
      return { startDate: addDays(today, -29), endDate: today };
    case 'thisMonth':
      return { startDate: monthStart, endDate: today };
    case 'lastMonth': {
      const end = addDays(monthStart, -1);
      return { startDate: `${end.slice(0, 8)}01`, endDate: end };
    }
  }
}

export function defaultForm(timezone: number, now = Date.now()): ReportForm {
  return {
    ...presetRange('last7', timezone, now),
    timezone,
    dimensions: ['date'],
    metrics: ['reqs', 'opps', 'imps', 'fill', 'revenue', 'ecpm'],
    filters: {},
    sortBy: null,
    sortOrder: 'desc',
    limit: 0,
    hideErrors: false,
  };
}

/**
 * The Market report helper: today in the user's zone, by marketplace_name, with
 * rev_m, rev_md, imps, reqs, opps and fill, errors hidden, sorted by rev_m descending, no limit.
 */
export const MARKET_REPORT_NAME = 'Marketplace Report';
export function marketReportForm(timezone: number, now = Date.now()): ReportForm {
  const today = todayAt(timezone, now);
  return {
    startDate: today,
    endDate: today,
    timezone,
    dimensions: ['marketplace_name'],
    metrics: ['rev_m', 'rev_md', 'imps', 'reqs', 'opps', 'fill'],
    filters: {},
    sortBy: 'rev_m',
    sortOrder: 'desc',
    limit: 0,
    hideErrors: true,
  };
}

export function toRequest(form: ReportForm): ReportRequestInput {
  const filters: Record<string, (string | number)[]> = {};
  for (const [id, values] of Object.entries(form.filters)) if (values && values.length > 0) filters[id] = values;
  return {
    startDate: form.startDate,
    endDate: form.endDate,
    timezone: form.timezone,
    dimensions: form.dimensions,
    metrics: form.metrics,
    filters,
    ...(form.sortBy &&
    (form.dimensions.includes(form.sortBy as DimensionId) || form.metrics.includes(form.sortBy as MetricId))
      ? { sort: { by: form.sortBy, order: form.sortOrder } }
      : {}),
    // 0 is "no limit"; any other number goes as typed, so one out of range is refused by the server, never dropped
    ...(form.limit !== 0 ? { limit: form.limit } : {}),
    hideErrors: form.hideErrors,
  };
}

export function fromRequest(request: ReportRequestInput, fallbackTimezone: number): ReportForm {
  return {
    startDate: request.startDate,
    endDate: request.endDate,
    timezone: request.timezone ?? fallbackTimezone,
    dimensions: [...(request.dimensions ?? [])],
    metrics: [...request.metrics],
    filters: { ...(request.filters ?? {}) } as ReportForm['filters'],
    sortBy: request.sort?.by ?? null,
    sortOrder: request.sort?.order ?? 'desc',
    limit: request.limit ?? 0,
    hideErrors: request.hideErrors ?? false,
  };
}

/**
 * The form with only what `viewer` may see (visibility.ts): a saved report made before, the default
 * form or the market helper lose the metrics, dimensions, filters and sort the server would refuse.
 * A form left without metrics gets the viewer's first of impressions, revenue and eCPM.
 */
export function visibleForm(form: ReportForm, viewer: StatsViewer): ReportForm {
  const dimensions = form.dimensions.filter((id) => isDimensionVisible(viewer, id));
  let metrics = form.metrics.filter((id) => isMetricVisible(viewer, id));
  if (metrics.length === 0)
    metrics = visibleMetrics(viewer).filter((id) => id === 'imps' || id === 'revenue' || id === 'ecpm');
  const filters: ReportForm['filters'] = {};
  for (const [id, values] of Object.entries(form.filters) as [DimensionId, (string | number)[]][])
    if (isDimensionVisible(viewer, id)) filters[id] = values;
  const sorted =
    form.sortBy !== null &&
    ((dimensions as string[]).includes(form.sortBy) || (metrics as string[]).includes(form.sortBy));
  return { ...form, dimensions, metrics, filters, sortBy: sorted ? form.sortBy : null };
}
