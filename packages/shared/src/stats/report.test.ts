import { describe, expect, it } from 'vitest';
import { REPORT_MAX_ROWS, ReportRequest } from './report.js';

const base = { startDate: '2026-11-01', endDate: '2026-11-02', metrics: ['imps'] };
const limitIssues = (limit: unknown) => {
  const parsed = ReportRequest.safeParse({ ...base, limit });
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('a report limit', () => {
  it('takes 0 (no limit) to the most rows, and refuses a number outside with the range on the field', () => {
    expect(limitIssues(0)).toEqual([]);
    expect(limitIssues(REPORT_MAX_ROWS)).toEqual([]);
    expect(limitIssues(-1)).toEqual([`limit: must be between 0 and ${REPORT_MAX_ROWS} rows`]);
    expect(limitIssues(REPORT_MAX_ROWS + 1)).toEqual([`limit: must be between 0 and ${REPORT_MAX_ROWS} rows`]);
    expect(limitIssues(2.5)).toEqual(['limit: must be a whole number of rows']);
  });
});
