import {
  type DatePreset,
  type DimensionId,
  formatDate,
  PRESET_LABELS,
  presetRange as sharedPresetRange,
  isDimensionVisible,
  isMetricVisible,
  type MetricId,
  type ReportRequestInput,
  type StatsViewer,
  visibleMetrics,
} from '@adplane/shared';

/**
 * A report as the form holds it (dates are local days of the user's time zone). With `datePreset` it
 * is rolling: the dates shown are the preset's range today, and the server computes them again each
 * time it runs.
 */
export interface ReportForm {
  startDate: string;
  endDate: string;
  datePreset: DatePreset | null;
  timezone: number;
  dimensions: DimensionId[];
  metrics: MetricId[];
  filters: Partial<Record<DimensionId, (string | number)[]>>;
  sortBy: string | null;
  sortOrder: 'asc' | 'desc';
  limit: number;
  hideErrors: boolean;
}

export { DATE_PRESETS, type DatePreset, PRESET_LABELS } from '@adplane/shared';

/** Today's date in the user's time zone. */
const todayAt = (timezone: number, now = Date.now()) => formatDate(now, timezone);

/** The local days a preset covers at `now` (the browser's clock unless given): the server's rule, datePresets.ts. */
export function presetRange(
  preset: DatePreset,
  timezone: number,
  now = Date.now(),
): { startDate: string; endDate: string } {
  return sharedPresetRange(preset, timezone, now);
}

/**
 * The form after a change: a preset picked makes the report rolling and shows its range; dates picked
 * by hand make it fixed; a new time zone moves a rolling report's range to that zone's days.
 */
export function changeForm(form: ReportForm, patch: Partial<ReportForm>, now = Date.now()): ReportForm {
  const next = { ...form, ...patch };
  if (patch.datePreset) return { ...next, ...presetRange(patch.datePreset, next.timezone, now) };
  if ((patch.startDate !== undefined || patch.endDate !== undefined) && patch.datePreset === undefined)
    return { ...next, datePreset: null };
  if (next.datePreset && patch.timezone !== undefined)
    return { ...next, ...presetRange(next.datePreset, next.timezone, now) };
  return next;
}

/** A saved report's dates as a list shows them: "Yesterday (rolling): 2026-11-27 to 2026-11-27", or the fixed range. */
export function savedDatesText(request: Pick<ReportRequestInput, 'startDate' | 'endDate' | 'datePreset'>): string {
  const range = `${request.startDate} to ${request.endDate}`;
  return request.datePreset ? `${PRESET_LABELS[request.datePreset]} (rolling): ${range}` : range;
}

export function defaultForm(timezone: number, now = Date.now()): ReportForm {
  return {
    ...presetRange('last7', timezone, now),
    datePreset: 'last7',
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
    datePreset: 'today',
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
    ...(form.datePreset ? { datePreset: form.datePreset } : {}),
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

/** The form of a saved request: a rolling one shows its preset's range as of `now`, not the dates it was saved with. */
export function fromRequest(request: ReportRequestInput, fallbackTimezone: number, now = Date.now()): ReportForm {
  const timezone = request.timezone ?? fallbackTimezone;
  const preset = request.datePreset ?? null;
  return {
    ...(preset ? presetRange(preset, timezone, now) : { startDate: request.startDate, endDate: request.endDate }),
    datePreset: preset,
    timezone,
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
