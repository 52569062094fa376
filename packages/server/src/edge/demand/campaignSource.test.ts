import { describe, expect, it } from 'vitest';
import { INDEXED_OUT_NAMED, type SourceFate, TargetingRules } from '@adplane/shared';
import { compileTargeting } from '../targeting/compiledTargeting.js';
import { systemClock } from '../../clock.js';
import { DeliveryGate } from '../auction/deliveryGate.js';
import { buildRequestContext } from '../request/context.js';
import { supplierChannel } from '../doors/openrtbBidder/bidChannels.js';
import { indexCampaigns } from '../snapshot/campaigns.js';
import { categoryBlocks } from '../snapshot/categoryBlocks.js';
import {
  OPEN_FLIGHT_END,
  type SnapCampaign,
  type SnapChannel,
  type Snapshot,
  type SnapSupplier,
} from '../snapshot/types.js';
import { campaignSource, eligibility } from './campaignSource.js';
import { type AuctionRequest, type DemandCandidate, lengthFloor } from './demandSource.js';

/**
 * Our campaigns' rotation: campaigns tied at the best bid are drawn in a random order and checked
 * as drawn, so the winner is uniform among the tie's eligible campaigns, and an untraced request
 * checks one or two of them instead of the whole tie.
 */
const HOUR_MS = 3_600_000;
const creative = {
  id: 9,
  tenantId: 1,
  name: 'Spot',
  advertiserId: 0,
  format: 'video' as const,
  videoSource: 'media' as const,
  mediaFiles: [
    { url: 'https://cdn.example.com/a.mp4', mime: 'video/mp4', duration: 10, width: 640, height: 360, bitrate: 0 },
  ],
  vastUrl: '',
  duration: 10,
  displayType: 'image' as const,
  imageUrl: '',
  html: '',
  width: 0,
  height: 0,
  clickUrl: '',
  adomain: [],
  iabCategories: [],
};

/** `refused`: its flight starts tomorrow (a check made on the campaign itself, after the targeting index). */
function campaign(id: number, bidCpm: number, refused = false): SnapCampaign {
  return {
    id,
    tenantId: 1,
    name: `Campaign ${id}`,
    advertiserId: 0,
    advertiserName: '',
    flightStartHour: refused ? Math.floor(Date.now() / HOUR_MS) + 24 : 0,
    flightEndHour: OPEN_FLIGHT_END,
    timezone: 0,
    pacing: 'asap',
    frequencyCap: null,
    totalBudget: 'unlimited',
    dailyBudget: 'unlimited',
    bidCpm,
    targeting: null,
    creatives: [creative],
  };
}

function requestOver(
  campaigns: SnapCampaign[],
  traced: boolean,
  auctionPrice: 'first' | 'second' = 'second',
): AuctionRequest {
  const channel: SnapChannel = {
    id: 1,
    uid: 'ch',
    tenantId: 1,
    subpublisherId: 0,
    name: 'Channel',
    serving: true,
    integration: 'VAST',
    environment: 'web',
    format: 'video',
    vastVersion: '4.2',
    floorCpm: 0,
    payout: { type: 'revshare', percent: 50 },
    demandMode: 'auction',
    auctionPrice,
    timeoutMs: 500,
    targeting: null,
    demand: [],
    idleTags: [],
  };
  const snapshot: Snapshot = {
    version: 1,
    builtAt: 0,
    buildMs: 0,
    tenants: new Map([[1, { id: 1, name: 'T', timezone: 0, showDsp: true }]]),
    channelsByUid: new Map([['ch', channel]]),
    channels: new Map([[1, channel]]),
    tags: new Map(),
    campaigns: new Map(campaigns.map((c) => [c.id, c])),
    creatives: new Map([[9, creative]]),
    suppliersByUid: new Map(),
    adExchanges: new Map(),
    deals: new Map(),
    campaignIndex: indexCampaigns(campaigns),
    skipped: {},
  };
  const ctx = buildRequestContext(
    { w: '640', ip: '8.8.8.8' },
    {
      remoteAddress: '127.0.0.1',
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    },
    Date.now(),
  );
  return {
    clock: systemClock,
    ctx,
    channel,
    snapshot,
    pacing: new DeliveryGate(),
    deadline: Date.now() + 500,
    supplier: null,
    deals: [],
    privateAuction: false,
    traced,
  };
}

function pick(req: AuctionRequest): { ids: number[]; refused: SourceFate[] } {
  const refused: SourceFate[] = [];
  const { candidates } = campaignSource.candidates(req, (fate) => refused.push(fate));
  return { ids: candidates.map((c: DemandCandidate) => c.id), refused };
}

describe("our campaigns' rotation", () => {
  it('draws the winner uniformly among the eligible campaigns of the tie, with another of them as the runner-up', () => {
    // eight tied at $5 (three refuse this request), one below at $4
    const campaigns = [
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((id) => campaign(id, 5_000_000, id % 3 === 0)),
      campaign(20, 4_000_000),
    ];
    const wins = new Map<number, number>();
    const req = requestOver(campaigns, false);
    for (let i = 0; i < 5000; i++) {
      const { ids } = pick(req);
      expect(ids).toHaveLength(2);
      expect(ids[0]).not.toBe(ids[1]);
      for (const id of ids) expect([1, 2, 4, 5, 7, 8]).toContain(id);
      wins.set(ids[0]!, (wins.get(ids[0]!) ?? 0) + 1);
    }
    // six eligible: about 833 wins each (a fair draw stays within 700-970 with near certainty)
    expect([...wins.keys()].sort((a, b) => a - b)).toEqual([1, 2, 4, 5, 7, 8]);
    for (const n of wins.values()) {
      expect(n).toBeGreaterThan(700);
      expect(n).toBeLessThan(970);
    }
  });

  it('checks one or two campaigns of a tie, not the whole tie, when nobody reads the trace', () => {
    const req = requestOver(
      [1, 2, 3, 4, 5, 6, 7, 8].map((id) => campaign(id, 5_000_000)),
      false,
    );
    let checks = 0;
    const check = req.pacing.campaignRefusal.bind(req.pacing);
    req.pacing.campaignRefusal = (...args) => {
      checks++;
      return check(...args);
    };
    for (let i = 0; i < 1000; i++) expect(pick(req).ids).toHaveLength(2);
    // the first of the ranking, then the winner and the runner-up drawn (one of them may be that first): under 3 a request
    expect(checks / 1000).toBeLessThan(3);
    expect(checks / 1000).toBeGreaterThanOrEqual(2);
    // a traced request checks the whole tie
    checks = 0;
    pick({ ...req, traced: true });
    expect(checks).toBe(8);
  });

  it('looks for no runner-up at first price unless traced: only a second price or a trace reads it', () => {
    const campaigns = [campaign(1, 5_000_000), campaign(2, 5_000_000), campaign(3, 4_000_000)];
    for (let i = 0; i < 200; i++) {
      const first = pick(requestOver(campaigns, false, 'first')).ids;
      expect(first).toHaveLength(1);
      expect([1, 2]).toContain(first[0]);
    }
    expect(pick(requestOver(campaigns, true, 'first')).ids).toHaveLength(2);
    expect(pick(requestOver(campaigns, false, 'second')).ids).toHaveLength(2);
    expect(pick(requestOver([campaign(1, 5_000_000), campaign(3, 4_000_000)], false, 'second')).ids).toEqual([1, 3]);
  });

  it('takes the best bid below a tie with one eligible campaign as its runner-up, and skips refused campaigns above it', () => {
    const campaigns = [
      campaign(1, 9_000_000, true),
      campaign(2, 7_000_000),
      campaign(3, 7_000_000, true),
      campaign(4, 6_000_000),
      campaign(5, 5_000_000),
    ];
    for (let i = 0; i < 50; i++) expect(pick(requestOver(campaigns, false)).ids).toEqual([2, 4]);
  });

  it('tells a traced request why each campaign it looked at was refused: those above the best bid and the whole tie', () => {
    const campaigns = [
      campaign(1, 9_000_000, true),
      ...[2, 3, 4, 5].map((id) => campaign(id, 7_000_000, id === 4)),
      campaign(6, 6_000_000),
    ];
    for (let i = 0; i < 20; i++) {
      const { ids, refused } = pick(requestOver(campaigns, true));
      expect(ids).toHaveLength(2);
      expect(refused.map((f) => f.id).sort()).toEqual([1, 4]);
      expect(refused.every((f) => f.reason === 'flight_not_started')).toBe(true);
    }
    // untraced: nothing reported
    expect(pick(requestOver(campaigns, false)).refused).toEqual([]);
  });

  it('finds nothing when every campaign refuses the request', () => {
    expect(pick(requestOver([campaign(1, 5_000_000, true), campaign(2, 5_000_000, true)], false)).ids).toEqual([]);
  });
});

describe('a floor per second for an ad of some length', () => {
  it('counts the whole seconds the bid states as dur (a 29.97 s ad is 30 s), rounded up to the micro-dollar; unknown length: none', () => {
    expect(lengthFloor(600_000, 29.97)).toBe(18_000_000);
    expect(lengthFloor(333_333, 15)).toBe(4_999_995);
    expect(lengthFloor(123_456.5, 2)).toBe(246_913);
    expect(lengthFloor(600_000, 0)).toBe(0);
    expect(lengthFloor(600_000, 0.4)).toBe(0);
  });
});

describe('a floor per second of the ad (OpenRTB 2.6 mincpmpersec)', () => {
  const long = {
    ...creative,
    id: 10,
    duration: 30,
    mediaFiles: [{ ...creative.mediaFiles[0]!, url: 'https://cdn.example.com/b.mp4', duration: 30 }],
  };
  const bidsWith = (creatives: (typeof creative)[], bidCpm: number, perSecond: number) => {
    const c = { ...campaign(1, bidCpm), creatives };
    const req = { ...requestOver([c], true), floorPerSecondCpm: perSecond };
    return campaignSource
      .candidates(req, () => undefined)
      .candidates.map(
        (cand) => (cand as unknown as { immediate: { bid: { creativeId: number } } }).immediate.bid.creativeId,
      );
  };
  it("picks, of a campaign's creatives, one its bid pays for at that floor; none, and the campaign is passed over", () => {
    // $6 at $0.50 a second: the 10 s spot ($5) yes, the 30 s one ($15) no, every time
    for (let i = 0; i < 50; i++) expect(bidsWith([creative, long], 6_000_000, 500_000)).toEqual([9]);
    expect(bidsWith([long], 6_000_000, 500_000)).toEqual([]);
    const refused: SourceFate[] = [];
    campaignSource.candidates(
      { ...requestOver([{ ...campaign(1, 6_000_000), creatives: [long] }], true), floorPerSecondCpm: 500_000 },
      (f) => refused.push(f),
    );
    expect(refused.map((f) => f.reason)).toEqual(['below_floor_per_second']);
    // no floor per second: either creative
    const seen = new Set<number>();
    for (let i = 0; i < 50; i++) seen.add(bidsWith([creative, long], 6_000_000, 0)[0]!);
    expect(seen).toEqual(new Set([9, 10]));
  });
});

describe('floors by the length of the ad (OpenRTB 2.6 video.durfloors)', () => {
  const long = {
    ...creative,
    id: 10,
    duration: 30,
    mediaFiles: [{ ...creative.mediaFiles[0]!, url: 'https://cdn.example.com/b.mp4', duration: 30 }],
  };
  // 1-15 s at $4, 16-30 s at $8 (demand's money)
  const floors = [
    { min: 1, max: 15, floorCpm: 4_000_000 },
    { min: 16, max: 30, floorCpm: 8_000_000 },
  ];
  const chosen = (campaigns: SnapCampaign[]) => {
    const refused: SourceFate[] = [];
    const { candidates } = campaignSource.candidates(
      { ...requestOver(campaigns, true, 'first'), durationFloors: floors },
      (f) => refused.push(f),
    );
    return {
      picks: candidates.map((c) => [
        c.id,
        (c as unknown as { immediate: { bid: { creativeId: number } } }).immediate.bid.creativeId,
      ]),
      reasons: refused.map((f) => f.reason),
    };
  };
  it("picks, of a campaign's creatives, one its bid reaches its length's floor with", () => {
    // $6: the 10 s spot ($4 floor) yes, the 30 s one ($8) no, every time
    for (let i = 0; i < 50; i++)
      expect(chosen([{ ...campaign(1, 6_000_000), creatives: [creative, long] }]).picks).toEqual([[1, 9]]);
  });
  it("passes over a campaign whose every creative is under its length's floor, naming the reason, for the next best", () => {
    // the $7 campaign has only the 30 s ad ($8 floor): the $5 one with the 10 s spot wins
    const { picks, reasons } = chosen([{ ...campaign(1, 7_000_000), creatives: [long] }, campaign(2, 5_000_000)]);
    expect(picks.map(([id]) => id)).toEqual([2]);
    expect(reasons).toEqual(['below_duration_floor']);
  });
  it('holds nothing on a deal: a deal has its own floor', () => {
    const req = { ...requestOver([{ ...campaign(1, 6_000_000), creatives: [long] }], true), durationFloors: floors };
    expect(eligibility(req.snapshot.campaigns.get(1)!, req, { perSecond: 0, byLength: null })).toMatchObject({
      id: 10,
    });
    expect(eligibility(req.snapshot.campaigns.get(1)!, req)).toBe('below_duration_floor');
  });
});

describe("a channel's blocked ad categories (brand safety)", () => {
  const health = { ...creative, id: 11, iabCategories: ['IAB7-39'] };
  const sports = { ...creative, id: 12, iabCategories: ['IAB17'] };
  /** The request on a channel whose targeting blocks `blocked`, compiled as the snapshot does (snapshot/categoryBlocks.ts). */
  const onChannelBlocking = (campaigns: SnapCampaign[], blocked: string[]) => {
    const req = requestOver(campaigns, true);
    return { ...req, channel: { ...req.channel, categoryBlocks: categoryBlocks(blocked, [creative, health, sports]) } };
  };
  const creativesBid = (req: AuctionRequest) =>
    campaignSource
      .candidates(req, () => undefined)
      .candidates.map(
        (cand) => (cand as unknown as { immediate: { bid: { creativeId: number } } }).immediate.bid.creativeId,
      );

  it("serves, of a campaign's creatives, only those whose categories the channel does not block (IAB7 blocks IAB7-39)", () => {
    const both = { ...campaign(1, 6_000_000), creatives: [health, sports] };
    for (let i = 0; i < 30; i++) expect(creativesBid(onChannelBlocking([both], ['IAB7']))).toEqual([12]);
    // a block on another sub-category, or none, leaves either
    const seen = new Set<number>();
    for (let i = 0; i < 50; i++) seen.add(creativesBid(onChannelBlocking([both], ['IAB7-38']))[0]!);
    expect(seen).toEqual(new Set([11, 12]));
  });

  it('passes over a campaign whose every fitting creative is blocked, naming the reason, for the next best', () => {
    const refused: SourceFate[] = [];
    const req = onChannelBlocking(
      [
        { ...campaign(1, 9_000_000), creatives: [health] },
        { ...campaign(2, 6_000_000), creatives: [sports] },
      ],
      ['IAB7'],
    );
    const { candidates } = campaignSource.candidates(req, (f) => refused.push(f));
    expect(candidates.map((c) => c.id)).toEqual([2]);
    expect(refused.map((f) => [f.id, f.reason])).toEqual([[1, 'blocked_category']]);
    // a creative of no category is never blocked; one that does not fit the player is not a category matter
    expect(creativesBid(onChannelBlocking([campaign(3, 5_000_000)], ['IAB7']))).toEqual([9]);
    const banner = { ...health, format: 'display' as const };
    const unfit: SourceFate[] = [];
    campaignSource.candidates(onChannelBlocking([{ ...campaign(4, 5_000_000), creatives: [banner] }], ['IAB7']), (f) =>
      unfit.push(f),
    );
    expect(unfit.map((f) => f.reason)).toEqual(['no_fitting_creative']);
  });

  it("holds a supplier's impressions (DSP mode) to the supplier's blocked ad categories", () => {
    const blocks = categoryBlocks(['IAB7'], [health, sports]);
    const supplier: SnapSupplier = {
      id: 7,
      uid: 'sup',
      tenantId: 1,
      name: 'S',
      serving: true,
      qpsLimit: 'unlimited',
      marginPercent: 10,
      formats: ['video'],
      targeting: null,
      categoryBlocks: blocks,
      userSyncUrl: '',
    };
    const req = requestOver([{ ...campaign(1, 6_000_000), creatives: [health, sports] }], true);
    const channel = supplierChannel(req.snapshot, supplier, 'video', '4.2', 'web', 0);
    expect(channel.categoryBlocks).toBe(blocks);
    for (let i = 0; i < 20; i++) expect(creativesBid({ ...req, channel, supplier })).toEqual([12]);
  });
});

describe('a traced request names the campaigns set aside, and why', () => {
  const lists = { apps: new Map(), publishers: new Map([[8, ['news.example.com']]]), creatives: new Map() };
  const targeted = (id: number, rules: object): SnapCampaign => ({
    ...campaign(id, 1_000_000),
    targeting: compileTargeting(id, TargetingRules.parse(rules), lists),
  });

  it('names the campaigns the targeting index set aside, the first 200 by name, each with its rule; counts the rest', () => {
    // a US viewer (8.8.8.8); 250 campaigns for Germany only
    const campaigns = [
      campaign(1, 5_000_000),
      ...Array.from({ length: 250 }, (_, i) => targeted(100 + i, { countries: { mode: 'include', values: ['DE'] } })),
    ];
    const traced = campaignSource.candidates(requestOver(campaigns, true), () => undefined);
    expect(traced.indexedOut).toBe(250);
    expect(traced.indexedOutCampaigns).toHaveLength(INDEXED_OUT_NAMED);
    expect(traced.indexedOutCampaigns!.map((c) => c.id)).toEqual(Array.from({ length: 200 }, (_, i) => 100 + i));
    expect(traced.indexedOutCampaigns![0]).toEqual({
      id: 100,
      name: 'Campaign 100',
      reason: 'targeting.country',
      misses: [{ rule: 'country', include: true, values: ['DE'], more: 0, viewer: 'US' }],
    });
    // the serving path names none
    const untraced = campaignSource.candidates(requestOver(campaigns, false), () => undefined);
    expect(untraced.indexedOut).toBe(250);
    expect(untraced.indexedOutCampaigns).toBeUndefined();
  });

  it("says a checked campaign's flight day and its targeting rule's values; the serving path reports neither", () => {
    const campaigns = [
      campaign(2, 9_000_000, true),
      targeted(3, { pubLists: { mode: 'include', ids: [8] } }),
      campaign(4, 1_000_000),
    ];
    const { refused } = pick(requestOver(campaigns, true));
    const tomorrow = new Date((Math.floor(Date.now() / HOUR_MS) + 24) * HOUR_MS).toISOString().slice(0, 10);
    expect(refused).toEqual([
      expect.objectContaining({ id: 2, reason: 'flight_not_started', flightDay: tomorrow }),
      expect.objectContaining({
        id: 3,
        reason: 'targeting.publisher_list',
        miss: { rule: 'publisher_list', include: true, values: ['news.example.com'], more: 0, viewer: '' },
      }),
    ]);
    expect(pick(requestOver(campaigns, false)).refused).toEqual([]);
  });
});
