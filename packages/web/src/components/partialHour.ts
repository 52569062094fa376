/**
 * The hour still being counted in a chart by hour (the server says which: the dashboard's `hourNow`,
 * GET /api/clock for a report): its numbers are partial, so a line reaches it in a dashed piece and a
 * bar is drawn lighter, and the tooltip says so, instead of a drop towards 0 read as a real fall.
 */
export const PARTIAL_HOUR_NOTE = 'partial hour, still being counted';

/** ECharts 6's default series colours, set on each series so that a line and its dashed piece match. */
export const SERIES_COLORS = [
  '#5070dd',
  '#b6d634',
  '#505372',
  '#ff994d',
  '#0ca8df',
  '#ffd10a',
  '#fb628b',
  '#785db0',
  '#3fbe95',
];

/** The id of the dashed piece drawn for a line's partial hour (it shares the line's name and colour). */
const PARTIAL_ID = 'partial-hour:';

/**
 * A line's values split at the partial hour: the complete hours (the partial one left out) and the
 * dashed piece from the hour before it to it. No partial hour on the axis: the line as it is.
 */
export function splitAtPartialHour(
  values: readonly (number | null)[],
  partialIndex: number,
): { complete: (number | null)[]; piece: (number | null)[] | null } {
  if (partialIndex < 0 || partialIndex >= values.length || values[partialIndex] === null)
    return { complete: [...values], piece: null };
  const complete = values.map((v, i) => (i === partialIndex ? null : v));
  const piece = values.map((v, i) => (i === partialIndex || i === partialIndex - 1 ? v : null));
  return { complete, piece };
}

/** The series of a line with its partial hour dashed: same name (one legend entry) and colour. */
export function lineWithPartialHour(
  series: { name: string; type: 'line'; smooth?: boolean; lineStyle?: Record<string, unknown> },
  values: readonly (number | null)[],
  partialIndex: number,
  color: string,
): Record<string, unknown>[] {
  const { complete, piece } = splitAtPartialHour(values, partialIndex);
  const main = { ...series, data: complete, itemStyle: { color }, lineStyle: { ...(series.lineStyle ?? {}), color } };
  if (!piece) return [{ ...main, data: values }];
  return [
    main,
    {
      ...series,
      id: `${PARTIAL_ID}${series.name}`,
      data: piece,
      smooth: false,
      symbol: 'emptyCircle',
      itemStyle: { color },
      lineStyle: { ...(series.lineStyle ?? {}), color, type: 'dashed' },
    },
  ];
}

/** A bar's values with the partial hour's bar lighter (its numbers are not all in). */
export function barsWithPartialHour(values: readonly (number | null)[], partialIndex: number) {
  return values.map((value, i) => (i === partialIndex ? { value, itemStyle: { opacity: 0.45 } } : value));
}

interface TooltipParam {
  seriesId?: string;
  seriesName?: string;
  marker?: unknown;
  value?: unknown;
  data?: unknown;
  dataIndex: number;
  axisValueLabel?: string;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * An axis tooltip that names the partial hour and shows each line once (the dashed piece only at the
 * partial hour itself), empty values left out.
 */
export function partialHourTooltip(format: (value: number) => string, partialIndex: number) {
  return (raw: unknown): string => {
    const params = (Array.isArray(raw) ? raw : [raw]) as TooltipParam[];
    if (params.length === 0) return '';
    const at = params[0]!.dataIndex;
    const lines = params
      .filter((p) => !(p.seriesId?.startsWith(PARTIAL_ID) && p.dataIndex !== partialIndex))
      .filter((p) => !(p.dataIndex === partialIndex && !p.seriesId?.startsWith(PARTIAL_ID) && p.value == null))
      .map((p) => {
        const value =
          typeof p.value === 'object' && p.value !== null ? (p.value as { value?: unknown }).value : p.value;
        if (value === null || value === undefined || value === '-') return null;
        return `${typeof p.marker === 'string' ? p.marker : ''}${escapeHtml(p.seriesName ?? '')}: ${escapeHtml(format(Number(value)))}`;
      })
      .filter((line): line is string => line !== null);
    const head = escapeHtml(params[0]!.axisValueLabel ?? '');
    return [at === partialIndex ? `${head} <em>(${PARTIAL_HOUR_NOTE})</em>` : head, ...lines].join('<br/>');
  };
}
