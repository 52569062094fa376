import { describe, expect, it } from 'vitest';
import { PostbidReportRequest } from '@adplane/shared';
import { toRequest } from '../report/reportState.js';
import { defaultPostbidForm, impressionCapText, keepPostbid, reportAllowanceText } from './pbReportForm.js';

const NOW = Date.UTC(2026, 10, 23, 12);

describe('the postbid report form', () => {
  it('starts as a valid postbid request: the last 7 days by date, the IVT rate first', () => {
    const form = defaultPostbidForm(-5, NOW);
    expect(form).toMatchObject({
      startDate: '2026-11-17',
      endDate: '2026-11-23',
      timezone: -5,
      dimensions: ['date'],
      metrics: ['postbidIvtRate', 'postbidImps', 'postbidIvt'],
    });
    expect(PostbidReportRequest.safeParse(toRequest(form)).success).toBe(true);
  });

  it('keeps a reopened request to what the postbid report offers', () => {
    const kept = keepPostbid({
      ...defaultPostbidForm(0, NOW),
      dimensions: ['date', 'browser', 'country'],
      metrics: ['revenue', 'postbidIvt'],
      filters: { nofill_reason: ['x'], country: ['US'] },
      hideErrors: true,
    });
    expect(kept).toMatchObject({
      dimensions: ['date', 'country'],
      metrics: ['postbidIvt'],
      filters: { country: ['US'] },
      hideErrors: false,
    });
    expect(keepPostbid({ ...defaultPostbidForm(0, NOW), metrics: ['revenue'] }).metrics).toEqual([
      'postbidImps',
      'postbidIvt',
      'postbidIvtRate',
    ]);
    expect(PostbidReportRequest.safeParse(toRequest(kept)).success).toBe(true);
  });

  it('says the allowances in words', () => {
    expect(reportAllowanceText({ month: '2026-11', reportsSaved: 2, maxReports: 5 })).toBe(
      '2 of 5 saved in November 2026',
    );
    expect(reportAllowanceText({ month: '2026-11', reportsSaved: 3, maxReports: 0 })).toBe(
      '3 saved in November 2026 (no limit)',
    );
    expect(impressionCapText(1_000_000)).toBe('1,000,000 scanned impressions a month');
    expect(impressionCapText(0)).toBe('no monthly cap');
  });
});
