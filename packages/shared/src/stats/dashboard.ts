/** The dashboard and finance answers (GET /api/dashboard, GET /api/finance), shared by server and console. */
import { z } from 'zod';
import { type Mode, MODES } from '../constants.js';
import { type UserType } from '../schemas/auth.js';
import { type MetricId } from './metrics.js';
import { type ReportRow } from './report.js';
import { isMetricVisible, type StatsViewer } from './visibility.js';

const DASHBOARD_METRICS = [
  'revenue',
  'cost',
  'profit',
  'imps',
  'fill',
  'reqs',
  'ecpm',
] as const satisfies readonly MetricId[];
export type DashboardMetric = (typeof DASHBOARD_METRICS)[number];

/** The dashboard's metrics `viewer` may see (visibility.ts): its totals carry these and no other. */
export const dashboardMetricsFor = (viewer: StatsViewer): DashboardMetric[] =>
  DASHBOARD_METRICS.filter((id) => isMetricVisible(viewer, id));

/**
 * The top lists a dashboard shows, by who is looking and in which view: the tenant and admins their
 * supply and demand in the SSP view (channels, demand tags), what they buy and from whom in the DSP
 * view (campaigns, suppliers); a subpublisher its channels, an advertiser its campaigns and demand tags.
 */
export type DashboardTop = 'channel' | 'tag' | 'campaign' | 'supplier';

/** The field of the answer that carries each top list. */
export const DASHBOARD_TOP_FIELD = {
  channel: 'topChannels',
  tag: 'topDemand',
  campaign: 'topCampaigns',
  supplier: 'topSuppliers',
} as const satisfies Record<DashboardTop, keyof DashboardAnswer>;

/**
 * The top lists of a role in a view. Only admins and demand users have a DSP view (who may be in it
 * is modeSwitchRefusal's rule, entitlements.ts); a subpublisher's and an advertiser's lists are
 * their own whatever the view.
 */
export function dashboardTopsFor(type: UserType, view: Mode): DashboardTop[] {
  if (type === 'sub') return ['channel'];
  if (type === 'adv') return ['campaign', 'tag'];
  return view === 'dsp' ? ['campaign', 'supplier'] : ['channel', 'tag'];
}

/**
 * The numbers of a top list: revenue, impressions, then a source's fill or a campaign's eCPM. A
 * viewer who may not see fill (an advertiser: the publishers' traffic is not its) reads eCPM instead.
 */
export function dashboardTopMetrics(
  viewer: StatsViewer,
  dimension: DashboardTop,
): ['revenue', 'imps', 'fill' | 'ecpm'] {
  const third = dimension === 'campaign' || !isMetricVisible(viewer, 'fill') ? 'ecpm' : 'fill';
  return ['revenue', 'imps', third];
}

/** The query of GET /api/dashboard: the console's view (SSP when absent). */
export const DashboardQuery = z.object({
  view: z.enum(MODES, { error: 'must be ssp or dsp' }).default('ssp'),
});
export type DashboardQuery = z.output<typeof DashboardQuery>;

export interface DashboardAnswer {
  /** Local days of the user's time zone. */
  today: string;
  yesterday: string;
  weekStart: string;
  timezone: number;
  /**
   * `yesterdaySoFar`: yesterday up to the local hour it is now (that hour included), what today so
   * far compares with; `yesterday`: the whole day.
   */
  totals: { today: ReportRow; yesterday: ReportRow; yesterdaySoFar: ReportRow; last7: ReportRow };
  /** Revenue and impressions by local hour, for today and yesterday. */
  hours: ReportRow[];
  /**
   * The local hour it is now on the server's clock (`YYYY-MM-DD HH:00`, as `hours` name them): still
   * being counted, so its numbers are partial; the hours after it have not begun.
   */
  hourNow: string;
  /** Revenue and impressions by day over the last 7 days. */
  days: ReportRow[];
  /**
   * The top lists of the week, by revenue (dashboardTopsFor: the role's, in the view asked); a list
   * the user's dashboard does not show in that view is empty.
   */
  topChannels: ReportRow[];
  topDemand: ReportRow[];
  topCampaigns: ReportRow[];
  topSuppliers: ReportRow[];
}

export const FinanceQuery = z.object({
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month YYYY-MM'),
});

export interface FinanceRow {
  tenantId: number;
  name: string;
  /** The tenant's own time zone: its month is billed in it. */
  timezone: number;
  priceReq: number;
  priceImp: number;
  pricePostbid: number;
  priceDsp: number;
  reqs: number;
  imps: number;
  postbidImps: number;
  revenue: number;
  systemCost: number;
}

export interface FinanceAnswer {
  month: string;
  rows: FinanceRow[];
  totals: Pick<FinanceRow, 'reqs' | 'imps' | 'postbidImps' | 'revenue' | 'systemCost'>;
}
