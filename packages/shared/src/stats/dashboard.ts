/** The dashboard and finance answers (GET /api/dashboard, GET /api/finance), shared by server and console. */
import { z } from 'zod';
import { type ReportRow } from './report.js';

export const DASHBOARD_METRICS = ['revenue', 'cost', 'profit', 'imps', 'fill', 'reqs'] as const;

export interface DashboardAnswer {
  /** Local days of the user's time zone. */
  today: string;
  yesterday: string;
  weekStart: string;
  timezone: number;
  totals: { today: ReportRow; yesterday: ReportRow; last7: ReportRow };
  /** Revenue and impressions by local hour, for today and yesterday. */
  hours: ReportRow[];
  /** Revenue and impressions by day over the last 7 days. */
  days: ReportRow[];
  topChannels: ReportRow[];
  topDemand: ReportRow[];
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
