import { campaignRunsOn, CHANNEL_SCOPES, TargetingRules } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { buildRequestContext } from '../request/context.js';
import { nextBit } from './bitset.js';
import { CampaignIndex } from './campaignIndex.js';
import { type ChannelAssignment, channelAssignment, runsOn } from './channelAssignment.js';
import { type CompiledTargeting, compileTargeting, refusal, targetingMiss } from './compiledTargeting.js';
import { compileIpList } from './ipLists.js';

const LISTS = {
  apps: new Map([[7, ['com.example.tv', 'com.example.news']]]),
  publishers: new Map(),
  creatives: new Map(),
  ips: new Map([[9, compileIpList(9, 'Office', ['1.1.1.0/24', '2001:db8::/32'])]]),
};
const NOW = Date.UTC(2026, 10, 23, 14, 30); // a Monday, 14:30 UTC
/** The request's channel (the campaigns of these tests but the channel ones run on every channel). */
const CHANNEL = 1;
const HOURS = Array.from({ length: 24 }, (_, h) => h);
const RAW_RULES: object[] = [
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
  { iabCategories: { mode: 'include', values: ['IAB1-5'] } },
  { iabCategories: { mode: 'exclude', values: ['IAB1', 'IAB7-1'] } },
  { iabCategories: { mode: 'include', values: ['IAB2', 'IAB7-1'] }, countries: { mode: 'include', values: ['US'] } },
  { appLists: { mode: 'include', ids: [7] } },
  { appLists: { mode: 'exclude', ids: [7] } },
  { ipLists: { mode: 'include', ids: [9] } },
  { ipLists: { mode: 'exclude', ids: [9] }, devices: { mode: 'include', values: ['desktop'] } },
  { keyValues: { mode: 'include', values: ['genre=sports', 'tier=gold'] } },
  { keyValues: { mode: 'include', values: ['genre=sports', 'genre=news'] } },
  { keyValues: { mode: 'exclude', values: ['genre=news'] }, countries: { mode: 'include', values: ['US'] } },
];
const RULES = RAW_RULES.map((r, i) => compileTargeting(i, TargetingRules.parse(r), LISTS));
/** The rules that target IAB categories alone, by position. */
const CATEGORY_ONLY = RAW_RULES.flatMap((r, i) =>
  Object.keys(r).join() === 'iabCategories' ? [{ i, rule: TargetingRules.parse(r).iabCategories }] : [],
);
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
    const items = Array.from({ length: 300 }, (_, i) => ({
      id: i,
      targeting: i % 7 === 6 ? null : RULES[i % RULES.length]!,
    }));
    const index = new CampaignIndex(items, (c) => c.targeting);
    const contexts = [];
    for (const ip of ['8.8.8.8', '81.2.69.160', '1.1.1.1', '24.24.24.24', '2001:db8::5']) {
      for (const [ua, kv] of UAS.flatMap((u) =>
        ['', 'genre=sports', 'genre=sports&tier=gold', 'genre=news&tier=gold', 'genre=drama&mood=calm'].map(
          (k) => [u, k] as const,
        ),
      )) {
        for (const [w, cat, app] of [
          ['320', 'IAB17', ''],
          ['1280', '', 'com.example.tv'],
          ['', 'IAB1', 'com.other.app'],
          // sub-categories of a targeted parent, several categories at once, codes nothing targets
          ['640', 'IAB1-5', ''],
          ['1280', 'IAB17-3,IAB2', ''],
          ['320', 'IAB7-1,IAB1-2', 'com.example.tv'],
          ['640', 'IAB3,IAB19-1', ''],
          ['', 'IAB99,IAB2-1', ''],
        ]) {
          for (const now of [NOW, NOW - 86_400_000, NOW + 2 * 3_600_000 - 14 * 3_600_000]) {
            contexts.push(
              buildRequestContext(
                { ip, w: w!, content_cat: cat!, app_bundle: app!, kv },
                { remoteAddress: '', userAgent: ua },
                now,
              ),
            );
          }
        }
      }
    }
    expect(new Set(contexts.map((c) => c.geo.usState)).size, 'some US states among the addresses').toBeGreaterThan(1);
    expect(new Set(contexts.map((c) => c.iabCategories.join())).size).toBe(8);
    for (const ctx of contexts) {
      // the rules themselves, against a plain reading of the macro: a rule on X matches X and X's sub-categories
      const cats = ctx.query.contentCategory.split(',');
      for (const { i, rule } of CATEGORY_ONLY) {
        const hit = cats.some((c) => rule.values.some((v) => c === v || c.startsWith(`${v}-`)));
        expect(
          refusal(RULES[i]!, ctx) === null,
          `${rule.mode} ${rule.values.join()} on ${ctx.query.contentCategory}`,
        ).toBe(hit === (rule.mode === 'include'));
      }
      const expected = items.filter((c) => !c.targeting || refusal(c.targeting, ctx) === null).map((c) => c.id);
      for (let round = 0; round < 2; round++) {
        expect(index.candidates(ctx, CHANNEL).map((c) => c.id)).toEqual(expected);
        expect(index.passing(ctx, CHANNEL).count).toBe(expected.length);
      }
    }
  });
});

describe('the passing cache', () => {
  it('keys a request by the values rules name: other addresses, key-values and apps share one answer', () => {
    const items = RULES.map((targeting, id) => ({ id, targeting }));
    const index = new CampaignIndex(items, (c) => c.targeting);
    const at = (ip: string, kv: string, app: string) =>
      buildRequestContext({ ip, w: '640', kv, app_bundle: app }, { remoteAddress: '', userAgent: UAS[0]! }, NOW);
    // addresses in no list, key-values and apps no rule names: one cached answer for all of them
    const first = index.passing(at('8.8.8.1', 'mood=calm', 'com.other.app'), CHANNEL);
    for (let i = 2; i < 200; i++)
      expect(index.passing(at(`8.8.8.${i}`, `mood=calm${i}`, `com.other${i}.app`), CHANNEL)).toBe(first);
    // a named value, or an address in a list, is another answer
    for (const ctx of [
      at('8.8.8.1', 'genre=news', 'com.other.app'),
      at('1.1.1.7', 'mood=calm', 'com.other.app'),
      at('8.8.8.1', 'mood=calm', 'com.example.tv'),
    ]) {
      const answer = index.passing(ctx, CHANNEL);
      expect(answer).not.toBe(first);
      expect(answer.count).toBe(items.filter((c) => refusal(c.targeting, ctx) === null).length);
    }
  });
});

describe('city, metro and postal code targeting', () => {
  const RAW: object[] = [
    { cities: { mode: 'include', values: ['US-CA:Mountain View', 'GB:London'] } },
    { cities: { mode: 'exclude', values: ['US:Mountain View'] } },
    { metros: { mode: 'include', values: ['807'] } },
    { metros: { mode: 'exclude', values: ['501'] } },
    { postalCodes: { mode: 'include', values: ['US:94043'] } },
    { postalCodes: { mode: 'exclude', values: ['GB:E1'] } },
  ];
  const rules = RAW.map((r, i) => compileTargeting(i, TargetingRules.parse(r), LISTS));
  const base = buildRequestContext({ ip: '8.8.8.8' }, { remoteAddress: '', userAgent: UAS[0]! }, NOW);
  const PLACES = {
    unknown: undefined,
    mountainView: {
      city: 'Mountain View',
      cityKeys: ['us:mountain view', 'us-ca:mountain view'],
      metro: '807',
      postalKey: 'us:94043',
    },
    london: { city: 'London', cityKeys: ['gb:london', 'gb-eng:london'], metro: '', postalKey: 'gb:e1' },
    newYorkMetro: { city: '', cityKeys: [], metro: '501', postalKey: 'us:10001' },
  };
  const ctxAt = (place: (typeof PLACES)[keyof typeof PLACES]) => ({
    ...base,
    geo: { ...base.geo, ...(place && { place }) },
  });

  it('matches the city with or without its region, the metro and the postal code; an unknown place fails an include', () => {
    const passing = (place: (typeof PLACES)[keyof typeof PLACES]) =>
      rules.filter((t) => refusal(t, ctxAt(place)) === null).map((t) => t.id);
    expect(passing(PLACES.unknown)).toEqual([1, 3, 5]);
    expect(passing(PLACES.mountainView)).toEqual([0, 2, 3, 4, 5]);
    expect(passing(PLACES.london)).toEqual([0, 1, 3]);
    expect(passing(PLACES.newYorkMetro)).toEqual([1, 5]);
    expect(refusal(rules[0]!, ctxAt(PLACES.unknown))).toBe('city');
    expect(refusal(rules[2]!, ctxAt(PLACES.london))).toBe('metro');
    expect(refusal(rules[4]!, ctxAt(PLACES.london))).toBe('postal_code');
    expect(targetingMiss(rules[1]!, ctxAt(PLACES.mountainView), 'city')).toEqual({
      rule: 'city',
      include: false,
      values: ['us:mountain view'],
      more: 0,
      viewer: 'us-ca:mountain view',
    });
  });

  it('the index passes what the rules pass, place by place', () => {
    const index = new CampaignIndex(rules, (x) => x);
    for (const place of Object.values(PLACES)) {
      const ctx = ctxAt(place);
      expect(index.candidates(ctx, CHANNEL).map((t) => t.id)).toEqual(
        rules.filter((t) => refusal(t, ctx) === null).map((t) => t.id),
      );
    }
  });
});

describe('IAB category targeting', () => {
  const ctxOf = (cat: string) =>
    buildRequestContext({ ip: '8.8.8.8', content_cat: cat }, { remoteAddress: '', userAgent: UAS[0]! }, NOW);
  const rule = (mode: 'include' | 'exclude', values: string[]) =>
    compileTargeting(1, TargetingRules.parse({ iabCategories: { mode, values } }), LISTS);
  /** The rule's verdict, which the index must give too. */
  function passes(t: CompiledTargeting, cat: string): boolean {
    const ctx = ctxOf(cat);
    const byRule = refusal(t, ctx) === null;
    expect(
      new CampaignIndex([t], (x) => x).passing(ctx, CHANNEL).count,
      `index and rule agree on ${cat || 'no category'}`,
    ).toBe(byRule ? 1 : 0);
    return byRule;
  }

  it('an included top-level category passes its sub-categories, not the other way round', () => {
    const arts = rule('include', ['IAB1']);
    expect(passes(arts, 'IAB1')).toBe(true);
    expect(passes(arts, 'IAB1-5')).toBe(true);
    expect(passes(arts, 'IAB2-1')).toBe(false);
    expect(passes(arts, '')).toBe(false);
    const movies = rule('include', ['IAB1-5']);
    expect(passes(movies, 'IAB1-5')).toBe(true);
    expect(passes(movies, 'IAB1')).toBe(false);
    expect(passes(movies, 'IAB1-6')).toBe(false);
  });

  it('an excluded top-level category refuses its sub-categories (brand safety)', () => {
    const noArts = rule('exclude', ['IAB1']);
    expect(passes(noArts, 'IAB1-5')).toBe(false);
    expect(passes(noArts, 'IAB1')).toBe(false);
    expect(passes(noArts, 'IAB2')).toBe(true);
    expect(passes(noArts, '')).toBe(true);
  });

  it('a request with several categories passes an include when any matches, and is refused by an exclude when any matches', () => {
    expect(passes(rule('include', ['IAB2']), 'IAB1,IAB2')).toBe(true);
    expect(passes(rule('include', ['IAB1']), 'IAB19,IAB1-5')).toBe(true);
    expect(passes(rule('include', ['IAB3']), 'IAB1,IAB2')).toBe(false);
    expect(passes(rule('exclude', ['IAB2']), 'IAB1,IAB2-3')).toBe(false);
    expect(passes(rule('exclude', ['IAB3']), 'IAB1,IAB2')).toBe(true);
  });

  it('names the rule that refused', () => {
    expect(refusal(rule('exclude', ['IAB25']), ctxOf('IAB1,IAB25-3'))).toBe('iab_category');
  });

  it('caches by the categories that some rule names, and keeps the answers of different categories apart', () => {
    const index = new CampaignIndex([rule('include', ['IAB1']), rule('exclude', ['IAB2'])], (x) => x);
    expect(index.passing(ctxOf('IAB1-5,IAB19'), CHANNEL).count).toBe(2);
    expect(index.passing(ctxOf('IAB19'), CHANNEL).count).toBe(1);
    expect(index.passing(ctxOf('IAB1-1,IAB2-2'), CHANNEL).count).toBe(1);
    expect(index.passing(ctxOf('IAB2-2'), CHANNEL).count).toBe(0);
    expect(index.passing(ctxOf('IAB1-5,IAB19'), CHANNEL).count).toBe(2);
  });
});

describe('campaigns set aside, named with the rules that refused them (a traced request)', () => {
  const lists = {
    apps: new Map([[7, ['com.example.tv', 'com.example.news']]]),
    publishers: new Map([[8, ['news.example.com', 'com.example.news']]]),
    creatives: new Map(),
  };
  const named = (name: string, rules: object) => ({
    name,
    targeting: compileTargeting(1, TargetingRules.parse(rules), lists),
  });
  /** A German desktop viewer on Chrome, a 640 px player, an app, sports content, Monday 14:30 UTC. */
  const viewer = (over: { country?: string; usState?: string } = {}) => {
    const ctx = buildRequestContext(
      { w: '640', app_bundle: 'com.other.app', content_cat: 'IAB17-3' },
      { remoteAddress: '', userAgent: UAS[0]! },
      NOW,
    );
    const country = over.country ?? 'DE';
    return { ...ctx, geo: { country, region: '', usState: over.usState ?? '' } };
  };
  /** The misses of each campaign the index set aside, by name. */
  function setAside(items: { name: string; targeting: CompiledTargeting | null }[], ctx = viewer(), limit = 100) {
    const index = new CampaignIndex(items, (c) => c.targeting);
    const { words } = index.passing(ctx, CHANNEL);
    return index
      .setAside(
        ctx,
        CHANNEL,
        words,
        limit,
        (c) => c.name,
        (c) => c.targeting,
      )
      .map((s) => [s.item.name, s.misses]);
  }

  it('names each dimension with its values and the request’s, one campaign per rule', () => {
    const out = setAside([
      named('Country', { countries: { mode: 'include', values: ['US', 'GB'] } }),
      named('Country out', { countries: { mode: 'exclude', values: ['DE'] } }),
      named('Device', { devices: { mode: 'include', values: ['smarttv'] } }),
      named('OS', { os: { mode: 'exclude', values: ['windows'] } }),
      named('Browser', { browsers: { mode: 'include', values: ['safari'] } }),
      named('Player', { playerSizes: ['xlarge'] }),
      named('Apps', { appLists: { mode: 'include', ids: [7] } }),
      named('Categories', { iabCategories: { mode: 'exclude', values: ['IAB17'] } }),
      named('Day-part', { dayParting: { enabled: true, timezone: 0, days: [5, 6], hours: HOURS } }),
      named('Passes', { countries: { mode: 'include', values: ['DE'] } }),
      { name: 'No targeting', targeting: null },
    ]);
    expect(Object.fromEntries(out)).toEqual({
      Country: [{ rule: 'country', include: true, values: ['US', 'GB'], more: 0, viewer: 'DE' }],
      'Country out': [{ rule: 'country', include: false, values: ['DE'], more: 0, viewer: 'DE' }],
      Device: [{ rule: 'device', include: true, values: ['smarttv'], more: 0, viewer: 'desktop' }],
      OS: [{ rule: 'os', include: false, values: ['windows'], more: 0, viewer: 'windows' }],
      Browser: [{ rule: 'browser', include: true, values: ['safari'], more: 0, viewer: 'chrome' }],
      Player: [{ rule: 'player_size', include: true, values: ['xlarge'], more: 0, viewer: 'large' }],
      Apps: [
        {
          rule: 'app_list',
          include: true,
          values: ['com.example.tv', 'com.example.news'],
          more: 0,
          viewer: 'com.other.app',
        },
      ],
      Categories: [{ rule: 'iab_category', include: false, values: ['IAB17'], more: 0, viewer: 'IAB17-3' }],
      'Day-part': [{ rule: 'day_part', include: true, values: [], more: 0, viewer: 'Mon 14:00 UTC' }],
    });
  });

  it('names every rule of a campaign that refused, in the order the checks run, the country once', () => {
    const [[, misses]] = setAside([
      named('Many', {
        countries: { mode: 'include', values: ['US'] },
        usStates: { mode: 'include', values: ['CA'] },
        devices: { mode: 'include', values: ['mobile'] },
        playerSizes: ['small'],
      }),
    ]) as [[string, { rule: string }[]]];
    expect(misses.map((m) => m.rule)).toEqual(['country', 'device', 'player_size']);
  });

  it('a US state rule names the state the viewer is in, or none outside the US', () => {
    const states = named('States', { usStates: { mode: 'include', values: ['CA', 'NY'] } });
    expect(setAside([states], viewer({ country: 'US', usState: 'OH' }))).toEqual([
      ['States', [{ rule: 'geo', include: true, values: ['CA', 'NY'], more: 0, viewer: 'OH' }]],
    ]);
    expect(setAside([states])).toEqual([
      ['States', [{ rule: 'geo', include: true, values: ['CA', 'NY'], more: 0, viewer: '' }]],
    ]);
  });

  it('lists at most 10 values of a rule, with how many more it holds', () => {
    const countries = ['US', 'GB', 'FR', 'ES', 'IT', 'NL', 'BE', 'AT', 'IE', 'SE', 'DK', 'PL'];
    const [[, [miss]]] = setAside([named('Wide', { countries: { mode: 'include', values: countries } })]) as [
      [string, { values: string[]; more: number }[]],
    ];
    expect(miss).toMatchObject({ values: countries.slice(0, 10), more: 2 });
  });

  it('names the first ones by name (A to Z, case aside) up to the limit, whatever their bid order', () => {
    const items = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo'].map((n) =>
      named(n, { countries: { mode: 'include', values: ['US'] } }),
    );
    expect(setAside(items, viewer(), 3).map(([n]) => n)).toEqual(['Alpha', 'Bravo', 'charlie']);
  });

  it('a publisher list (checked one by one, not indexed) names the site or the app', () => {
    const t = compileTargeting(1, TargetingRules.parse({ pubLists: { mode: 'include', ids: [8] } }), lists);
    const ctx = buildRequestContext({ domain: 'blog.example.org' }, { remoteAddress: '', userAgent: UAS[0]! }, NOW);
    expect(refusal(t, ctx)).toBe('publisher_list');
    expect(targetingMiss(t, ctx, 'publisher_list')).toEqual({
      rule: 'publisher_list',
      include: true,
      values: ['news.example.com', 'com.example.news'],
      more: 0,
      viewer: 'blog.example.org',
    });
  });
});

describe('the channel dimension', () => {
  const ctx = buildRequestContext({ w: '640' }, { remoteAddress: '', userAgent: '' }, NOW);
  const ASSIGNMENTS: (ChannelAssignment | null)[] = [
    null,
    channelAssignment('include', [1]),
    channelAssignment('include', [1, 2]),
    channelAssignment('include', [3]),
    channelAssignment('exclude', [1]),
    channelAssignment('exclude', [2, 3]),
    channelAssignment('exclude', []),
    channelAssignment('all', []),
  ];
  const items = ASSIGNMENTS.map((channels, id) => ({ id, channels }));

  it('passes on each channel exactly the campaigns assigned to it, as each campaign alone says (0: a supplier, on none)', () => {
    const index = new CampaignIndex(
      items,
      () => null,
      (c) => c.channels,
    );
    for (const channelId of [0, 1, 2, 3, 4]) {
      const expected = items.filter((c) => runsOn(c.channels, channelId)).map((c) => c.id);
      expect(
        index.candidates(ctx, channelId).map((c) => c.id),
        `channel ${channelId}`,
      ).toEqual(expected);
    }
    // an include runs on its channels only; an exclude everywhere else; 'all' and an exclude of none everywhere
    expect(index.candidates(ctx, 3).map((c) => c.id)).toEqual([0, 3, 4, 6, 7]);
    expect(index.candidates(ctx, 0).map((c) => c.id)).toEqual([0, 4, 5, 6, 7]);
  });

  it('compiles the rule the console reads (shared campaignRunsOn)', () => {
    for (const scope of CHANNEL_SCOPES)
      for (const ids of [[], [1], [2, 3], [1, 3]])
        for (const channelId of [0, 1, 2, 3])
          expect(runsOn(channelAssignment(scope, ids), channelId), `${scope} ${ids.join(',')} on ${channelId}`).toBe(
            campaignRunsOn(scope, ids, channelId),
          );
  });

  it('names a campaign its assignment leaves out as off the channel, besides its targeting misses', () => {
    const us = compileTargeting(1, TargetingRules.parse({ countries: { mode: 'include', values: ['US'] } }), LISTS);
    const rows = [
      { name: 'Elsewhere', channels: channelAssignment('include', [2]), targeting: null },
      { name: 'Elsewhere, US', channels: channelAssignment('include', [2]), targeting: us },
      { name: 'Here, US', channels: channelAssignment('include', [1]), targeting: us },
      { name: 'Not here', channels: channelAssignment('exclude', [1]), targeting: null },
    ];
    const index = new CampaignIndex(
      rows,
      (c) => c.targeting,
      (c) => c.channels,
    );
    const de = { ...ctx, geo: { country: 'DE', region: '', usState: '' } };
    const { words, count } = index.passing(de, 1);
    expect(count).toBe(0);
    const out = index.setAside(
      de,
      1,
      words,
      10,
      (c) => c.name,
      (c) => c.targeting,
    );
    expect(out.map((o) => [o.item.name, o.offChannel, o.misses.map((m) => m.rule)])).toEqual([
      ['Elsewhere', true, []],
      ['Elsewhere, US', true, ['country']],
      ['Here, US', false, ['country']],
      ['Not here', true, []],
    ]);
  });
});
