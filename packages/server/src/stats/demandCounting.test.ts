import { describe, expect, it } from 'vitest';
import { demandCountingOf } from './demandCounting.js';

describe('how a report counts requests', () => {
  const of = (dimensions: string[], filters: Record<string, (string | number)[]> = {}) =>
    demandCountingOf({ dimensions: dimensions as never, filters });

  it('counts per request without a demand dimension, by or in its filters', () => {
    expect(of([])).toEqual({ byDemand: false, noDemandRow: false });
    expect(of(['channel', 'country'], { channel: [3] })).toEqual({ byDemand: false, noDemandRow: false });
    // an empty filter filters nothing
    expect(of(['channel'], { tag: [] })).toEqual({ byDemand: false, noDemandRow: false });
  });

  it('counts per demand by any demand dimension, with a row for the requests offered to no demand', () => {
    for (const d of ['tag', 'partner', 'advertiser', 'campaign', 'creative', 'adexchange', 'deal', 'marketplace_name'])
      expect(of(['channel', d]), d).toEqual({ byDemand: true, noDemandRow: true });
  });

  it('has no such row when a filter keeps only real demand, and has it when the filter keeps "none"', () => {
    expect(of(['tag'], { tag: [7, 8] })).toEqual({ byDemand: true, noDemandRow: false });
    expect(of([], { advertiser: ['4'] })).toEqual({ byDemand: true, noDemandRow: false });
    expect(of(['channel'], { partner: ['appnexus'] })).toEqual({ byDemand: true, noDemandRow: false });
    expect(of(['tag'], { tag: [0, 7] })).toEqual({ byDemand: true, noDemandRow: true });
    expect(of(['deal'], { deal: [''] })).toEqual({ byDemand: true, noDemandRow: true });
  });
});
