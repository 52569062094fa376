import { parseCampaignRow, parseCreativeRow, type StoredRow } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { type Owners } from './accounts.js';
import { campaignFacts, compileCampaigns } from './campaigns.js';
import { compileCreatives } from './creatives.js';
import { deliveryStates, newSetAside } from './setAside.js';
import { type Snapshot } from './types.js';
import { storedRow } from '../../../test/storedRows.js';

/**
 * The compile records why it leaves each campaign and creative out, with every reason, from the
 * checks it decided with; deliveryStates adds the rules of the moment (flight, spend, pace) to what
 * it compiled.
 */
const media = [
  { url: 'https://cdn.example.com/a.mp4', mime: 'video/mp4', duration: 15, width: 1280, height: 720, bitrate: 2000 },
];
const creativeRow = (id: number, approval: string, meta: Partial<StoredRow> = {}) =>
  parseCreativeRow(
    storedRow(
      id,
      { approval, format: 'video', videoSource: 'media', clickUrl: 'https://brand.example.com/', mediaFiles: media },
      meta,
    ),
  )!;
const owners = (showDsp = true): Owners => ({
  tenants: new Map([[1, { id: 1, name: 'Tenant', timezone: 0, showDsp }]]),
  subpublishers: new Map(),
  advertisers: new Map(),
  sellerIds: new Map(),
});
const NOW = Date.UTC(2026, 5, 1, 12);
const campaign = (id: number, data: Record<string, unknown>, meta: Partial<StoredRow> = {}) =>
  campaignFacts(
    parseCampaignRow(
      storedRow(
        id,
        { startDate: '2026-05-01', endDate: null, bidCpm: 5_000_000, creativeIds: [], channelScope: 'all', ...data },
        meta,
      ),
    )!,
  );

function build(rows: ReturnType<typeof campaign>[], showDsp = true) {
  const aside = newSetAside();
  const creatives = [
    creativeRow(10, 'approved'),
    creativeRow(11, 'pending', { name: 'Spring spot' }),
    creativeRow(12, 'rejected', { name: 'Bad spot', status: 0 }),
  ];
  const snapCreatives = compileCreatives(creatives, owners(showDsp), undefined, aside.creatives);
  const names = new Map(creatives.map((c) => [c.id, c.name]));
  const campaigns = compileCampaigns(rows, owners(showDsp), snapCreatives, new Map(), NOW, undefined, {
    campaigns: aside.campaigns,
    creatives: aside.creatives,
    creativeName: (id) => names.get(id),
  });
  const snapshot = { campaigns, creatives: snapCreatives, setAside: aside, deals: new Map() } as unknown as Snapshot;
  return { aside, campaigns, snapshot };
}

describe('the snapshot record of what it set aside', () => {
  it('records each creative left out with its switch and approval', () => {
    const { aside } = build([]);
    expect(aside.creatives.get(10)).toBeUndefined();
    expect(aside.creatives.get(11)).toEqual([{ code: 'creative_pending' }]);
    expect(aside.creatives.get(12)).toEqual([{ code: 'paused' }, { code: 'creative_rejected' }]);
  });

  it('records every reason a campaign is left out, naming its creatives, and nothing for one it compiles', () => {
    const { aside, campaigns } = build([
      campaign(40, { creativeIds: [10] }),
      campaign(41, { creativeIds: [11] }),
      campaign(42, { creativeIds: [11, 12], endDate: '2026-05-15', totalBudget: 0 }, { status: 0 }),
      campaign(43, { creativeIds: [] }),
    ]);
    expect([...campaigns.keys()]).toEqual([40]);
    expect(aside.campaigns.get(40)).toBeUndefined();
    expect(aside.campaigns.get(41)).toEqual([{ code: 'creative_pending', detail: 'Spring spot' }]);
    expect(aside.campaigns.get(42)).toEqual([
      { code: 'paused' },
      { code: 'creative_pending', detail: 'Spring spot' },
      { code: 'creative_rejected', detail: 'Bad spot' },
      { code: 'flight_ended', detail: 'ended 2026-05-15' },
      { code: 'budget_zero_total' },
    ]);
    expect(aside.campaigns.get(43)).toEqual([{ code: 'no_creative', detail: 'it has no creative' }]);
  });

  it("records a compiled campaign's budget of 0, and a tenant without the DSP view", () => {
    expect(build([campaign(44, { creativeIds: [10], dailyBudget: 0 })]).aside.campaigns.get(44)).toEqual([
      { code: 'budget_zero_daily' },
    ]);
    expect(build([campaign(45, { creativeIds: [10] })], false).aside.campaigns.get(45)).toEqual([
      { code: 'no_dsp_view' },
    ]);
  });
});

describe('deliveryStates', () => {
  const none = { campaigns: new Map(), tags: new Map() };

  it('answers the record in ad-ops words, and serving for a compiled campaign nothing holds back', () => {
    const { snapshot } = build([campaign(40, { creativeIds: [10] }), campaign(41, { creativeIds: [11] })]);
    expect(deliveryStates('campaigns', [41, 40], snapshot, none, NOW)).toEqual([
      {
        id: 41,
        serving: false,
        reasons: [{ code: 'creative_pending', message: 'Creative pending approval: Spring spot' }],
      },
      { id: 40, serving: true, reasons: [] },
    ]);
  });

  it("adds the moment's rules: a flight not started, budgets spent, even pacing ahead", () => {
    const { snapshot } = build([
      campaign(46, { creativeIds: [10], startDate: '2026-06-03' }),
      campaign(47, { creativeIds: [10], totalBudget: 1_000, dailyBudget: 500 }),
      campaign(48, { creativeIds: [10], dailyBudget: 500, pacing: 'even' }),
    ]);
    const live = {
      campaigns: new Map([
        [47, { spentToday: 500, totalSpent: 1_000, pacedAhead: false }],
        [48, { spentToday: 100, totalSpent: null, pacedAhead: true }],
      ]),
      tags: new Map(),
    };
    const codes = deliveryStates('campaigns', [46, 47, 48], snapshot, live, NOW).map((s) =>
      s.reasons.map((r) => r.message),
    );
    expect(codes).toEqual([
      ['The flight has not started: starts 2026-06-03'],
      ['Total budget spent', "Today's budget spent"],
      ['Held back by pacing: ahead of its even pace'],
    ]);
  });

  it('says a row the snapshot neither compiled nor set aside cannot be read', () => {
    const { snapshot } = build([]);
    expect(deliveryStates('campaigns', [99], snapshot, none, NOW)[0]!.reasons.map((r) => r.code)).toEqual([
      'unreadable',
    ]);
  });
});
