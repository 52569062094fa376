/** The dashboard and finance answers (GET /api/dashboard, GET /api/finance), shared by server and console. */
import { z } from 'zod';
import { type ReportRow } from './report.js';

export const DASHBOARD_METRICS = ['revenue', 'cost', 'profit', 'imps', 'fill', 'reqs', 'ecpm'] as const;

/**
 * The top lists a dashboard shows, by who is looking: the tenant and admins their supply and demand,
 * a subpublisher its channels, an advertiser its campaigns and demand tags.
 */
export const DASHBOARD_TOPS = ['channel', 'tag', 'campaign'] as const;
export type DashboardTop = (typeof DASHBOARD_TOPS)[number];

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
  /** Revenue and impressions by day over the last 7 days. */
  days: ReportRow[];
  /** The top lists of the week, by revenue; a list the user's dashboard does not show is empty. */
  topChannels: ReportRow[];
  topDemand: ReportRow[];
  topCampaigns: ReportRow[];
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
