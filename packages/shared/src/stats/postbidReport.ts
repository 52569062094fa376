/**
 * The postbid report (`/pbReport/{id?}`, POST /api/pbrun, docs/reports.md): the share of impressions
 * the post-bid pixels' vendors flagged as invalid traffic, by dimension. The same request as any
 * report, limited to the post-bid metrics and to the dimensions an impression row carries (the
 * impression beacon and the vendors' verdicts are counted on the impression's own dimensions, which
 * have no region, browser or publisher id and no no-fill reason).
 */
import { type AuthUser } from '../schemas/auth.js';
import { type DimensionId } from './dimensions.js';
import { type MetricId } from './metrics.js';
import { ReportRequest } from './report.js';

export const POSTBID_METRICS = ['postbidImps', 'postbidIvt', 'postbidIvtRate'] as const satisfies readonly MetricId[];
export const POSTBID_DIMENSIONS = [
  'date',
  'hour',
  'tenant',
  'channel',
  'subpublisher',
  'arm',
  'tag',
  'partner',
  'advertiser',
  'campaign',
  'creative',
  'supplier',
  'adexchange',
  'deal',
  'marketplace_name',
  'country',
  'device',
  'os',
  'app_bundle',
  'domain',
  'integration',
] as const satisfies readonly DimensionId[];

const METRIC_SET = new Set<string>(POSTBID_METRICS);
const DIMENSION_SET = new Set<string>(POSTBID_DIMENSIONS);

export const PostbidReportRequest = ReportRequest.superRefine((r, ctx) => {
  r.metrics.forEach((m, i) => {
    if (!METRIC_SET.has(m))
      ctx.addIssue({
        code: 'custom',
        path: ['metrics', i],
        message: `'${m}' is not a post-bid metric (${POSTBID_METRICS.join(', ')})`,
      });
  });
  r.dimensions.forEach((d, i) => {
    if (!DIMENSION_SET.has(d))
      ctx.addIssue({ code: 'custom', path: ['dimensions', i], message: `post-bid results are not counted by '${d}'` });
  });
  for (const key of Object.keys(r.filters)) {
    if (!DIMENSION_SET.has(key))
      ctx.addIssue({ code: 'custom', path: ['filters', key], message: `post-bid results are not counted by '${key}'` });
  }
});

/** Who may use the postbid report: admins, and users the admin granted post-bid (showPostbidPix or showPostbidWh). Null: allowed. */
export function postbidReportRefusal(user: Pick<AuthUser, 'type' | 'showPostbidPix' | 'showPostbidWh'>): string | null {
  if (user.type === 'admin') return null;
  if (user.type === 'sdk') return 'Reports are not available to this user';
  return user.showPostbidPix || user.showPostbidWh
    ? null
    : 'The postbid report needs post-bid pixels, which an admin has not enabled for this account';
}

/** What the postbid report page shows beside the form (GET /api/pbSetup). */
export interface PostbidSetup {
  /** 'YYYY-MM' (UTC): the month the allowances count. */
  month: string;
  /** Postbid reports the account saved this month, and the admin's postbidMaxReps (0: no limit). */
  reportsSaved: number;
  maxReports: number;
  /** The admin's postbidMaxImps: post-bid impressions per account and month (0: no cap). */
  maxImps: number;
  /** Where the account's vendors send their verdicts (null for an admin, who has no account of its own). */
  postbackUrl: string | null;
}
