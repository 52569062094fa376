import { describe, expect, it } from 'vitest';
import { ReportRequest } from '@adplane/shared';
import { marketReportForm, presetRange, toRequest } from './reportState.js';

// 2026-11-23 02:00 UTC: still the 22nd at UTC-5.
const NOW = Date.parse('2026-11-23T02:00:00Z');

describe('report form', () => {
  it('computes presets in the user time zone', () => {
    expect(presetRange('today', 0, NOW)).toEqual({ startDate: '2026-11-23', endDate: '2026-11-23' });
    expect(presetRange('today', -5, NOW)).toEqual({ startDate: '2026-11-22', endDate: '2026-11-22' });
    expect(presetRange('last7', 0, NOW)).toEqual({ startDate: '2026-11-17', endDate: '2026-11-23' });
    expect(presetRange('thisMonth', 3, NOW)).toEqual({ startDate: '2026-11-01', endDate: '2026-11-23' });
    expect(presetRange('lastMonth', 0, NOW)).toEqual({ startDate: '2026-10-01', endDate: '2026-10-31' });
  });

  it('builds the market report exactly as its helper is described (reportState.ts)', () => {
    const request = ReportRequest.parse(toRequest(marketReportForm(-5, NOW)));
    expect(request).toEqual({
      startDate: '2026-11-22',
      endDate: '2026-11-22',
      timezone: -5,
      dimensions: ['marketplace_name'],
      metrics: ['rev_m', 'rev_md', 'imps', 'reqs', 'opps', 'fill'],
      filters: {},
      sort: { by: 'rev_m', order: 'desc' },
      hideErrors: true,
    });
  });
});
