import { describe, expect, it } from 'vitest';
import { geoSets, passesGeo, PLAYER_SIZES, playerSizeOf, TargetingRules } from '../entities/targeting.js';
import { fieldErrors } from '../schemas/common.js';
import { creativeServes, servesWith } from './serving.js';
import { skippedRowCount, type SkipSink } from './storedRow.js';
import { RESOURCE_KINDS, RESOURCES } from '../entities/registry.js';
import { parseDemandTagRow } from './tags.js';
import { TargetingInput } from './targetings.js';

const errorsOf = (r: { success: boolean; error?: unknown }) =>
  r.success ? [] : fieldErrors(r.error as Parameters<typeof fieldErrors>[0]).map((e) => `${e.field}: ${e.message}`);
const rules = (r: Record<string, unknown>) => TargetingRules.parse(r);

describe('targeting codes', () => {
  it('refuses platform codes the reference data does not know, naming the field', () => {
    expect(errorsOf(TargetingInput.safeParse({ name: 't', rules: { os: { values: ['Windoze'] } } }))).toEqual([
      'rules.os: Windoze is not a known operating system',
    ]);
    expect(errorsOf(TargetingInput.safeParse({ name: 't', rules: { devices: { values: ['SmartTV'] } } }))).toEqual([
      'rules.devices: SmartTV is not a known device type',
    ]);
    expect(
      errorsOf(TargetingInput.safeParse({ name: 't', rules: { browsers: { values: ['netscape', 'mosaic'] } } })),
    ).toEqual(['rules.browsers: netscape, mosaic are not known (browser family)']);
    expect(
      errorsOf(TargetingInput.safeParse({ name: 't', rules: { tvFamilies: { values: ['betamax'] } } }))[0],
    ).toMatch(/^rules\.tvFamilies: /);
    expect(errorsOf(TargetingInput.safeParse({ name: 't', rules: { usStates: { values: ['ZZ'] } } }))[0]).toMatch(
      /^rules\.usStates: /,
    );
    expect(errorsOf(TargetingInput.safeParse({ name: 't', rules: { regions: { values: ['MARS'] } } }))[0]).toMatch(
      /^rules\.regions: /,
    );
    expect(
      errorsOf(
        TargetingInput.safeParse({
          name: 't',
          rules: { os: { values: ['roku', 'tvos'] }, tvFamilies: { values: ['roku'] } },
        }),
      ),
    ).toEqual([]);
  });

  it('takes blocked ad categories as IAB 1.0 codes, tier-1 or sub-category, deduped, and names an unknown one', () => {
    expect(rules({}).blockedAdCategories).toEqual([]);
    expect(rules({ blockedAdCategories: ['IAB7', ' IAB25-3 ', 'IAB7'] }).blockedAdCategories).toEqual([
      'IAB7',
      'IAB25-3',
    ]);
    expect(
      errorsOf(TargetingInput.safeParse({ name: 't', rules: { blockedAdCategories: ['IAB7', 'IAB99'] } })),
    ).toEqual(['rules.blockedAdCategories: IAB99 is not a known IAB category']);
    expect(
      errorsOf(TargetingInput.safeParse({ name: 't', rules: { blockedAdCategories: ['IAB7-999', 'gambling'] } })),
    ).toEqual(['rules.blockedAdCategories: IAB7-999, gambling are not known (IAB category)']);
    // a list, not a filter: no include/exclude to choose
    expect(
      TargetingInput.safeParse({ name: 't', rules: { blockedAdCategories: { mode: 'exclude', values: ['IAB7'] } } })
        .success,
    ).toBe(false);
  });
});

describe('the geo rule', () => {
  it('includes countries and the countries of included regions; any when both are empty', () => {
    const sets = geoSets(rules({ countries: { values: ['BR'] }, regions: { values: ['NAM'] } }));
    expect(['US', 'CA', 'BR'].map((c) => passesGeo(sets, c))).toEqual([true, true, true]);
    expect(passesGeo(sets, 'FR')).toBe(false);
    expect(passesGeo(geoSets(rules({})), 'FR')).toBe(true);
  });

  it('excludes countries and the countries of excluded regions, also under an empty include', () => {
    const sets = geoSets(
      rules({ regions: { mode: 'exclude', values: ['EMEA'] }, countries: { mode: 'exclude', values: ['JP'] } }),
    );
    expect(['FR', 'JP', 'US'].map((c) => passesGeo(sets, c))).toEqual([false, false, true]);
    const both = geoSets(rules({ regions: { values: ['APAC'] }, countries: { mode: 'exclude', values: ['SG'] } }));
    expect(['SG', 'JP'].map((c) => passesGeo(both, c))).toEqual([false, true]);
  });

  it('holds US states to the US, and an unknown country fails any include', () => {
    const inStates = geoSets(rules({ usStates: { values: ['CA', 'NY'] } }));
    expect(passesGeo(inStates, 'US', 'CA')).toBe(true);
    expect(passesGeo(inStates, 'US', 'TX')).toBe(false);
    expect(passesGeo(inStates, 'CA', null)).toBe(false);
    const outStates = geoSets(rules({ usStates: { mode: 'exclude', values: ['TX'] } }));
    expect([passesGeo(outStates, 'US', 'TX'), passesGeo(outStates, 'US', 'CA'), passesGeo(outStates, 'MX')]).toEqual([
      false,
      true,
      true,
    ]);
    expect(passesGeo(geoSets(rules({ countries: { values: ['US'] } })), null)).toBe(false);
    expect(passesGeo(geoSets(rules({ countries: { mode: 'exclude', values: ['US'] } })), null)).toBe(true);
  });
});

describe('player sizes', () => {
  it('cover every width once, by numeric bounds', () => {
    expect([0, 399, 400, 639, 640, 1279, 1280, 7680].map(playerSizeOf)).toEqual([
      'small',
      'small',
      'medium',
      'medium',
      'large',
      'large',
      'xlarge',
      'xlarge',
    ]);
    for (let i = 1; i < PLAYER_SIZES.length; i++) expect(PLAYER_SIZES[i].minWidth).toBe(PLAYER_SIZES[i - 1].maxWidth);
  });
});

describe('serving rules', () => {
  const live = { status: 1, archived: false };
  it('serves a row only when it and every account above it is live', () => {
    expect(servesWith(live, { tenant: live })).toBe(true);
    expect(servesWith({ status: 0, archived: false }, { tenant: live })).toBe(false);
    expect(servesWith({ status: 1, archived: true }, { tenant: live })).toBe(false);
    expect(servesWith(live, { tenant: { status: 0, archived: false } })).toBe(false);
    expect(servesWith(live, { tenant: live, advertiser: { status: 1, archived: true } })).toBe(false);
    expect(servesWith(live, { tenant: live, subpublisher: null })).toBe(false);
    expect(servesWith(live, { tenant: null })).toBe(false);
  });

  it('serves only approved creatives', () => {
    expect(creativeServes({ ...live, approval: 'approved' }, { tenant: live })).toBe(true);
    expect(creativeServes({ ...live, approval: 'pending' }, { tenant: live })).toBe(false);
    expect(creativeServes({ ...live, approval: 'rejected' }, { tenant: live })).toBe(false);
  });
});

describe('typed parsers', () => {
  it('skips and counts a stored row the current schema rejects', () => {
    const sink: SkipSink = { skipped: [] };
    const before = skippedRowCount('tags');
    const row = { id: 7, tenantId: 2, uid: 'u7', status: 1, archived: false, name: 'Old tag' };
    const good = parseDemandTagRow(
      {
        ...row,
        data: { integration: 'RTB', endpoint: 'https://bid.example/rtb', price: { type: 'cpm', cpm: 1_000_000 } },
      },
      sink,
    );
    expect(good).toMatchObject({
      id: 7,
      tenantId: 2,
      uid: 'u7',
      name: 'Old tag',
      status: 1,
      qpsLimit: 'unlimited',
      price: { type: 'cpm', cpm: 1_000_000 },
    });
    expect(
      parseDemandTagRow(
        { ...row, data: { integration: 'RTB', endpoint: 'https://bid.example/rtb', pricing: 'cpm', price: 1_000_000 } },
        sink,
      ),
    ).toBeNull();
    expect(parseDemandTagRow({ ...row, data: 'not a document' }, sink)).toBeNull();
    expect(skippedRowCount('tags')).toBe(before + 2);
    expect(sink.skipped).toEqual([
      { kind: 'tags', id: 7, field: 'price', message: expect.any(String) },
      { kind: 'tags', id: 7, field: 'vastUrl', message: 'must be an http(s) VAST URL' },
    ]);
  });
});

describe('every kind skips and counts a stored row a newer rule rejects', () => {
  /** A document each kind's current schema refuses, as an older rule (or a damaged row) left it. */
  const REJECTED: Record<string, Record<string, unknown>> = {
    channels: { payout: { type: 'revshare', value: 70 } },
    tags: { integration: 'RTB', endpoint: 'https://bid.example/rtb', pricing: 'revshare', price: 80 },
    sups: { qpsLimit: -1 },
    campaigns: { startDate: '2026-11-01', bidCpm: 1, totalBudget: 'none', channelScope: 'all' },
    creatives: { videoSource: 'vast', vastUrl: 'https://vast.example/t', iabCategories: ['IAB99'] },
    adexchanges: { endpoint: 'ftp://exchange.example' },
    deals: { dealId: 'not a deal id!' },
    supplydeals: { dealId: 'SD-1', advertiserDomains: ['not a domain!'] },
    targetings: { rules: { os: { values: ['Windoze'] } } },
    applists: { items: ['not a bundle!'] },
    publists: { items: ['not a domain!'] },
    crelists: { items: ['not an id!'] },
    iplists: { items: ['300.1.2.3'] },
    ivts: { vendor: 'v', urlTemplate: 'https://p.example/?x={{secret}}' },
    tooltips: { key: 'nokey', text: 'x' },
    sdkapps: { bundle: 'com.example.app', platform: 'palm' },
  };
  const kinds = RESOURCE_KINDS.filter((k) => RESOURCES[k].parseRow);

  it('covers every stored kind', () => {
    expect(kinds.sort()).toEqual(Object.keys(REJECTED).sort());
  });

  it.each(kinds)('%s', (kind) => {
    const parse = RESOURCES[kind].parseRow!;
    const sink: SkipSink = { skipped: [] };
    const before = skippedRowCount(kind);
    expect(
      parse({ id: 1, tenantId: 2, uid: null, status: 1, archived: false, name: 'old', data: REJECTED[kind] }, sink),
    ).toBeNull();
    expect(skippedRowCount(kind)).toBe(before + 1);
    expect(sink.skipped).toHaveLength(1);
    expect(sink.skipped[0]).toMatchObject({ kind, id: 1 });
  });
});
