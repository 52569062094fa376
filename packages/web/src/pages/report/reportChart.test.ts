import { describe, expect, it } from 'vitest';
import { type ReportRow } from '@adplane/shared';
import { chartOption } from './ReportChart.js';

type Series = { name: string; id?: string; stack?: string; data: unknown[]; lineStyle?: { type?: string } };
const seriesOf = (option: ReturnType<typeof chartOption>) => option.series as Series[];
const axisOf = (option: ReturnType<typeof chartOption>) => option.xAxis.data;

const row = (channel: string, tag: string, revenue: number, fill = 10): ReportRow => ({
  channel: channel.length,
  channel_name: channel,
  tag: tag.length,
  tag_name: tag,
  revenue,
  fill,
});

describe('the report chart', () => {
  const rows: ReportRow[] = [
    row('Harbor Video - Roku CTV preroll', 'Demand A', 300),
    row('Harbor Video - Roku CTV preroll', 'Demand Bb', 200),
    row('Harbor Video - Roku CTV preroll', 'Demand Ccc', 100),
    row('Web player', 'Demand A', 50),
    { total: true, revenue: 650 },
  ];

  it('draws one bar per value of the first dimension, split by the second: no two bars share a name', () => {
    const option = chartOption(rows, ['channel', 'tag'], 'revenue', 'bar');
    expect(axisOf(option)).toEqual(['Harbor Video - Roku CTV preroll', 'Web player']);
    expect(seriesOf(option).map((s) => [s.name, s.stack, s.data])).toEqual([
      ['Demand A', 'bars', [300, 50]],
      ['Demand Bb', 'bars', [200, 0]],
      ['Demand Ccc', 'bars', [100, 0]],
    ]);
  });

  it('puts a ratio side by side instead of stacking it, and leaves a missing pair empty', () => {
    const option = chartOption(rows, ['channel', 'tag'], 'fill', 'bar');
    expect(seriesOf(option).every((s) => s.stack === undefined)).toBe(true);
    expect(seriesOf(option).find((s) => s.name === 'Demand Bb')!.data).toEqual([10, null]);
  });

  it('folds the series past the eighth into Other, so a stacked bar keeps its height', () => {
    const many = Array.from({ length: 10 }, (_, i) => row('Harbor', `Tag ${i}`, 100 - i));
    const series = seriesOf(chartOption(many, ['channel', 'tag'], 'revenue', 'bar'));
    expect(series).toHaveLength(9);
    expect(series.at(-1)).toMatchObject({ name: 'Other (2)', data: [92 + 91] });
  });

  it('names a line by every dimension but the time one', () => {
    const byHour: ReportRow[] = [
      { hour: '2026-11-28 13:00', channel: 1, channel_name: 'Harbor', country: 'US', revenue: 5 },
      { hour: '2026-11-28 13:00', channel: 1, channel_name: 'Harbor', country: 'CA', revenue: 3 },
    ];
    const names = seriesOf(chartOption(byHour, ['hour', 'channel', 'country'], 'revenue', 'line')).map((s) => s.name);
    expect(names).toEqual(['Harbor · US', 'Harbor · CA']);
  });

  it('dashes the hour the server is still counting, and only on a chart by hour', () => {
    const byHour: ReportRow[] = ['11', '12', '13'].map((h, i) => ({
      hour: `2026-11-28 ${h}:00`,
      revenue: [9, 8, 1][i]!,
    }));
    const lines = seriesOf(chartOption(byHour, ['hour'], 'revenue', 'line', 0, '2026-11-28 13:00'));
    expect(lines.map((s) => [s.data, s.lineStyle?.type])).toEqual([
      [[9, 8, null], undefined],
      [[null, 8, 1], 'dashed'],
    ]);
    const bars = seriesOf(chartOption(byHour, ['hour'], 'revenue', 'bar', 0, '2026-11-28 13:00'));
    expect(bars[0]!.data[2]).toEqual({ value: 1, itemStyle: { opacity: 0.45 } });
    // another hour, or none: nothing is marked
    expect(seriesOf(chartOption(byHour, ['hour'], 'revenue', 'line', 0, '2026-11-28 14:00'))).toHaveLength(1);
    expect(seriesOf(chartOption(byHour, ['hour'], 'revenue', 'line', 0, null))).toHaveLength(1);
  });
});
