import { describe, expect, it } from 'vitest';
import { DIMENSION_IDS } from './dimensions.js';
import { formatMetric, METRIC_IDS, METRICS, metricCsvValue, metricFromSums, systemCostMicros } from './metrics.js';
import { ReportRequest } from './report.js';

describe('metric catalogue', () => {
  it('defines each metric once, with a formula and a format', () => {
    expect(new Set(METRIC_IDS).size).toBe(METRIC_IDS.length);
    for (const m of METRICS) expect(m.formula.length).toBeGreaterThan(3);
    for (const id of [
      'reqs',
      'opps',
      'source_reqs',
      'source_opps',
      'demandCalls',
      'responses',
      'timeouts',
      'bids',
      'wins',
      'imps',
      'starts',
      'firstQuartiles',
      'midpoints',
      'thirdQuartiles',
      'completes',
      'clicks',
      'errors',
      'ivt',
      'revenue',
      'cost',
      'profit',
      'margin',
      'ecpm',
      'fill',
      'vtr',
      'ctr',
      'rev_m',
      'rev_md',
      'systemCost',
    ]) {
      expect(METRIC_IDS).toContain(id);
    }
  });

  it('formats USD and percent with 2 decimals', () => {
    expect(formatMetric('revenue', 1_234_567_890)).toBe('$1,234.57');
    expect(formatMetric('fill', 12.345)).toBe('12.35%');
    expect(formatMetric('imps', 1234)).toBe('1,234');
    expect(metricCsvValue('revenue', 2_500_000)).toBe('2.50');
    expect(metricCsvValue('margin', 33.3333)).toBe('33.33');
  });

  it('computes the system cost from the tenant prices', () => {
    // $0.01 per 1,000 reqs, $0.05 per 1,000 imps, $0.02 per 1,000 post-bid imps, 10% of $200 DSP revenue.
    const micros = systemCostMicros(
      { priceReq: 10_000, priceImp: 50_000, pricePostbid: 20_000, priceDsp: 10 },
      { reqs: 1_000_000, imps: 100_000, postbidImps: 50_000, dspRevenue: 200_000_000 },
    );
    expect(micros).toBe(10_000_000 + 5_000_000 + 1_000_000 + 20_000_000);
  });
});

describe('metrics from sums', () => {
  it('answers a money ratio in whole micro-dollars and a percent as it falls', () => {
    expect(metricFromSums('ecpm', { revenue: 3_000_000, imps: 22 })).toBe(136_363_636);
    expect(metricFromSums('ecpm', { revenue: 3_000_000, imps: 0 })).toBe(0);
    expect(metricFromSums('fill', { opps: 3, imps: 1 })).toBeCloseTo(33.333333, 5);
  });
});

describe('report request', () => {
  const base = { startDate: '2026-11-01', endDate: '2026-11-02', metrics: ['imps'] };
  const fieldsOf = (input: unknown) => {
    const r = ReportRequest.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('accepts a full request and fills defaults', () => {
    const r = ReportRequest.parse({
      ...base,
      dimensions: ['date', 'channel'],
      filters: { country: ['US'] },
      sort: { by: 'imps' },
    });
    expect(r).toMatchObject({ timezone: 0, hideErrors: false, sort: { by: 'imps', order: 'desc' } });
    expect(DIMENSION_IDS).toContain('nofill_reason');
  });

  it('names an unknown dimension, metric or filter', () => {
    expect(fieldsOf({ ...base, dimensions: ['date', 'planet'] })).toEqual(["dimensions.1: unknown dimension 'planet'"]);
    expect(fieldsOf({ ...base, metrics: ['imps', 'happiness'] })).toEqual(["metrics.1: unknown metric 'happiness'"]);
    expect(fieldsOf({ ...base, filters: { planet: ['x'] } })).toEqual(["filters.planet: unknown filter 'planet'"]);
  });

  it('reads the short names rev, eCPM, VTR and CTR as the catalogue ids, in metrics and the sort', () => {
    const r = ReportRequest.parse({
      ...base,
      metrics: ['rev', 'eCPM', 'VTR', 'CTR', 'imps'],
      sort: { by: 'rev', order: 'asc' },
    });
    expect(r.metrics).toEqual(['revenue', 'ecpm', 'vtr', 'ctr', 'imps']);
    expect(r.sort).toEqual({ by: 'revenue', order: 'asc' });
    expect(fieldsOf({ ...base, metrics: ['Rev'] })).toEqual(["metrics.0: unknown metric 'Rev'"]);
    expect(fieldsOf({ ...base, metrics: ['toString'] })).toEqual(["metrics.0: unknown metric 'toString'"]);
  });

  it('refuses bad dates, offsets and sorts', () => {
    expect(fieldsOf({ ...base, startDate: '2026-02-30' })).toEqual(['startDate: is not a real date']);
    expect(fieldsOf({ ...base, startDate: '2026-11-03' })).toEqual(['endDate: must not be before startDate']);
    expect(fieldsOf({ ...base, timezone: 13 })).toEqual(['timezone: must be between -12 and +12']);
    expect(fieldsOf({ ...base, sort: { by: 'revenue' } })).toEqual([
      "sort.by: 'revenue' is not one of the report's dimensions or metrics",
    ]);
  });
});

describe('report CSV', () => {
  it('writes ids and names, people units and the totals row', async () => {
    const { reportCsv } = await import('./csv.js');
    const csv = reportCsv(
      ['date', 'channel'],
      ['imps', 'revenue', 'fill'],
      [
        { date: '2026-11-01', channel: 3, channel_name: 'Sports, live', imps: 10, revenue: 1_234_567, fill: 12.345 },
        { total: true, imps: 10, revenue: 1_234_567, fill: 12.345 },
      ],
    );
    expect(csv).toBe(
      'Date,Channel Id,Channel,Impressions,Revenue,Fill\n2026-11-01,3,"Sports, live",10,1.23,12.35\nTotal,,,10,1.23,12.35\n',
    );
  });
});
