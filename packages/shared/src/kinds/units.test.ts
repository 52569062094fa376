import { describe, expect, expectTypeOf, it } from 'vitest';
import { type CpmPrice, type Price, type RevsharePrice, underLimit } from '../entities/common.js';
import { fieldErrors } from '../schemas/common.js';
import { CampaignInput, type CampaignRow, flightWindow, inFlight } from './campaigns.js';
import { ChannelInput } from './channels.js';
import { CreativeInput } from './creatives.js';
import { SupplierInput } from './sups.js';
import { type DemandTagRow, TagInput } from './tags.js';

const errorsOf = (r: { success: boolean; error?: unknown }) =>
  r.success ? [] : fieldErrors(r.error as Parameters<typeof fieldErrors>[0]).map((e) => `${e.field}: ${e.message}`);
const vast = { name: 't', vastUrl: 'https://ads.example.com/vast' };

describe('explicit units', () => {
  it('types a price by its unit: a CPM has no percent, a share has no cpm', () => {
    expectTypeOf<DemandTagRow['price']>().toEqualTypeOf<Price>();
    expectTypeOf<Extract<Price, { type: 'cpm' }>>().toEqualTypeOf<CpmPrice>();
    expectTypeOf<CpmPrice>().not.toHaveProperty('percent');
    expectTypeOf<RevsharePrice>().not.toHaveProperty('cpm');
    // @ts-expect-error a CPM price cannot carry a percent
    const wrong: Price = { type: 'cpm', percent: 80 };
    expect(TagInput.safeParse({ ...vast, price: wrong }).success).toBe(false);
  });

  it('refuses a price whose amount does not match its type', () => {
    expect(errorsOf(TagInput.safeParse({ ...vast, price: { type: 'revshare', percent: 120 } }))).toEqual([
      'price.percent: must be between 0 and 100',
    ]);
    expect(errorsOf(TagInput.safeParse({ ...vast, price: { type: 'cpm', cpm: 2.5 } }))).toEqual([
      'price.cpm: must be a whole number of micro-dollars',
    ]);
    expect(errorsOf(TagInput.safeParse({ ...vast, price: 6_500_000 }))[0]).toMatch(/^price: /);
    expect(ChannelInput.parse({ name: 'c', payout: { type: 'cpm', cpm: 4_500_000 } }).payout).toEqual({
      type: 'cpm',
      cpm: 4_500_000,
    });
    expect(ChannelInput.parse({ name: 'c' }).payout).toEqual({ type: 'revshare', percent: 70 });
  });

  it("says 'unlimited' for caps and budgets by default, and keeps 0 as a real zero", () => {
    const tag = TagInput.parse(vast);
    expect([tag.qpsLimit, tag.dailyRequestCap, tag.dailyImpCap]).toEqual(['unlimited', 'unlimited', 'unlimited']);
    expect(TagInput.parse({ ...vast, dailyImpCap: 0 }).dailyImpCap).toBe(0);
    expect(SupplierInput.parse({ name: 's', qpsLimit: 'unlimited' }).qpsLimit).toBe('unlimited');
    expect(errorsOf(SupplierInput.safeParse({ name: 's', qpsLimit: 'lots' }))[0]).toMatch(/^qpsLimit: /);
    expect(underLimit(10_000, 'unlimited')).toBe(true);
    expect(underLimit(0, 0)).toBe(false);
    expect(underLimit(9, 10)).toBe(true);
    expectTypeOf<CampaignRow['totalBudget']>().toEqualTypeOf<number | 'unlimited'>();
  });

  it('keeps a daily budget within a total budget unless the total is unlimited', () => {
    const base = { name: 'c', startDate: '2026-11-01', bidCpm: 5_000_000, channelScope: 'all' };
    expect(errorsOf(CampaignInput.safeParse({ ...base, totalBudget: 100, dailyBudget: 'unlimited' }))).toEqual([]);
    expect(errorsOf(CampaignInput.safeParse({ ...base, totalBudget: 'unlimited', dailyBudget: 200 }))).toEqual([]);
    expect(errorsOf(CampaignInput.safeParse({ ...base, totalBudget: 100, dailyBudget: 200 }))).toEqual([
      'dailyBudget: must not exceed the total budget',
    ]);
  });

  it('keeps creative domains and IAB categories as lists, checked against the IAB list', () => {
    const c = { name: 'v', videoSource: 'vast', vastUrl: 'https://vast.example/tag' };
    expect(
      CreativeInput.parse({ ...c, adomain: ['Brand.Example', 'brand.example'], iabCategories: ['IAB2-1'] }),
    ).toMatchObject({ adomain: ['brand.example'], iabCategories: ['IAB2-1'] });
    expect(errorsOf(CreativeInput.safeParse({ ...c, iabCategories: ['IAB99'] }))).toEqual([
      'iabCategories: IAB99 is not a known IAB category',
    ]);
    expect(errorsOf(CreativeInput.safeParse({ ...c, adomain: ['not a domain'] }))[0]).toMatch(/^adomain\.0: /);
  });
});

describe('flight days', () => {
  it("start and end in the tenant's time zone", () => {
    const w = flightWindow('2026-11-01', '2026-11-30', -5);
    expect(new Date(w.startMs!).toISOString()).toBe('2026-11-01T05:00:00.000Z');
    expect(new Date(w.endMs!).toISOString()).toBe('2026-12-01T05:00:00.000Z');
    expect(inFlight(w, Date.parse('2026-11-01T04:59:59Z'))).toBe(false);
    expect(inFlight(w, Date.parse('2026-12-01T04:59:59Z'))).toBe(true);
    expect(inFlight(w, Date.parse('2026-12-01T05:00:00Z'))).toBe(false);
    const tokyo = flightWindow('2026-11-01', null, 9);
    expect(new Date(tokyo.startMs!).toISOString()).toBe('2026-10-31T15:00:00.000Z');
    expect(inFlight(tokyo, Date.parse('2099-01-01T00:00:00Z'))).toBe(true);
  });
});
