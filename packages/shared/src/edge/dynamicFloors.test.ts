import { describe, expect, it } from 'vitest';
import { ChannelInput, channelFloorMode } from '../kinds/channels.js';
import {
  type ClearingPriceCell,
  computeFloorTable,
  DynamicFloorSettings,
  floorRulesOfTable,
  weightedPercentile,
} from './dynamicFloors.js';
import { compileFloorRules, floorInForceText, matchFloor } from './floorRules.js';

const usd = (n: number) => Math.round(n * 1_000_000);
const cell = (country: string, device: string, impressions: number, cpm: number): ClearingPriceCell => ({
  country,
  device,
  impressions,
  cpm: usd(cpm),
});
const issues = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.success ? [] : r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

describe('dynamic floors: the percentile of impressions at their clearing prices', () => {
  it('is the price of the impression at the rank, each group at its price (nearest rank)', () => {
    const prices = [cell('US', 'mobile', 10, 4), cell('US', 'mobile', 30, 8), cell('US', 'mobile', 20, 6)];
    // 60 impressions: $4 x 10, $6 x 20, $8 x 30
    expect(weightedPercentile(prices, 10)).toBe(usd(4));
    expect(weightedPercentile(prices, 17)).toBe(usd(6)); // rank 11
    expect(weightedPercentile(prices, 50)).toBe(usd(6)); // rank 30
    expect(weightedPercentile(prices, 51)).toBe(usd(8)); // rank 31
    expect(weightedPercentile(prices, 99)).toBe(usd(8));
    expect(weightedPercentile([], 50)).toBeNull();
  });

  const settings = DynamicFloorSettings.parse({ percentile: 50, minCpm: usd(2), maxCpm: usd(9), minImpressions: 50 });
  const prices = [
    cell('US', 'mobile', 40, 3),
    cell('US', 'mobile', 40, 5),
    cell('US', 'desktop', 30, 12),
    cell('DE', 'mobile', 20, 1),
    cell('', 'mobile', 100, 4),
  ];
  const table = computeFloorTable(settings, usd(1.5), prices, '2026-11-29T10:01:00.000Z');

  it('keeps a floor per country and device at every level with enough impressions, clamped to the bounds', () => {
    expect(table.fields).toEqual(['country', 'deviceType']);
    expect(table.impressions).toBe(230);
    expect(
      Object.fromEntries(table.cells.map((c) => [c.key, [c.floorCpm, c.measuredCpm, c.impressions, c.clamped]])),
    ).toEqual({
      // every mobile impression, the unknown country's too: 200 (20 at $1, 40 at $3, 100 at $4, 40 at $5)
      '*|mobile': [usd(4), usd(4), 200, null],
      // US on any device: 110 (40 at $3, 40 at $5, 30 at $12)
      'us|*': [usd(5), usd(5), 110, null],
      'us|mobile': [usd(3), usd(3), 80, null],
      // DE (20) and US desktop (30) and desktop anywhere (30) are under 50 impressions: no floor of their own
    });
    expect(table.default).toEqual({ key: '*', floorCpm: usd(4), measuredCpm: usd(4), impressions: 230, clamped: null });
  });

  it('is matched as a floor rule set: the finest floor a request has, else a coarser one, else the default', () => {
    const rules = compileFloorRules(floorRulesOfTable(table));
    expect(matchFloor(rules, { country: 'US', deviceType: 'mobile' })).toEqual({ rule: 'us|mobile', floorCpm: usd(3) });
    expect(matchFloor(rules, { country: 'US', deviceType: 'desktop' })).toEqual({ rule: 'us|*', floorCpm: usd(5) });
    expect(matchFloor(rules, { country: 'DE', deviceType: 'mobile' })).toEqual({ rule: '*|mobile', floorCpm: usd(4) });
    expect(matchFloor(rules, { country: 'FR', deviceType: 'smarttv' })).toEqual({ rule: null, floorCpm: usd(4) });
  });

  it('clamps to the bounds, and with too few impressions falls back to the channel floor within them', () => {
    const bounded = DynamicFloorSettings.parse({ percentile: 90, minCpm: usd(2), maxCpm: usd(4), minImpressions: 1 });
    const t = computeFloorTable(bounded, usd(1.5), [cell('US', 'mobile', 9, 1), cell('US', 'mobile', 1, 30)], 'x');
    expect(t.default).toMatchObject({ floorCpm: usd(2), measuredCpm: usd(1), clamped: 'min' });
    const t99 = computeFloorTable(
      { ...bounded, percentile: 99 },
      usd(1.5),
      [cell('US', 'mobile', 9, 1), cell('US', 'mobile', 1, 30)],
      'x',
    );
    expect(t99.default).toMatchObject({ floorCpm: usd(4), measuredCpm: usd(30), clamped: 'max' });
    const few = computeFloorTable({ ...bounded, minImpressions: 100 }, usd(1.5), [cell('US', 'mobile', 9, 1)], 'x');
    expect(few.cells).toEqual([]);
    expect(few.default).toEqual({ key: '*', floorCpm: usd(2), measuredCpm: null, impressions: 9, clamped: 'min' });
    // no dimensions: one floor for the whole channel
    const whole = computeFloorTable({ ...bounded, dimensions: [] }, 0, [cell('US', 'mobile', 9, 3)], 'x');
    expect(whole).toMatchObject({ fields: ['country'], cells: [], default: { floorCpm: usd(3) } });
  });

  it('says why in words', () => {
    const why = (f: Parameters<typeof floorInForceText>[0]) => floorInForceText(f);
    const basis = { percentile: 50, windowHours: 24, minImpressions: 50, computedAt: '2026-11-29T10:01:00.000Z' };
    expect(
      why({
        source: 'dynamic',
        rule: 'us|mobile',
        floorCpm: usd(3),
        dynamic: { ...basis, impressions: 1234, measuredCpm: usd(3), clamped: null },
      }),
    ).toBe(
      "$3.00: the channel's dynamic floor for us|mobile: the 50th percentile of 1,234 impressions' clearing prices over the last 24 h ($3.00)",
    );
    expect(
      why({
        source: 'dynamic',
        rule: null,
        floorCpm: usd(2),
        dynamic: { ...basis, percentile: 21, impressions: 80, measuredCpm: usd(1), clamped: 'min' },
      }),
    ).toBe(
      "$2.00: the channel's dynamic floor: the 21st percentile of 80 impressions' clearing prices over the last 24 h ($1.00), raised to the minimum",
    );
    expect(
      why({
        source: 'dynamic',
        rule: null,
        floorCpm: usd(1.5),
        dynamic: { ...basis, impressions: 9, measuredCpm: null, clamped: null },
      }),
    ).toBe(
      "$1.50: the channel's dynamic floor: too few impressions over the last 24 h (9, a floor needs 50): the channel's floor CPM",
    );
  });
});

describe("a channel's floor mode", () => {
  it('reads a channel saved before modes by its rules, and refuses a mode without its settings, naming the field', () => {
    expect(channelFloorMode(ChannelInput.parse({ name: 'c' }))).toBe('static');
    const rules = { schema: { fields: ['country'] }, values: { us: 2 } };
    expect(channelFloorMode(ChannelInput.parse({ name: 'c', floorRules: rules }))).toBe('rules');
    expect(channelFloorMode(ChannelInput.parse({ name: 'c', floorRules: rules, floorMode: 'static' }))).toBe('static');
    expect(issues(ChannelInput.safeParse({ name: 'c', floorMode: 'rules' }))).toEqual([
      "floorRules: must be set when the floor mode is 'rules'",
    ]);
    expect(issues(ChannelInput.safeParse({ name: 'c', floorMode: 'dynamic' }))).toEqual([
      "dynamicFloor: must be set when the floor mode is 'dynamic'",
    ]);
    expect(
      issues(ChannelInput.safeParse({ name: 'c', floorMode: 'dynamic', dynamicFloor: { minCpm: 5, maxCpm: 1 } })),
    ).toEqual(['dynamicFloor.maxCpm: must not be under the minimum (minCpm)']);
    expect(
      issues(
        ChannelInput.safeParse({ name: 'c', floorMode: 'dynamic', dynamicFloor: { maxCpm: 1, dimensions: ['size'] } }),
      ),
    ).toEqual(['dynamicFloor.dimensions.0: must be one of country, deviceType']);
    expect(issues(ChannelInput.safeParse({ name: 'c', floorMode: 'fixed' }))[0]).toMatch(/^floorMode: /);
  });
});
