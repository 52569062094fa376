import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Price, TargetingRules, type VastVersion } from '@adplane/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../clock.js';
import { type DemandServer, startDemandServer } from '../../../test/demandServers.js';
import { schemaErrors } from '../../../test/vastSchema.js';
import { decide, type EdgeDeps } from '../decision/adDecision.js';
import { HourlyCounters } from '../counters/hourlyCounters.js';
import { campaignSource } from '../demand/campaignSource.js';
import { ANY_ADDRESS } from '../../http/outboundAddress.js';
import { demandAgent } from '../demand/deadline.js';
import { HttpCaller } from '../demand/httpCaller.js';
import { VastFetcher } from '../demand/vastFetcher.js';
import { vastTagSource } from '../demand/vastTagSource.js';
import { buildRequestContext } from '../request/context.js';
import {
  OPEN_FLIGHT_END,
  type SnapCampaign,
  type SnapChannel,
  type SnapCreative,
  type SnapTag,
  type Snapshot,
} from '../snapshot/types.js';
import { indexCampaigns } from '../snapshot/campaigns.js';
import { categoryBlocks } from '../snapshot/categoryBlocks.js';
import { compileTargeting } from '../targeting/compiledTargeting.js';
import { TokenSigner } from '../tracking/trackingToken.js';
import { DeliveryGate } from './deliveryGate.js';

/**
 * Auction cases as JSON files (fixtures/*.json): channel, demand tags answered by a local demand
 * server (inline, wrapper chains, empty, garbage, hanging), campaigns, the request, and the expected
 * winner, prices and per-source fates. Add a case by adding a file.
 */
interface Fixture {
  description: string;
  channel: {
    demandMode: 'auction' | 'priority';
    auctionPrice: 'first' | 'second';
    floorCpm: number;
    payout: Price;
    vastVersion: VastVersion;
    timeoutMs: number;
    demand: { tag: string; priority: number }[];
    targeting?: unknown;
  };
  tags: Record<string, { path: string; price: Price; floorCpm?: number; timeoutMs?: number; targeting?: unknown }>;
  /** `iabCategories`: its creative's (a creative of its own, id 1000 + the campaign's); none: the shared creative, of no category. */
  campaigns: { id: number; bidCpm: number; targeting?: unknown; iabCategories?: string[] }[];
  request: { query: Record<string, string>; userAgent?: string };
  expect: {
    result: string;
    winner: null | {
      source: string;
      id?: number;
      tag?: string;
      clearingCpm: number;
      payoutCpm: number;
      marginCpm: number;
    };
    fates: Record<string, string>;
    /** Sources the decision must never have looked at (no fate at all). */
    unseen?: string[];
    reasons?: Record<string, string>;
    vastErrors?: Record<string, number>;
    indexedOut?: number;
    maxMs?: number;
    documentContains?: string[];
    /**
     * The error trackers the decision fired for a source's no-fill (path and query as the demand
     * server got them, in order; [TIMESTAMP] values left out of the comparison), and for sources
     * listed with [] none.
     */
    errorPings?: Record<string, string[]>;
  };
}

const DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const LISTS = { apps: new Map(), publishers: new Map(), creatives: new Map() };
const rules = (r: unknown) => (r ? compileTargeting(1, TargetingRules.parse(r), LISTS) : null);

function snapshotOf(f: Fixture, demandUrl: string): { snapshot: Snapshot; tagIds: Map<string, number> } {
  const tagIds = new Map<string, number>();
  const tags = new Map<number, SnapTag>();
  Object.entries(f.tags).forEach(([key, t], i) => {
    const id = 100 + i;
    tagIds.set(key, id);
    tags.set(id, {
      id,
      tenantId: 1,
      name: key,
      integration: 'VAST',
      vastUrl: `${demandUrl}${t.path}`,
      endpoint: '',
      partner: '',
      partnerParams: {},
      price: t.price,
      floorCpm: t.floorCpm ?? 0,
      timeoutMs: t.timeoutMs ?? 1000,
      qpsLimit: 'unlimited',
      dailyRequestCap: 'unlimited',
      dailyImpCap: 'unlimited',
      advertiserId: 0,
      targeting: rules(t.targeting),
      userSyncUrl: '',
    });
  });
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
  const creatives = new Map<number, SnapCreative>([[9, creative]]);
  const campaigns: SnapCampaign[] = f.campaigns.map((c) => {
    const own = c.iabCategories ? { ...creative, id: 1000 + c.id, iabCategories: c.iabCategories } : creative;
    creatives.set(own.id, own);
    return {
      id: c.id,
      tenantId: 1,
      name: `Campaign ${c.id}`,
      advertiserId: 0,
      advertiserName: '',
      flightStartHour: 0,
      flightEndHour: OPEN_FLIGHT_END,
      timezone: 0,
      pacing: 'asap',
      frequencyCap: null,
      totalBudget: 'unlimited',
      dailyBudget: 'unlimited',
      bidCpm: c.bidCpm,
      targeting: rules(c.targeting),
      creatives: [own],
    };
  });
  const targeting = rules(f.channel.targeting);
  const channel: SnapChannel = {
    id: 1,
    uid: 'ch',
    tenantId: 1,
    subpublisherId: 0,
    name: 'Fixture channel',
    serving: true,
    integration: 'VAST',
    environment: 'web',
    format: 'video',
    vastVersion: f.channel.vastVersion,
    floorCpm: f.channel.floorCpm,
    payout: f.channel.payout,
    demandMode: f.channel.demandMode,
    auctionPrice: f.channel.auctionPrice,
    timeoutMs: f.channel.timeoutMs,
    targeting,
    // what the snapshot compiles of the channel's blocked ad categories (snapshot/categoryBlocks.ts)
    ...(targeting?.blockedAdCategories
      ? { categoryBlocks: categoryBlocks(targeting.blockedAdCategories, creatives.values()) }
      : {}),
    demand: f.channel.demand.map((d) => ({ tag: tags.get(tagIds.get(d.tag)!)!, priority: d.priority })),
    idleTags: [],
  };
  const snapshot: Snapshot = {
    version: 1,
    builtAt: 0,
    buildMs: 0,
    tenants: new Map([[1, { id: 1, name: 'T', timezone: 0, showDsp: true }]]),
    channelsByUid: new Map([['ch', channel]]),
    channels: new Map([[1, channel]]),
    tags,
    campaigns: new Map(campaigns.map((c) => [c.id, c])),
    creatives,
    suppliersByUid: new Map(),
    adExchanges: new Map(),
    deals: new Map(),
    campaignIndex: indexCampaigns(campaigns),
    skipped: {},
  };
  return { snapshot, tagIds };
}

describe('auction fixtures', () => {
  let server: DemandServer;
  const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
  const notices = new HttpCaller(demandAgent(ANY_ADDRESS));
  beforeAll(async () => {
    server = await startDemandServer();
  });
  afterAll(async () => {
    await fetcher.close();
    await notices.close();
    await server.close();
  });

  it.each(FIXTURES)('%s', async (file) => {
    const f = JSON.parse(readFileSync(`${DIR}${file}`, 'utf8')) as Fixture;
    const { snapshot, tagIds } = snapshotOf(f, server.url);
    const deps: EdgeDeps = {
      clock: systemClock,
      snapshot: () => snapshot,
      counters: new HourlyCounters(() => null),
      pacing: new DeliveryGate(),
      signer: new TokenSigner('k'.repeat(32)),
      sources: [campaignSource, vastTagSource(fetcher)],
      origin: 'http://ads.test',
      notify: (url) => notices.fire(url),
    };
    const ctx = buildRequestContext(
      f.request.query,
      { remoteAddress: '127.0.0.1', userAgent: f.request.userAgent ?? '' },
      Date.now(),
    );
    const started = Date.now();
    const callsBefore = server.calls.length;
    const deciding = decide(deps, 'ch', ctx);
    const { xml, trace } = await deciding;
    const elapsed = Date.now() - started;
    // the decision comes at once (no promise, answered in the request's own turn) exactly when no demand was called over the network
    expect(deciding instanceof Promise).toBe(server.calls.length > callsBefore);

    expect(trace.result, f.description).toBe(f.expect.result);
    expect(schemaErrors(f.channel.vastVersion, xml)).toBe('');
    const key = (s: { source: string; id: number }) =>
      s.source === 'campaign' ? `campaign:${s.id}` : `tag:${[...tagIds].find(([, id]) => id === s.id)?.[0]}`;
    const fates = Object.fromEntries(trace.sources.map((s) => [key(s), s.fate]));
    expect(fates).toMatchObject(f.expect.fates);
    for (const k of f.expect.unseen ?? []) expect(fates, `${k} was looked at`).not.toHaveProperty([k]);
    for (const [k, reason] of Object.entries(f.expect.reasons ?? {}))
      expect(trace.sources.find((s) => key(s) === k)?.reason, k).toBe(reason);
    for (const [k, code] of Object.entries(f.expect.vastErrors ?? {}))
      expect(trace.sources.find((s) => key(s) === k)?.vastError, k).toBe(code);
    if (f.expect.indexedOut !== undefined) expect(trace.indexedOut).toBe(f.expect.indexedOut);
    if (f.expect.maxMs !== undefined) expect(elapsed).toBeLessThan(f.expect.maxMs);
    for (const text of f.expect.documentContains ?? []) expect(xml).toContain(text);
    const pinged = (url: URL) => `${url.pathname}${url.search}`.replace(/([?&]ts=)[^&]*/, '$1');
    for (const [k, expected] of Object.entries(f.expect.errorPings ?? {})) {
      const urls = (trace.sources.find((s) => key(s) === k)?.errorPings ?? []).map((u) => new URL(u));
      for (const u of urls) expect(u.searchParams.get('ts') ?? '2000', 'a [TIMESTAMP] filled').toMatch(/^\d{4}-?/);
      const fired = urls.map(pinged);
      expect(fired, k).toEqual(expected);
      // fired for real: the demand server hears of each
      await expect
        .poll(() => server.calls.slice(callsBefore).map(pinged), { timeout: 3000 })
        .toEqual(expect.arrayContaining(expected));
    }
    if (f.expect.winner === null) expect(trace.winner).toBeNull();
    else {
      const { tag, ...rest } = f.expect.winner;
      expect(trace.winner).toMatchObject(tag ? { ...rest, id: tagIds.get(tag) } : rest);
    }
  });
});
