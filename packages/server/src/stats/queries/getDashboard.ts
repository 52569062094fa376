import {
  DASHBOARD_METRICS, type DashboardAnswer, formatDate, metricFromSums, ReportRequest, type ReportRequestInput, type ReportRow, type StatsSumColumn,
} from '@adplane/shared';
import { getReport, type ReportContext } from './getReport.js';

const addDays = (date: string, days: number) => formatDate(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);

/** The summed columns the dashboard's metrics are computed from. */
const SUMS: StatsSumColumn[] = ['revenue', 'cost', 'imps', 'opps', 'reqs'];

function totalsOf(rows: readonly ReportRow[]): ReportRow {
  const sums: Partial<Record<StatsSumColumn, number>> = {};
  for (const row of rows) for (const c of SUMS) sums[c] = (sums[c] ?? 0) + Number(row[c] ?? 0);
  const out: ReportRow = { total: true };
  for (const id of DASHBOARD_METRICS) out[id] = metricFromSums(id, sums);
  return out;
}

/**
 * The dashboard for the user's scope: today against yesterday and the last 7 days, by hour and by day,
 * and the top channels and demand tags of the week. Three queries on the hourly rollup: the week by
 * local hour (every total, the hours and the days come from it) and the two top lists.
 */
export async function getDashboard(ctx: ReportContext, timezone: number, now = Date.now()): Promise<DashboardAnswer> {
  const today = formatDate(now, timezone);
  const yesterday = addDays(today, -1);
  const weekStart = addDays(today, -6);
  // Every total comes from the hours and the top lists show no totals row: three queries, one scan each.
  const run = (input: Omit<ReportRequestInput, 'timezone'>) => getReport(ctx, ReportRequest.parse({ ...input, timezone }), { totals: false });
  const [hours, topChannels, topDemand] = await Promise.all([
    run({ startDate: weekStart, endDate: today, dimensions: ['hour'], metrics: [...SUMS] }),
    run({ startDate: weekStart, endDate: today, dimensions: ['channel'], metrics: ['revenue', 'imps', 'fill'], sort: { by: 'revenue', order: 'desc' }, limit: 5 }),
    run({ startDate: weekStart, endDate: today, dimensions: ['tag'], metrics: ['revenue', 'imps', 'fill'], sort: { by: 'revenue', order: 'desc' }, limit: 5 }),
  ]);
  const onDay = (day: string) => hours.filter((r) => String(r.hour).startsWith(day));
  const days = [...new Set(hours.map((r) => String(r.hour).slice(0, 10)))].sort().map((date) => {
    const t = totalsOf(onDay(date));
    return { date, revenue: t.revenue, cost: t.cost, profit: t.profit, imps: t.imps };
  });
  return {
    today, yesterday, weekStart, timezone,
    totals: { today: totalsOf(onDay(today)), yesterday: totalsOf(onDay(yesterday)), last7: totalsOf(hours) },
    hours: [...onDay(yesterday), ...onDay(today)].map((r) => ({ hour: r.hour, revenue: r.revenue, imps: r.imps })),
    days, topChannels, topDemand,
  };
}
