import { describe, expect, it } from 'vitest';
import { TestClock } from '../../clock.js';
import { HourlyCounters } from '../counters/hourlyCounters.js';
import { DeliveryGate } from '../auction/deliveryGate.js';
import { type EdgeResponse } from '../../http/edgeHttp.js';
import { ReplayGuard } from '../tracking/replayGuard.js';
import { handleEvent } from '../doors/trackingEvents.js';
import { type Decision, newDecisionId, TokenSigner } from '../tracking/trackingToken.js';
import { DEPARTED_MS, DepartedEntities } from './departed.js';
import { type SnapCampaign, type Snapshot, type SnapTag } from './types.js';

const NOW = 1_800_000_000_000;
const signer = new TokenSigner('k'.repeat(32));

/** What the impression count reads of a campaign: its limits (CampaignLimits). */
const campaign = (id: number): SnapCampaign =>
  ({
    id,
    tenantId: 1,
    timezone: 0,
    dailyBudget: 50_000_000,
    totalBudget: 'unlimited',
    pacing: 'asap',
    frequencyCap: null,
  }) as unknown as SnapCampaign;
const tag = (id: number): SnapTag =>
  ({ id, tenantId: 1, dailyImpCap: 1000, dailyRequestCap: 'unlimited', qpsLimit: 'unlimited' }) as unknown as SnapTag;

const snapshot = (campaigns: SnapCampaign[], tags: SnapTag[] = []): Snapshot =>
  ({
    campaigns: new Map(campaigns.map((c) => [c.id, c])),
    tags: new Map(tags.map((t) => [t.id, t])),
    tenants: new Map(),
    creatives: new Map(),
  }) as unknown as Snapshot;

describe('entities that left the snapshot', () => {
  it('are kept, as they last were, from the build they left in until a token of theirs expires, and dropped when they come back', () => {
    const departed = new DepartedEntities();
    const first = snapshot([campaign(1), campaign(2)], [tag(9)]);
    departed.swap(null, first, NOW);
    expect(first.departed!.campaigns.size).toBe(0);
    const second = snapshot([campaign(2)]);
    departed.swap(first, second, NOW + 1000);
    expect([...second.departed!.campaigns.keys()]).toEqual([1]);
    expect(second.departed!.campaigns.get(1)).toBe(first.campaigns.get(1));
    expect([...second.departed!.tags.keys()]).toEqual([9]);
    // campaign 1 is resumed: no longer departed; 2 is paused now
    const third = snapshot([campaign(1)]);
    departed.swap(second, third, NOW + 2000);
    expect([...third.departed!.campaigns.keys()]).toEqual([2]);
    // a day later nothing of it is kept
    const fourth = snapshot([campaign(1)]);
    departed.swap(third, fourth, NOW + 2000 + DEPARTED_MS + 1);
    expect(fourth.departed!.campaigns.size).toBe(0);
    expect(fourth.departed!.tags.size).toBe(0);
  });

  it("start with what the store says left before the process's first build, each kept a day from when it left", () => {
    const departed = new DepartedEntities();
    const first = snapshot([campaign(2)]);
    first.leftBeforeStart = {
      campaigns: new Map([
        [1, { value: campaign(1), at: NOW - DEPARTED_MS + 5_000 }],
        // live again by the time the build read it: not departed
        [2, { value: campaign(2), at: NOW - 1_000 }],
      ]),
      tags: new Map([[9, { value: tag(9), at: NOW - 60_000 }]]),
    };
    departed.swap(null, first, NOW);
    expect([...first.departed!.campaigns.keys()]).toEqual([1]);
    expect([...first.departed!.tags.keys()]).toEqual([9]);
    expect(first.leftBeforeStart).toBeUndefined();
    // a day after it left, not when the process learnt of it
    const second = snapshot([campaign(2)]);
    departed.swap(first, second, NOW + 10_000);
    expect([...second.departed!.campaigns.keys()]).toEqual([]);
    expect([...second.departed!.tags.keys()]).toEqual([9]);
  });

  it("book an impression decided before its campaign was paused on a process that did not decide it: the campaign's spend counts it", () => {
    const d: Decision = {
      id: newDecisionId(),
      at: Math.floor(NOW / 1000),
      tenantId: 1,
      channelId: 2,
      subpublisherId: 0,
      tagId: 9,
      campaignId: 5,
      creativeId: 0,
      advertiserId: 3,
      country: 'US',
      device: 'desktop',
      os: 'windows',
      appBundle: '',
      domain: 'news.example',
      revenueCpm: 4_000_000,
      costCpm: 3_000_000,
      test: 0,
      integration: 'VAST',
      supplierId: 0,
      adexchangeId: 0,
      dealId: '',
      partner: '',
      marketplace: '',
      viewer: '',
      postbid: 0,
      arm: '',
    };
    const live = snapshot([campaign(5)], [tag(9)]);
    const paused = snapshot([], []);
    new DepartedEntities().swap(live, paused, NOW);
    const res: EdgeResponse = { statusCode: 200, headersSent: false, destroyed: false, writeHead() {}, end() {} };
    const spentAfterImpression = (current: Snapshot) => {
      const pacing = new DeliveryGate();
      const deps = {
        clock: new TestClock(NOW),
        signer,
        replay: new ReplayGuard(),
        pacing,
        counters: new HourlyCounters(() => null),
        snapshot: () => current,
      };
      handleEvent(deps, new URLSearchParams({ e: 'impression', t: signer.sign(d) }), res, NOW + 5_000);
      return pacing.delivery.pacingState(campaign(5), NOW + 5_000).spentToday;
    };
    expect(spentAfterImpression(paused)).toBe(4_000);
    // without what left, the impression was counted in the reports but spent nothing of the campaign's budget
    expect(spentAfterImpression(snapshot([], []))).toBe(0);
  });
});
