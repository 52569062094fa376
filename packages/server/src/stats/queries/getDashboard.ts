import {
  type DashboardAnswer,
  type DashboardMetric,
  dashboardMetricsFor,
  type DashboardTop,
  dashboardTopMetrics,
  formatDate,
  formatHour,
  isDemandDimension,
  isMetricVisible,
  metricFromSums,
  type MetricId,
  ReportRequest,
  type ReportRequestInput,
  type ReportRow,
  type StatsSumColumn,
} from '@adplane/shared';
import { getReport, type ReportContext } from './getReport.js';

const addDays = (date: string, days: number) => formatDate(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);

/** The summed columns the dashboard's metrics are computed from (each a metric of its own name). */
const SUMS: (StatsSumColumn & MetricId)[] = ['revenue', 'cost', 'imps', 'opps', 'reqs'];

function totalsOf(rows: readonly ReportRow[], metrics: readonly DashboardMetric[]): ReportRow {
  const sums: Partial<Record<StatsSumColumn, number>> = {};
  for (const row of rows) for (const c of SUMS) sums[c] = (sums[c] ?? 0) + Number(row[c] ?? 0);
  const out: ReportRow = { total: true };
  for (const id of metrics) out[id] = metricFromSums(id, sums);
  return out;
}

/**
 * The dashboard for the user's scope: today against yesterday and the last 7 days, by hour and by day,
 * and the top lists of the week the user's role looks at in its view (`tops`, dashboardTopsFor:
 * channels and demand tags for the tenant in the SSP view, campaigns and suppliers in the DSP view,
 * its channels for a subpublisher, its campaigns and tags for an advertiser). One query on the hourly
 * rollup for the week by local hour (every total, the hours and the days come from it), and one per
 * top list shown (the DSP dimensions are not in the rollup: theirs read the week's hourly rows).
 */
export async function getDashboard(
  ctx: ReportContext,
  timezone: number,
  now: number,
  tops: readonly DashboardTop[] = ['channel', 'tag'],
): Promise<DashboardAnswer> {
  // Only the numbers the viewer may see are read and answered (visibility.ts): a subpublisher's
  // revenue is its payout, and nobody but the tenant and admins gets its cost and profit.
  const metrics = dashboardMetricsFor(ctx.viewer);
  const sums = SUMS.filter((c) => isMetricVisible(ctx.viewer, c));
  const byDay = (['revenue', 'cost', 'profit', 'imps'] as const).filter((id) => metrics.includes(id));
  const today = formatDate(now, timezone);
  const yesterday = addDays(today, -1);
  const weekStart = addDays(today, -6);
  // Every total comes from the hours and the top lists show no totals row: three queries, one scan each.
  const run = (input: Omit<ReportRequestInput, 'timezone'>) =>
    getReport(ctx, ReportRequest.parse({ ...input, timezone }), { totals: false });
  // Rows without the dimension (id 0: a campaign's win has no channel) are not a "top" of anything.
  const top = async (dimension: DashboardTop) =>
    tops.includes(dimension)
      ? (
          await run({
            startDate: weekStart,
            endDate: today,
            dimensions: [dimension],
            metrics: dashboardTopMetrics(ctx.viewer, dimension),
            sort: { by: 'revenue', order: 'desc' },
            limit: 6,
            // the top demand is real demand: the rollup answers it, with no "No demand called" row
            demandOnly: isDemandDimension(dimension),
          })
        )
          .filter((r) => Number(r[dimension]) > 0)
          .slice(0, 5)
      : [];
  const [hours, topChannels, topDemand, topCampaigns, topSuppliers] = await Promise.all([
    run({ startDate: weekStart, endDate: today, dimensions: ['hour'], metrics: sums }),
    top('channel'),
    top('tag'),
    top('campaign'),
    top('supplier'),
  ]);
  const onDay = (day: string) => hours.filter((r) => String(r.hour).startsWith(day));
  const days = [...new Set(hours.map((r) => String(r.hour).slice(0, 10)))].sort().map((date) => {
    const t = totalsOf(onDay(date), metrics);
    return Object.fromEntries([['date', date], ...byDay.map((id) => [id, t[id]])]) as ReportRow;
  });
  // yesterday up to this local hour: what today so far compares with (a day's first hours are not its whole)
  const hourNow = new Date(now + timezone * 3_600_000).getUTCHours();
  const yesterdaySoFar = onDay(yesterday).filter((r) => Number(String(r.hour).slice(11, 13)) <= hourNow);
  return {
    today,
    yesterday,
    weekStart,
    timezone,
    totals: {
      today: totalsOf(onDay(today), metrics),
      yesterday: totalsOf(onDay(yesterday), metrics),
      yesterdaySoFar: totalsOf(yesterdaySoFar, metrics),
      last7: totalsOf(hours, metrics),
    },
    hours: [...onDay(yesterday), ...onDay(today)].map((r) => ({ hour: r.hour, revenue: r.revenue, imps: r.imps })),
    hourNow: formatHour(now, timezone),
    days,
    topChannels,
    topDemand,
    topCampaigns,
    topSuppliers,
  };
}
