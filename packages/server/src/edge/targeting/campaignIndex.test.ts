import { TargetingRules } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { buildRequestContext } from '../request/context.js';
import { nextBit } from './bitset.js';
import { CampaignIndex } from './campaignIndex.js';
import { compileTargeting, refusal } from './compiledTargeting.js';

const LISTS = { apps: new Map([[7, ['com.example.tv', 'com.example.news']]]), publishers: new Map(), creatives: new Map() };
const NOW = Date.UTC(2026, 10, 23, 14, 30); // a Monday, 14:30 UTC
const HOURS = Array.from({ length: 24 }, (_, h) => h);
const RULES = [
  {},
  { countries: { mode: 'include', values: ['US'] } },
  { countries: { mode: 'exclude', values: ['US', 'GB'] } },
  { devices: { mode: 'include', values: ['mobile'] } },
  { os: { mode: 'include', values: ['windows', 'macos'] }, playerSizes: ['large'] },
  { browsers: { mode: 'exclude', values: ['chrome'] } },
  { usStates: { mode: 'include', values: ['NY', 'CA', 'OH'] } },
  { usStates: { mode: 'exclude', values: ['OH'] } },
  { dayParting: { enabled: true, timezone: 0, days: [0], hours: HOURS.filter((h) => h >= 12) } },
  { dayParting: { enabled: true, timezone: -5, days: [1, 2], hours: HOURS } },
  { iabCategories: { mode: 'include', values: ['IAB1', 'IAB17'] } },
  { iabCategories: { mode: 'exclude', values: ['IAB17'] } },
  { appLists: { mode: 'include', ids: [7] } },
  { appLists: { mode: 'exclude', ids: [7] } },
].map((r, i) => compileTargeting(i, TargetingRules.parse(r), LISTS));
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  'Roku/DVP-9.10 (519.10E04111A)',
];

describe('campaign index', () => {
  it('finds the set bits in order, across word boundaries', () => {
    const words = new Uint32Array(3);
    for (const p of [0, 31, 32, 63, 70]) words[p >>> 5]! |= 1 << (p & 31);
    const found: number[] = [];
    for (let p = nextBit(words, 0); p >= 0; p = nextBit(words, p + 1)) found.push(p);
    expect(found).toEqual([0, 31, 32, 63, 70]);
    expect(nextBit(words, 71)).toBe(-1);
    expect(nextBit(new Uint32Array(0), 0)).toBe(-1);
  });

  it('passes exactly the campaigns whose indexed rules pass, for every context, cached or not', () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ id: i, targeting: i % 7 === 6 ? null : RULES[i % RULES.length]! }));
    const index = new CampaignIndex(items, (c) => c.targeting);
    const contexts = [];
    for (const ip of ['8.8.8.8', '81.2.69.160', '1.1.1.1', '24.24.24.24']) {
      for (const ua of UAS) {
        for (const [w, cat, app] of [['320', 'IAB17', ''], ['1280', '', 'com.example.tv'], ['', 'IAB1', 'com.other.app']]) {
          for (const now of [NOW, NOW - 86_400_000, NOW + 2 * 3_600_000 - 14 * 3_600_000]) {
            contexts.push(buildRequestContext({ ip, w: w!, content_cat: cat!, app_bundle: app! }, { remoteAddress: '', userAgent: ua }, now));
          }
        }
      }
    }
    expect(new Set(contexts.map((c) => c.geo.usState)).size, 'some US states among the addresses').toBeGreaterThan(1);
    expect(new Set(contexts.map((c) => c.query.contentCategory)).size).toBe(3);
    for (const ctx of contexts) {
      const expected = items.filter((c) => !c.targeting || refusal(c.targeting, ctx) === null).map((c) => c.id);
      for (let round = 0; round < 2; round++) {
        expect(index.candidates(ctx).map((c) => c.id)).toEqual(expected);
        expect(index.passing(ctx).count).toBe(expected.length);
      }
    }
  });
});
