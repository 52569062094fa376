import { POSTBID_DIMENSIONS, POSTBID_METRICS, type PostbidSetup } from '@adplane/shared';
import { defaultForm, type ReportForm } from '../report/reportState.js';

/** A new postbid report: the last 7 days by date, every post-bid metric, sorted as it comes. */
export function defaultPostbidForm(timezone: number, now = Date.now()): ReportForm {
  // the rate first: the chart draws the first metric, and the rate is what the report is read for
  return {
    ...defaultForm(timezone, now),
    dimensions: ['date'],
    metrics: ['postbidIvtRate', 'postbidImps', 'postbidIvt'],
  };
}

/** A saved request opened again, kept to what the postbid report offers (a hand-edited one may hold more). */
export function keepPostbid(form: ReportForm): ReportForm {
  const dims = new Set<string>(POSTBID_DIMENSIONS);
  const metrics = new Set<string>(POSTBID_METRICS);
  const kept = form.metrics.filter((m) => metrics.has(m));
  return {
    ...form,
    dimensions: form.dimensions.filter((d) => dims.has(d)),
    metrics: kept.length ? kept : [...POSTBID_METRICS],
    filters: Object.fromEntries(Object.entries(form.filters).filter(([k]) => dims.has(k))) as ReportForm['filters'],
    hideErrors: false,
  };
}

/** "2 of 5 saved in November 2026", "3 saved in November 2026 (no limit)". */
export function reportAllowanceText(setup: Pick<PostbidSetup, 'month' | 'reportsSaved' | 'maxReports'>): string {
  const month = new Date(`${setup.month}-01T00:00:00Z`).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return setup.maxReports > 0
    ? `${setup.reportsSaved} of ${setup.maxReports} saved in ${month}`
    : `${setup.reportsSaved} saved in ${month} (no limit)`;
}

/** "1,000,000 a month per account", or no cap. */
export function impressionCapText(maxImps: number): string {
  return maxImps > 0 ? `${maxImps.toLocaleString('en-US')} scanned impressions a month` : 'no monthly cap';
}
