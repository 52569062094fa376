import {
  type CampaignPacing,
  formatPercent,
  formatTimezone,
  formatUsdAxis,
  formatUsdMicros,
  PACING_STATE_LABELS,
  type PacingStateId,
} from '@adplane/shared';
import { type EChartOption } from '../../components/EChart.js';
import { EMPTY_MARK } from '../../format/empty.js';

/**
 * How a campaign's live pacing reads in the console (GET /api/demand/campaigns/pacing): the state's
 * colour, the list cell's "spent / target" and its tooltip, the drawer chart. Pure, so tested alone.
 */
export const PACING_STATE_COLORS: Record<PacingStateId, string> = {
  on_pace: 'green',
  ahead: 'gold',
  behind: 'orange',
  capped: 'blue',
  not_delivering: 'red',
};

/** A pacing amount in micro-dollars as USD; a budget may be 'unlimited', an amount not known yet (null) is the empty mark. */
export const pacingMoney = (v: number | null | 'unlimited') =>
  v === null ? EMPTY_MARK : v === 'unlimited' ? 'Unlimited' : formatUsdMicros(v);

/** Spent today over the target so far, as a share (null without a target: no daily budget, or nothing due yet). */
export function spentOfTarget(p: CampaignPacing): number | null {
  return p.targetSoFar ? p.spentToday / p.targetSoFar : null;
}

/** The list cell: `$12.34 / $20.00`, or the spend alone without a daily budget. */
export function pacingCellText(p: CampaignPacing): string {
  return p.targetSoFar === null
    ? formatUsdMicros(p.spentToday)
    : `${formatUsdMicros(p.spentToday)} / ${formatUsdMicros(p.targetSoFar)}`;
}

/** The cell's tooltip, line by line. */
export function pacingTooltipLines(p: CampaignPacing): string[] {
  const ratio = spentOfTarget(p);
  return [
    `${PACING_STATE_LABELS[p.state]}: ${p.reason}`,
    `Spent today ${pacingMoney(p.spentToday)}${ratio === null ? '' : ` (${formatPercent(ratio * 100)} of the target)`}`,
    `Target so far ${pacingMoney(p.targetSoFar)} (${p.pacing === 'even' ? 'even pacing' : 'ASAP'})`,
    `Projected ${pacingMoney(p.projected)} of ${pacingMoney(p.dailyBudget)} a day`,
    `${p.day} ${String(p.hour).padStart(2, '0')}:00 ${formatTimezone(p.timezone)}, the account's day`,
  ];
}

/** Spend so far by the end of each hour up to now (hours to come are left out of the line). */
export function cumulativeSpend(p: CampaignPacing): (number | null)[] {
  let sum = 0;
  return p.hourly.map((v, h) => (h <= p.hour ? (sum += v) : null));
}

const dollars = (micros: number | null) => (micros === null ? null : Math.round(micros / 10_000) / 100);

/** Bars: spend per hour of the account's day; lines: spend so far and the even-pace line to the budget. */
export function pacingChartOption(p: CampaignPacing): EChartOption {
  const hours = p.hourly.map((_, h) => String(h).padStart(2, '0'));
  const series: Record<string, unknown>[] = [
    {
      name: 'Spend in the hour',
      type: 'bar',
      yAxisIndex: 1,
      data: p.hourly.map(dollars),
      itemStyle: { color: '#91caff' },
    },
    {
      name: 'Spent so far',
      type: 'line',
      data: cumulativeSpend(p).map(dollars),
      symbol: 'none',
      lineStyle: { width: 2 },
      itemStyle: { color: '#1677ff' },
    },
  ];
  if (p.evenByHour) {
    series.push({
      name: 'Even pace',
      type: 'line',
      data: p.evenByHour.map(dollars),
      symbol: 'none',
      lineStyle: { type: 'dashed', width: 1.5 },
      itemStyle: { color: '#8c8c8c' },
    });
  }
  return {
    animation: false,
    grid: { left: 56, right: 56, top: 36, bottom: 28 },
    legend: { top: 0 },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (v: unknown) => (typeof v === 'number' ? `$${v.toFixed(2)}` : EMPTY_MARK),
    },
    xAxis: { type: 'category', data: hours, name: formatTimezone(p.timezone), nameGap: 4 },
    yAxis: [
      { type: 'value', name: 'So far', axisLabel: { formatter: formatUsdAxis } },
      { type: 'value', name: 'Per hour', axisLabel: { formatter: formatUsdAxis }, splitLine: { show: false } },
    ],
    series,
  } as EChartOption;
}
