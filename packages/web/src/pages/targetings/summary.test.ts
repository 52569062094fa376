import { describe, expect, it } from 'vitest';
import { TargetingRules, emptyTargetingRules } from '@adplane/shared';
import { describeTargeting, summarizeTargeting, targetingParts } from './summary.js';

const rules = (r: Record<string, unknown>) => TargetingRules.parse(r);

describe('summarizeTargeting', () => {
  it('reads the example of the brief', () => {
    expect(
      summarizeTargeting(
        rules({
          countries: { mode: 'include', values: ['US', 'CA'] },
          devices: { values: ['smarttv'] },
          iabCategories: { mode: 'exclude', values: ['IAB25', 'IAB26'] },
          dayParting: { enabled: true, timezone: -5, days: [0, 1, 2, 3, 4], hours: [19, 20] },
        }),
      ),
    ).toBe('Countries: US, CA · Devices: SmartTV · IAB −2 · Day-parting');
  });

  it('says so when nothing is targeted', () => {
    expect(summarizeTargeting(emptyTargetingRules())).toBe('Any traffic (no rules)');
    expect(summarizeTargeting(undefined)).toBe('Any traffic (no rules)');
    expect(summarizeTargeting({})).toBe('Any traffic (no rules)');
    // Day-parting that is off targets nothing.
    expect(summarizeTargeting(rules({ dayParting: { enabled: false, days: [0], hours: [1] } }))).toBe(
      'Any traffic (no rules)',
    );
  });

  it('counts blocked ad categories apart from the content categories, and names them in the tooltip', () => {
    const blocking = rules({
      iabCategories: { mode: 'exclude', values: ['IAB25'] },
      blockedAdCategories: ['IAB7', 'IAB9-7'],
    });
    expect(summarizeTargeting(blocking)).toBe('IAB −1 · Blocked ads: 2');
    expect(describeTargeting(blocking)[1]).toMatch(/^Blocked ad categories: Health & Fitness \(all \d+\), /);
  });

  it('names up to three values and counts the rest', () => {
    expect(summarizeTargeting(rules({ countries: { values: ['DE', 'FR', 'ES', 'IT', 'NL'] } }))).toBe(
      'Countries: DE, FR, ES +2',
    );
    expect(summarizeTargeting(rules({ countries: { mode: 'exclude', values: ['RU', 'CN'] } }))).toBe(
      'Countries −RU, CN',
    );
  });

  it('covers every filter, in the order of the form', () => {
    const all = rules({
      countries: { values: ['US'] },
      regions: { values: ['NAM', 'MINA'] },
      usStates: { mode: 'exclude', values: ['AK', 'HI'] },
      devices: { values: ['smarttv', 'desktop'] },
      os: { values: ['roku'] },
      browsers: { mode: 'exclude', values: ['ie'] },
      tvFamilies: { values: ['roku', 'firetv', 'tizen', 'webos'] },
      iabCategories: { values: ['IAB1'] },
      appLists: { ids: [3] },
      pubLists: { mode: 'exclude', ids: [4, 5] },
      creLists: { ids: [6] },
      playerSizes: ['large', 'xlarge'],
    });
    expect(targetingParts(all)).toEqual([
      'Countries: US',
      'Regions: NAM, MENA',
      'US states −AK, HI',
      'Devices: SmartTV, Desktop',
      'OS: Roku',
      'Browsers −Internet Explorer',
      'TV: Roku, Amazon Fire TV, Samsung Tizen +1',
      'IAB: 1',
      'App lists: 1',
      'Publisher lists −2',
      'Creative lists: 1',
      'Player: Large, XL',
    ]);
  });
});

describe('describeTargeting', () => {
  it('writes one sentence per rule for the tooltip', () => {
    const lines = describeTargeting(
      rules({
        countries: { values: ['US', 'CA'] },
        regions: { values: ['EMEA', 'JP'] },
        iabCategories: { mode: 'exclude', values: ['IAB1', 'IAB2-1'] },
        appLists: { ids: [3] },
        playerSizes: ['large'],
        dayParting: { enabled: true, timezone: -5, days: [0, 1, 2, 3, 4], hours: [19, 20, 21, 22] },
      }),
      (_kind, id) => `CTV apps (#${id})`,
    );
    expect(lines).toEqual([
      'Include countries: United States, Canada',
      'Include regions: EMEA, Japan',
      'Exclude IAB categories: Arts & Entertainment (all 7), Automotive > Auto Parts',
      'Include app lists: CTV apps (#3)',
      'Player sizes: Large (640-1279 px)',
      'Day-parting: Mon-Fri 19:00-23:00 (UTC-5)',
    ]);
  });
});
