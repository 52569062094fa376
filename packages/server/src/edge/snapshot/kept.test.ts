import {
  type CreativeRow,
  parseAppListRow,
  parseCampaignRow,
  parseCreativeRow,
  parseTargetingRow,
} from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { type Owners } from './accounts.js';
import { type CampaignFacts, campaignFacts, compileCampaigns } from './campaigns.js';
import { compileCreatives } from './creatives.js';
import { Kept } from './kept.js';
import { compileTargetings, type TargetingsKept } from './targetings.js';
import { type SnapCampaign, type SnapCreative } from './types.js';
import { storedRow } from '../../../test/storedRows.js';

const creativeRow = (clickUrl: string) =>
  parseCreativeRow(
    storedRow(10, {
      approval: 'approved',
      format: 'video',
      videoSource: 'media',
      clickUrl,
      advertiserId: 5,
      mediaFiles: [
        {
          url: 'https://cdn.example.com/a.mp4',
          mime: 'video/mp4',
          duration: 15,
          width: 1280,
          height: 720,
          bitrate: 2000,
        },
      ],
    }),
  )!;
const appList = (items: string[]) => parseAppListRow(storedRow(30, { items }))!;
const targetingRow = parseTargetingRow(
  storedRow(20, {
    rules: { countries: { mode: 'include', values: ['US'] }, appLists: { mode: 'include', ids: [30] } },
  }),
)!;
const campaignRow = (bidCpm: number) =>
  campaignFacts(
    parseCampaignRow(
      storedRow(40, {
        startDate: '2026-01-01',
        endDate: '2026-12-31',
        bidCpm,
        channelScope: 'all',
        advertiserId: 5,
        creativeIds: [10],
        targetingId: 20,
      }),
    )!,
  );
const owners = (timezone: number, advertiser: string): Owners => ({
  tenants: new Map([[1, { id: 1, name: 'Tenant', timezone, showDsp: true }]]),
  subpublishers: new Map(),
  advertisers: new Map([[5, advertiser]]),
  sellerIds: new Map(),
});
const NOW = Date.UTC(2026, 5, 1);

/** One snapshot build's campaign part, with the compiler's kept objects across builds. */
function builder() {
  const kept = {
    creatives: new Kept<CreativeRow, SnapCreative>(),
    targetings: new Kept() as TargetingsKept,
    campaigns: new Kept<CampaignFacts, SnapCampaign>(),
  };
  return (rows: {
    campaign: ReturnType<typeof campaignRow>;
    creative: ReturnType<typeof creativeRow>;
    list: ReturnType<typeof appList>;
    owners: Owners;
  }) => {
    const targetings = compileTargetings(
      { targetings: [targetingRow], applists: [rows.list], publists: [], crelists: [] },
      kept.targetings,
    );
    const creatives = compileCreatives([rows.creative], rows.owners, kept.creatives);
    return compileCampaigns([rows.campaign], rows.owners, creatives, targetings, NOW, kept.campaigns).get(40)!;
  };
}

describe('a rebuild keeps what did not change', () => {
  it('keeps an unchanged campaign, and makes it again when anything it was made from changed', () => {
    const build = builder();
    const base = {
      campaign: campaignRow(5_000_000),
      creative: creativeRow('https://brand.example.com/'),
      list: appList(['com.a']),
      owners: owners(0, 'Brand'),
    };
    const first = build(base);
    expect(build({ ...base, owners: owners(0, 'Brand') })).toBe(first);

    // its row
    const rebid = build({ ...base, campaign: campaignRow(7_000_000) });
    expect(rebid).not.toBe(first);
    expect(rebid.bidCpm).toBe(7_000_000);
    const again = { ...base, campaign: campaignRow(7_000_000) };
    const kept = build(again);
    // a row parsed again is another object: made again, equal
    expect(kept.bidCpm).toBe(7_000_000);

    // a list its targeting names
    const relisted = build({ ...again, list: appList(['com.b']) });
    expect(relisted).not.toBe(kept);
    expect([...relisted.targeting!.apps!.values]).toEqual(['com.b']);

    // its creative
    const recreated = build({
      ...again,
      list: appList(['com.b']),
      creative: creativeRow('https://other.example.com/'),
    });
    expect(recreated.creatives[0]!.clickUrl).toBe('https://other.example.com/');

    // its advertiser's name, its tenant's time zone
    const renamed = build({
      ...again,
      list: appList(['com.b']),
      creative: creativeRow('https://other.example.com/'),
      owners: owners(0, 'Brand Inc.'),
    });
    expect(renamed.advertiserName).toBe('Brand Inc.');
    const moved = build({
      ...again,
      list: appList(['com.b']),
      creative: creativeRow('https://other.example.com/'),
      owners: owners(-5, 'Brand Inc.'),
    });
    expect(moved.flightStartHour - renamed.flightStartHour).toBe(5);
    expect(moved.timezone).toBe(-5);
  });

  it('keeps what it made while the row stands and the check passes', () => {
    const kept = new Kept<{ id: number }, { made: number; input: string }>();
    let made = 0;
    const row = { id: 1 };
    const take = (r: { id: number }, input: string) =>
      kept.take(
        r,
        (last) => last.input === input,
        () => ({ made: ++made, input }),
      );
    const a = take(row, 'x');
    expect(take(row, 'x')).toBe(a);
    // what it was made from changed: made again, and kept from then on
    const b = take(row, 'y');
    expect(b).not.toBe(a);
    expect(take(row, 'y')).toBe(b);
    // the row parsed again (another object): made again
    expect(take({ id: 1 }, 'y').made).toBe(3);
  });
});
