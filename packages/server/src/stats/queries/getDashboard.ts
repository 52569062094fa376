import { DASHBOARD_METRICS, type DashboardAnswer, formatDate, ReportRequest, type ReportRequestInput } from '@adplane/shared';
import { getReport, type ReportContext } from './getReport.js';

const addDays = (date: string, days: number) => formatDate(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);

/**
 * The dashboard for the user's scope: today against yesterday and the last 7 days, by hour and by day,
 * and the top channels and demand tags of the week. Six small report queries, run together.
 */
export async function getDashboard(ctx: ReportContext, timezone: number, now = Date.now()): Promise<DashboardAnswer> {
  const today = formatDate(now, timezone);
  const yesterday = addDays(today, -1);
  const weekStart = addDays(today, -6);
  const run = (input: Omit<ReportRequestInput, 'timezone'>) => getReport(ctx, ReportRequest.parse({ ...input, timezone }));
  const metrics = [...DASHBOARD_METRICS];
  const [t, y, w, hours, days, topChannels, topDemand] = await Promise.all([
    run({ startDate: today, endDate: today, metrics }),
    run({ startDate: yesterday, endDate: yesterday, metrics }),
    run({ startDate: weekStart, endDate: today, metrics }),
    run({ startDate: yesterday, endDate: today, dimensions: ['hour'], metrics: ['revenue', 'imps'] }),
    run({ startDate: weekStart, endDate: today, dimensions: ['date'], metrics: ['revenue', 'cost', 'profit', 'imps'] }),
    run({ startDate: weekStart, endDate: today, dimensions: ['channel'], metrics: ['revenue', 'imps', 'fill'], sort: { by: 'revenue', order: 'desc' }, limit: 5 }),
    run({ startDate: weekStart, endDate: today, dimensions: ['tag'], metrics: ['revenue', 'imps', 'fill'], sort: { by: 'revenue', order: 'desc' }, limit: 5 }),
  ]);
  const rowsOnly = (rows: typeof t) => rows.filter((r) => !r.total);
  return {
    today, yesterday, weekStart, timezone,
    totals: { today: t.at(-1)!, yesterday: y.at(-1)!, last7: w.at(-1)! },
    hours: rowsOnly(hours), days: rowsOnly(days), topChannels: rowsOnly(topChannels), topDemand: rowsOnly(topDemand),
  };
}
