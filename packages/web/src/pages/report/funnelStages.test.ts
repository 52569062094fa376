import { describe, expect, it } from 'vitest';
import { METRIC_BY_ID, ReportRequest, type ReportRow } from '@adplane/shared';
import { FUNNELS, funnelReasons, funnelReports, funnelValues } from './funnelStages.js';

const RANGE = { startDate: '2026-11-16', endDate: '2026-11-22' };

describe('fill funnel stages', () => {
  it('reads a channel from its requests and a demand tag from the times it was considered and offered', () => {
    expect(FUNNELS.channel.stages.map((s) => s.metric)).toEqual([
      'reqs',
      'opps',
      'demandCalls',
      'responses',
      'bids',
      'wins',
      'imps',
    ]);
    expect(FUNNELS.tag.stages.map((s) => s.metric)).toEqual([
      'source_reqs',
      'source_opps',
      'demandCalls',
      'responses',
      'bids',
      'wins',
      'imps',
    ]);
    for (const plan of Object.values(FUNNELS)) {
      expect(plan.stages.map((s) => s.label)).toEqual([
        'Requests',
        'Eligible',
        'Called',
        'Answered',
        'Bid',
        'Won',
        'Impressions',
      ]);
      expect([plan.requests, plan.eligible]).toEqual(plan.stages.slice(0, 2).map((s) => s.metric));
      for (const s of plan.stages) expect(METRIC_BY_ID[s.metric].format).toBe('count');
    }
  });

  it("asks the server for the stages and the reasons in the subject's own metric, filtered by the subject", () => {
    const tag = funnelReports({ dimension: 'tag', id: 42 }, RANGE, -5);
    expect(ReportRequest.parse(tag.stages)).toMatchObject({
      ...RANGE,
      timezone: -5,
      filters: { tag: [42] },
      dimensions: [],
      metrics: FUNNELS.tag.stages.map((s) => s.metric),
    });
    expect(ReportRequest.parse(tag.reasons)).toMatchObject({
      filters: { tag: [42] },
      dimensions: ['nofill_reason'],
      metrics: ['source_reqs'],
      sort: { by: 'source_reqs', order: 'desc' },
    });
    const channel = funnelReports({ dimension: 'channel', id: 7 }, RANGE, 0);
    expect(ReportRequest.parse(channel.reasons)).toMatchObject({
      filters: { channel: [7] },
      metrics: ['reqs'],
      sort: { by: 'reqs' },
    });
  });

  it('lists the reasons recorded, without the filled row and the totals, busiest first', () => {
    const rows: ReportRow[] = [
      { nofill_reason: '', source_reqs: 900 },
      { nofill_reason: 'timeout', source_reqs: 40 },
      { nofill_reason: 'targeting.country', source_reqs: 120 },
      { nofill_reason: 'filled_earlier', source_reqs: 0 },
      { total: true, source_reqs: 1060 },
    ];
    expect(funnelReasons(rows, 'tag')).toEqual([
      { reason: 'targeting.country', count: 120 },
      { reason: 'timeout', count: 40 },
    ]);
    // a channel's reasons are counted in requests: a tag's metric is not read there
    expect(funnelReasons(rows, 'channel')).toEqual([]);
    expect(funnelReasons([{ nofill_reason: 'no_bid', reqs: 5 }], 'channel')).toEqual([{ reason: 'no_bid', count: 5 }]);
  });

  it('reads each stage from the totals row', () => {
    const totals = {
      total: true,
      reqs: 10,
      opps: 9,
      source_reqs: 30,
      source_opps: 20,
      demandCalls: 18,
      responses: 15,
      bids: 6,
      wins: 4,
      imps: 3,
    };
    expect(funnelValues(totals, 'tag')).toEqual([30, 20, 18, 15, 6, 4, 3]);
    expect(funnelValues(totals, 'channel')).toEqual([10, 9, 18, 15, 6, 4, 3]);
    expect(funnelValues(null, 'tag')).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });
});
