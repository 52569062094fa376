import { describe, expect, it } from 'vitest';
import { type ReportRow } from '@adplane/shared';
import { topListRequest, topListsFor, topRows } from './topLists.js';

const titles = (type: Parameters<typeof topListsFor>[0], mode: Parameters<typeof topListsFor>[1]) => topListsFor(type, mode).map((l) => l.title);

describe('the dashboard top lists, in the words of the view', () => {
  it('SSP: channels and demand tags, from the dashboard answer', () => {
    expect(titles('demand', 'ssp')).toEqual(['Top channels, last 7 days', 'Top demand tags, last 7 days']);
    expect(topListsFor('admin', 'ssp').map((l) => l.fromAnswer)).toEqual(['topChannels', 'topDemand']);
  });

  it('DSP: campaigns and suppliers, never channels or demand tags', () => {
    for (const type of ['demand', 'admin'] as const) {
      const lists = topListsFor(type, 'dsp');
      expect(lists.map((l) => l.title)).toEqual(['Top campaigns, last 7 days', 'Top suppliers, last 7 days']);
      expect(lists.map((l) => l.dimension)).toEqual(['campaign', 'supplier']);
      expect(lists.map((l) => l.testId)).toEqual(['dashboard-top-campaigns', 'dashboard-top-suppliers']);
      expect(lists.some((l) => /channel|demand tag/i.test(l.title))).toBe(false);
    }
  });

  it("a subpublisher's and an advertiser's own lists, whatever the stored view", () => {
    for (const mode of ['ssp', 'dsp'] as const) {
      expect(titles('sub', mode)).toEqual(['Your channels, last 7 days']);
      expect(titles('adv', mode)).toEqual(['Your campaigns, last 7 days', 'Your demand tags, last 7 days']);
    }
    expect(topListsFor('adv', 'ssp').map((l) => l.revenueLabel)).toEqual(['Spend', 'Spend']);
  });

  it('a DSP list is the week of the answer by revenue, with a row to spare for the rows without the entity', () => {
    const [campaigns, suppliers] = topListsFor('demand', 'dsp');
    expect(topListRequest(campaigns, { weekStart: '2026-11-01', today: '2026-11-07', timezone: -5 })).toEqual({
      startDate: '2026-11-01', endDate: '2026-11-07', timezone: -5, dimensions: ['campaign'], metrics: ['revenue', 'imps', 'ecpm'], sort: { by: 'revenue', order: 'desc' }, limit: 6,
    });
    expect(topListRequest(suppliers, { weekStart: '2026-11-01', today: '2026-11-07', timezone: 0 }).metrics).toEqual(['revenue', 'imps', 'fill']);
  });

  it('leaves out the totals row and the row without a supplier, and keeps five', () => {
    const rows: ReportRow[] = [{ supplier: 0, revenue: 9 }, ...[1, 2, 3, 4, 5, 6].map((id) => ({ supplier: id, revenue: 10 - id })), { total: true, revenue: 50 }];
    expect(topRows(rows, 'supplier').map((r) => r.supplier)).toEqual([1, 2, 3, 4, 5]);
  });
});
