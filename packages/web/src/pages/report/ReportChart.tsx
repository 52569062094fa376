import { useMemo, useState } from 'react';
import { Segmented, Select, Space } from 'antd';
import { EChart } from '../../components/EChart.js';
import {
  barsWithPartialHour,
  lineWithPartialHour,
  partialHourTooltip,
  SERIES_COLORS,
} from '../../components/partialHour.js';
import { EMPTY_MARK } from '../../format/empty.js';
import {
  DIMENSION_BY_ID,
  type DimensionId,
  formatMetric,
  formatTimezone,
  formatUsdAxis,
  METRIC_BY_ID,
  type MetricId,
  nameField,
  type ReportRow,
} from '@adplane/shared';

/** Most series a chart draws (the largest by the chart's metric); the rest are in the table. */
const MAX_SERIES = 8;
const MAX_BARS = 20;

/** A row's value of a dimension as text; rows without one (no channel, no marketplace) read as the one empty mark. */
export function rowLabel(row: ReportRow, id: DimensionId): string {
  if (DIMENSION_BY_ID[id].type === 'entity')
    return String(row[nameField(id)] || (row[id] === 0 ? EMPTY_MARK : `#${String(row[id])}`));
  return row[id] === '' ? EMPTY_MARK : String(row[id]);
}

/** Whether a metric's values add up across rows (sums, differences, fees), so bars of it may stack. */
const adds = (metric: MetricId) => METRIC_BY_ID[metric].compute.kind !== 'ratio';

/** What a row is called by the given dimensions: their values joined (`Harbor Video · Roku CTV preroll`). */
const labelOf = (row: ReportRow, dims: readonly DimensionId[]) => dims.map((d) => rowLabel(row, d)).join(' · ');

/**
 * Where a trend matters: a time series by date or hour (one line per value of the other dimensions),
 * else bars by the first dimension, split by the others (stacked when the metric adds up), so that no
 * two bars or lines share a name. `partialHour` is the hour the server is still counting
 * (`YYYY-MM-DD HH:00` in the report's offset): on a chart by hour it is dashed or lighter.
 */
export function chartOption(
  rows: readonly ReportRow[],
  dimensions: readonly DimensionId[],
  metric: MetricId,
  kind: 'line' | 'bar',
  timezone?: number,
  partialHour?: string | null,
) {
  const data = rows.filter((r) => !r.total);
  const time = dimensions.find((d) => d === 'date' || d === 'hour');
  const format = (v: number) => formatMetric(metric, v);
  const axisFormat = (v: number) =>
    METRIC_BY_ID[metric].format === 'usd'
      ? formatUsdAxis(v / 1_000_000)
      : METRIC_BY_ID[metric].format === 'percent'
        ? `${v}%`
        : v.toLocaleString('en-US');
  const base = {
    tooltip: { trigger: 'axis' as const, valueFormatter: (v: unknown) => format(Number(v)) },
    grid: { left: 70, right: 20, top: 40, bottom: 40 },
    yAxis: { type: 'value' as const, axisLabel: { formatter: axisFormat } },
  };
  if (time) {
    const x = [...new Set(data.map((r) => String(r[time])))].sort();
    // every other dimension names a line: one row of the report is one point
    const split = dimensions.filter((d) => d !== time);
    const groups = new Map<string, Map<string, number>>();
    const totals = new Map<string, number>();
    for (const r of data) {
      const key = split.length > 0 ? labelOf(r, split) : METRIC_BY_ID[metric].label;
      if (!groups.has(key)) groups.set(key, new Map());
      const at = String(r[time]);
      groups.get(key)!.set(at, (groups.get(key)!.get(at) ?? 0) + Number(r[metric] ?? 0));
      totals.set(key, (totals.get(key) ?? 0) + Number(r[metric] ?? 0));
    }
    const keys = [...groups.keys()].sort((a, b) => (totals.get(b) ?? 0) - (totals.get(a) ?? 0)).slice(0, MAX_SERIES);
    const partialIndex = time === 'hour' && partialHour ? x.indexOf(partialHour) : -1;
    return {
      ...base,
      tooltip: { trigger: 'axis' as const, formatter: partialHourTooltip(format, partialIndex) },
      // one line of legend (paged with arrows when the series do not fit), never over the plot
      legend: { top: 0, type: 'scroll' as const },
      // Hours are date-times in the report's offset: the axis says which.
      xAxis: {
        type: 'category' as const,
        data: x,
        ...(time === 'hour' && timezone !== undefined
          ? { name: formatTimezone(timezone), nameLocation: 'end' as const }
          : {}),
      },
      series: keys.flatMap((key, i): Record<string, unknown>[] => {
        const values = x.map((at) => groups.get(key)?.get(at) ?? 0);
        const color = SERIES_COLORS[i % SERIES_COLORS.length]!;
        return kind === 'line'
          ? lineWithPartialHour({ name: key, type: 'line', smooth: true }, values, partialIndex, color)
          : [{ name: key, type: 'bar', data: barsWithPartialHour(values, partialIndex), itemStyle: { color } }];
      }),
    };
  }
  const [first, ...others] = dimensions;
  if (others.length > 0) {
    // bars by the first dimension, one series per value of the others
    const cells = new Map<string, Map<string, number>>();
    const byBar = new Map<string, number>();
    const bySeries = new Map<string, number>();
    const stacked = adds(metric);
    for (const r of data) {
      const bar = rowLabel(r, first!);
      const key = labelOf(r, others);
      const v = Number(r[metric] ?? 0);
      if (!cells.has(bar)) cells.set(bar, new Map());
      cells.get(bar)!.set(key, (cells.get(bar)!.get(key) ?? 0) + v);
      // a bar's height: the sum when the series stack, else its highest value
      byBar.set(bar, stacked ? (byBar.get(bar) ?? 0) + v : Math.max(byBar.get(bar) ?? -Infinity, v));
      bySeries.set(key, (bySeries.get(key) ?? 0) + v);
    }
    const bars = [...byBar.keys()].sort((a, b) => byBar.get(b)! - byBar.get(a)!).slice(0, MAX_BARS);
    const ranked = [...bySeries.keys()].sort((a, b) => bySeries.get(b)! - bySeries.get(a)!);
    const keys = ranked.slice(0, MAX_SERIES);
    const rest = ranked.slice(MAX_SERIES);
    const series = keys.map((key, i) => ({
      name: key,
      type: kind,
      ...(stacked ? { stack: 'bars' } : {}),
      itemStyle: { color: SERIES_COLORS[i % SERIES_COLORS.length] },
      data: bars.map((bar) => cells.get(bar)?.get(key) ?? (stacked ? 0 : null)),
    }));
    // what the series left out still counts in a stacked bar's height
    if (stacked && rest.length > 0)
      series.push({
        name: `Other (${rest.length})`,
        type: kind,
        stack: 'bars',
        itemStyle: { color: '#bfbfbf' },
        data: bars.map((bar) => rest.reduce((sum, key) => sum + (cells.get(bar)?.get(key) ?? 0), 0)),
      });
    return {
      ...base,
      legend: { top: 0, type: 'scroll' as const },
      xAxis: {
        type: 'category' as const,
        data: bars,
        axisLabel: { interval: 0, rotate: bars.length > 6 ? 30 : 0 },
      },
      series,
    };
  }
  const top = [...data].sort((a, b) => Number(b[metric] ?? 0) - Number(a[metric] ?? 0)).slice(0, MAX_BARS);
  return {
    ...base,
    tooltip: { ...base.tooltip, trigger: 'axis' as const },
    xAxis: {
      type: 'category' as const,
      data: top.map((r) => (first ? rowLabel(r, first) : 'Total')),
      axisLabel: { interval: 0, rotate: top.length > 6 ? 30 : 0 },
    },
    series: [{ name: METRIC_BY_ID[metric].label, type: kind, data: top.map((r) => Number(r[metric] ?? 0)) }],
  };
}

export function ReportChart({
  rows,
  dimensions,
  metrics,
  timezone,
  partialHour,
}: {
  rows: readonly ReportRow[];
  dimensions: readonly DimensionId[];
  metrics: readonly MetricId[];
  timezone?: number;
  /** The hour the server is still counting, in the report's offset (GET /api/clock); null when not known. */
  partialHour?: string | null;
}) {
  const hasTime = dimensions.some((d) => d === 'date' || d === 'hour');
  const [kind, setKind] = useState<'line' | 'bar'>(hasTime ? 'line' : 'bar');
  const [picked, setPicked] = useState<MetricId | null>(null);
  const metric = picked && metrics.includes(picked) ? picked : metrics[0];
  const option = useMemo(
    () => chartOption(rows, dimensions, metric, kind, timezone, partialHour),
    [rows, dimensions, metric, kind, timezone, partialHour],
  );
  if (dimensions.length === 0) return null;
  const categories = option.xAxis.data as readonly string[];
  // the partial hour when it is on the axis (said on the box too, for tests and tools reading the page)
  const partialShown =
    partialHour && dimensions.includes('hour') && categories.includes(partialHour) ? partialHour : undefined;
  return (
    <div
      className="report-chart"
      data-testid="report-chart"
      data-categories={categories.length}
      data-partial-hour={partialShown}
    >
      <Space className="report-chart-controls">
        <Segmented<'line' | 'bar'>
          options={[
            { label: 'Time series', value: 'line' },
            { label: 'Bars', value: 'bar' },
          ]}
          value={kind}
          onChange={setKind}
          data-testid="report-chart-kind"
        />
        <Select<MetricId>
          value={metric}
          onChange={setPicked}
          style={{ minWidth: 180 }}
          options={metrics.map((m) => ({ value: m, label: METRIC_BY_ID[m].label }))}
          data-testid="report-chart-metric"
        />
      </Space>
      <EChart option={option} style={{ height: 320 }} testId="report-chart-canvas" />
    </div>
  );
}
