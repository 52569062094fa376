import { useMemo, useState } from 'react';
import { Segmented, Select, Space } from 'antd';
import { EChart } from '../../components/EChart.js';
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

/** Most series a time chart draws (the largest by the chart's metric); the rest are in the table. */
const MAX_SERIES = 8;
const MAX_BARS = 20;

/** A row's value of a dimension as text; rows without one (no channel, no marketplace) read as the one empty mark. */
export function rowLabel(row: ReportRow, id: DimensionId): string {
  if (DIMENSION_BY_ID[id].type === 'entity')
    return String(row[nameField(id)] || (row[id] === 0 ? EMPTY_MARK : `#${String(row[id])}`));
  return row[id] === '' ? EMPTY_MARK : String(row[id]);
}

/** Where a trend matters: a time series by date or hour (one line per value of the next dimension), else bars. */
function chartOption(
  rows: readonly ReportRow[],
  dimensions: readonly DimensionId[],
  metric: MetricId,
  kind: 'line' | 'bar',
  timezone?: number,
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
    const split = dimensions.find((d) => d !== time);
    const groups = new Map<string, Map<string, number>>();
    const totals = new Map<string, number>();
    for (const r of data) {
      const key = split ? rowLabel(r, split) : METRIC_BY_ID[metric].label;
      if (!groups.has(key)) groups.set(key, new Map());
      const at = String(r[time]);
      groups.get(key)!.set(at, (groups.get(key)!.get(at) ?? 0) + Number(r[metric] ?? 0));
      totals.set(key, (totals.get(key) ?? 0) + Number(r[metric] ?? 0));
    }
    const keys = [...groups.keys()].sort((a, b) => (totals.get(b) ?? 0) - (totals.get(a) ?? 0)).slice(0, MAX_SERIES);
    return {
      ...base,
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
      series: keys.map((key) => ({
        name: key,
        type: kind,
        data: x.map((at) => groups.get(key)?.get(at) ?? 0),
        smooth: kind === 'line',
      })),
    };
  }
  const first = dimensions[0];
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
}: {
  rows: readonly ReportRow[];
  dimensions: readonly DimensionId[];
  metrics: readonly MetricId[];
  timezone?: number;
}) {
  const hasTime = dimensions.some((d) => d === 'date' || d === 'hour');
  const [kind, setKind] = useState<'line' | 'bar'>(hasTime ? 'line' : 'bar');
  const [picked, setPicked] = useState<MetricId | null>(null);
  const metric = picked && metrics.includes(picked) ? picked : metrics[0];
  const option = useMemo(
    () => chartOption(rows, dimensions, metric, kind, timezone),
    [rows, dimensions, metric, kind, timezone],
  );
  if (dimensions.length === 0) return null;
  return (
    <div className="report-chart" data-testid="report-chart">
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
      <EChart option={option} style={{ height: 320 }} />
    </div>
  );
}
