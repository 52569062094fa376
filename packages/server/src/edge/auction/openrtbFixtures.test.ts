import { readdirSync, readFileSync } from 'node:fs';
import { type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type BidRequest, type Price, TargetingRules, type VastVersion } from '@adplane/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../clock.js';
import { type BidderCall, type LiteralAnswer, startTestBidders, type TestBidders } from '../../../test/testBidders.js';
import { schemaErrors } from '../../../test/vastSchema.js';
import { decide, type EdgeDeps } from '../decision/adDecision.js';
import { HourlyCounters } from '../counters/hourlyCounters.js';
import { campaignSource } from '../demand/campaignSource.js';
import { ANY_ADDRESS } from '../../http/outboundAddress.js';
import { demandAgent } from '../demand/deadline.js';
import { HttpCaller } from '../demand/httpCaller.js';
import { adExchangeSource, prebidTagSource, rtbTagSource } from '../demand/programmaticSources.js';
import { VastFetcher } from '../demand/vastFetcher.js';
import { vastTagSource } from '../demand/vastTagSource.js';
import { buildRequestContext } from '../request/context.js';
import { contextOfBidRequest } from '../request/openrtbContext.js';
import { indexCampaigns } from '../snapshot/campaigns.js';
import { categoryBlocks } from '../snapshot/categoryBlocks.js';
import {
  OPEN_FLIGHT_END,
  type SnapAdExchange,
  type SnapCampaign,
  type SnapChannel,
  type SnapDeal,
  type Snapshot,
  type SnapSupplier,
  type SnapTag,
} from '../snapshot/types.js';
import { compileTargeting } from '../targeting/compiledTargeting.js';
import { ReplayGuard } from '../tracking/replayGuard.js';
import { handleEvent } from '../doors/trackingEvents.js';
import { TokenSigner } from '../tracking/trackingToken.js';
import { DeliveryGate } from './deliveryGate.js';

/**
 * Programmatic auction cases as JSON files (fixtures/openrtb/*.json), a case a file: the channel, its
 * RTB and PreBid demand tags and the tenant's ad exchanges answered by local test bidders (a bid, a
 * deal bid, a bid under the floor, garbage, HTTP 500, no bid, a hang: by a path that says how, or
 * by the answer written down in the case), the request (a player's VAST
 * query or a supplier's OpenRTB bid request, with its deals), and what must happen: the outgoing
 * requests (matched field by field), the winner and its price, every fate and reason, the notices
 * fired (macros filled) before and after the impression.
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
    format?: 'video' | 'display';
    environment?: 'ctv' | 'app' | 'web';
    subpublisherId?: number;
    sellerId?: string;
    targeting?: unknown;
  };
  tenant?: { domain?: string };
  /**
   * The tags and exchanges are answered by the local test bidders: either a `path` that says how
   * (testBidders.ts: `/bid?price=5&deal=D1`, `/garbage`, `/hang`...), or the `answer` itself, written
   * down as the bidder sends it (testBidders.ts LiteralAnswer: `{ "json": { "id": "{request.id}", ...
   * } }`, `{ "text": "not json" }`, `{ "status": 204 }`, `delayMs`).
   */
  tags: Record<
    string,
    {
      integration: 'RTB' | 'PreBid';
      path?: string;
      answer?: LiteralAnswer;
      partner?: string;
      params?: Record<string, unknown>;
      price?: Price;
      floorCpm?: number;
      timeoutMs?: number;
      priority?: number;
      qpsLimit?: number;
      targeting?: unknown;
    }
  >;
  adExchanges?: Record<
    string,
    { path?: string; answer?: LiteralAnswer; seat?: string; tmaxMs?: number; qpsLimit?: number; marginPercent?: number }
  >;
  campaigns?: { id: number; bidCpm: number }[];
  /** The Prebid Server path on the test bidders; null: none configured. */
  prebidServer?: string | null;
  /** DSP mode: the request is a supplier's, with these deals. */
  supplier?: boolean;
  deals?: { dealId: string; floorCpm: number; auctionType?: 1 | 2 | 3; floorPerSecondCpm?: number }[];
  privateAuction?: boolean;
  /** A floor per second of the ad in demand's money (DecideOptions.floorPerSecondCpm: an inbound video.mincpmpersec). */
  floorPerSecondCpm?: number;
  request: { query?: Record<string, string>; ortb?: BidRequest; userAgent?: string };
  /** Decide this many times (a QPS limit case). */
  repeat?: number;
  expect: {
    result: string;
    winner: null | { source: string; name?: string; clearingCpm?: number; payoutCpm?: number; dealId?: string };
    fates?: Record<string, string>;
    reasons?: Record<string, string>;
    /** Per tag or exchange name: the outgoing bid request, matched with toMatchObject. */
    outgoing?: Record<string, unknown>;
    /** Per name: [min, max] of the tmax it was sent. */
    tmax?: Record<string, [number, number]>;
    /** Names that must not have been called. */
    notCalled?: string[];
    /** Notices (`win?name=a&price=3.01`: path under /notice/ and the query values that must match) fired by the decision. */
    notices?: string[];
    /** Notices that must not have been fired by the decision (a path under /notice/ and name). */
    noNotices?: string[];
    /** Notices fired once the impression is counted (/ev). */
    impressionNotices?: string[];
    documentContains?: string[];
    documentLacks?: string[];
  };
}

const DIR = fileURLToPath(new URL('./fixtures/openrtb/', import.meta.url));
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const LISTS = { apps: new Map(), publishers: new Map(), creatives: new Map([[1, ['blocked.example.com']]]) };
const rules = (r: unknown) => (r ? compileTargeting(1, TargetingRules.parse(r), LISTS) : null);
const ORIGIN = 'http://ads.test';
const limit = (n: number | undefined) => (n === undefined ? ('unlimited' as const) : n);

/** Where a tag or exchange of the fixture is called: its `path`, or the answer written down for it (registered under the fixture's file and the name). */
function pathOf(file: string, name: string, source: { path?: string; answer?: LiteralAnswer } | undefined): string {
  if (source?.answer) return `/answer/${encodeURIComponent(`${file}/${name}`)}`;
  return source?.path ?? '';
}

function snapshotOf(f: Fixture, file: string, base: string): { snapshot: Snapshot; names: Map<string, string> } {
  const names = new Map<string, string>();
  const tags = new Map<number, SnapTag>();
  Object.entries(f.tags).forEach(([name, t], i) => {
    const id = 100 + i;
    names.set(`${t.integration === 'RTB' ? 'rtb_tag' : 'prebid_tag'}:${id}`, name);
    tags.set(id, {
      id,
      tenantId: 1,
      name,
      integration: t.integration,
      vastUrl: '',
      endpoint: pathOf(file, name, t) ? `${base}${pathOf(file, name, t)}` : '',
      partner: t.partner ?? '',
      partnerParams: t.params ?? {},
      price: t.price ?? { type: 'cpm', cpm: 0 },
      floorCpm: t.floorCpm ?? 0,
      timeoutMs: t.timeoutMs ?? 1000,
      qpsLimit: limit(t.qpsLimit),
      dailyRequestCap: 'unlimited',
      dailyImpCap: 'unlimited',
      advertiserId: 0,
      targeting: rules(t.targeting),
      userSyncUrl: '',
    });
  });
  const exchanges: SnapAdExchange[] = Object.entries(f.adExchanges ?? {}).map(([name, x], i) => {
    names.set(`ad_exchange:${200 + i}`, name);
    return {
      id: 200 + i,
      tenantId: 1,
      name,
      endpoint: `${base}${pathOf(file, name, x)}`,
      tmaxMs: x.tmaxMs ?? 1000,
      qpsLimit: limit(x.qpsLimit),
      seat: x.seat ?? '',
      marginPercent: x.marginPercent ?? 0,
      targeting: null,
    };
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
  const campaigns: SnapCampaign[] = (f.campaigns ?? []).map((c) => {
    names.set(`campaign:${c.id}`, `campaign${c.id}`);
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
      targeting: null,
      creatives: [creative],
    };
  });
  const c = f.channel;
  const targeting = rules(c.targeting);
  const channel: SnapChannel = {
    id: 1,
    uid: 'ch',
    tenantId: 1,
    subpublisherId: c.subpublisherId ?? 0,
    name: 'Fixture channel',
    serving: true,
    integration: 'VAST',
    environment: c.environment ?? 'web',
    format: c.format ?? 'video',
    vastVersion: c.vastVersion,
    floorCpm: c.floorCpm,
    payout: c.payout,
    demandMode: c.demandMode,
    auctionPrice: c.auctionPrice,
    timeoutMs: c.timeoutMs,
    targeting,
    // what the snapshot compiles of the channel's blocked ad categories (snapshot/categoryBlocks.ts)
    ...(targeting?.blockedAdCategories
      ? { categoryBlocks: categoryBlocks(targeting.blockedAdCategories, [creative]) }
      : {}),
    demand: Object.values(f.tags).map((t, i) => ({ tag: tags.get(100 + i)!, priority: t.priority ?? 1 })),
    idleTags: [],
    ...(c.sellerId ? { sellerId: c.sellerId } : {}),
  };
  const snapshot: Snapshot = {
    version: 1,
    builtAt: 0,
    buildMs: 0,
    tenants: new Map([[1, { id: 1, name: 'T', timezone: 0, showDsp: true, domain: f.tenant?.domain ?? '' }]]),
    channelsByUid: new Map([['ch', channel]]),
    channels: new Map([[1, channel]]),
    tags,
    campaigns: new Map(campaigns.map((x) => [x.id, x])),
    creatives: new Map([[9, creative]]),
    suppliersByUid: new Map(),
    adExchanges: new Map([[1, exchanges]]),
    deals: new Map(),
    campaignIndex: indexCampaigns(campaigns),
    skipped: {},
  };
  return { snapshot, names };
}

/** `win?name=a&price=3.01` matches a notice at /notice/win whose query holds those values. */
function matches(notice: URL, expected: string): boolean {
  const [path, query = ''] = expected.split('?');
  if (notice.pathname !== `/notice/${path}`) return false;
  for (const [k, v] of new URLSearchParams(query)) if (notice.searchParams.get(k) !== v) return false;
  return true;
}

const sinkResponse = () => ({ writeHead: () => undefined, end: () => undefined }) as unknown as ServerResponse;

describe('OpenRTB auction fixtures', () => {
  let bidders: TestBidders;
  const fetcher = new VastFetcher(demandAgent(ANY_ADDRESS));
  const caller = new HttpCaller(demandAgent(ANY_ADDRESS));
  beforeAll(async () => {
    bidders = await startTestBidders();
  });
  afterAll(async () => {
    await fetcher.close();
    await caller.close();
    await bidders.close();
  });

  it.each(FIXTURES)('%s', async (file) => {
    const f = JSON.parse(readFileSync(`${DIR}${file}`, 'utf8')) as Fixture;
    bidders.requests.length = 0;
    bidders.notices.length = 0;
    for (const [name, source] of [...Object.entries(f.tags), ...Object.entries(f.adExchanges ?? {})])
      if (source.answer) bidders.setAnswer(`${file}/${name}`, source.answer);
    const { snapshot, names } = snapshotOf(f, file, bidders.url);
    const ortb = { caller, publicHost: ORIGIN };
    const prebidServerUrl = f.prebidServer === null ? null : `${bidders.url}${f.prebidServer ?? '/pbs'}`;
    const signer = new TokenSigner('k'.repeat(32));
    const pacing = new DeliveryGate();
    const counters = new HourlyCounters(() => null);
    const deps: EdgeDeps = {
      clock: systemClock,
      snapshot: () => snapshot,
      counters,
      pacing,
      signer,
      origin: ORIGIN,
      notify: (url) => caller.fire(url),
      sources: [
        campaignSource,
        vastTagSource(fetcher),
        rtbTagSource(ortb),
        prebidTagSource({ ...ortb, prebidServerUrl }),
        adExchangeSource(ortb),
      ],
    };
    const conn = {
      remoteAddress: '127.0.0.1',
      userAgent:
        f.request.userAgent ??
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
    };
    const supplier: SnapSupplier | undefined = f.supplier
      ? {
          id: 7,
          uid: 'sup',
          tenantId: 1,
          name: 'Supplier',
          serving: true,
          qpsLimit: 'unlimited',
          marginPercent: 0,
          formats: ['video', 'display'],
          targeting: null,
          userSyncUrl: '',
        }
      : undefined;
    const deals: SnapDeal[] = (f.deals ?? []).map((d, i) => ({
      id: i + 1,
      tenantId: 1,
      name: d.dealId,
      dealId: d.dealId,
      floorCpm: d.floorCpm,
      auctionType: d.auctionType ?? 2,
      buyerSeats: ['upstream-seat'],
      supplierIds: [],
      start: -Infinity,
      end: Infinity,
      ...(d.floorPerSecondCpm ? { floorPerSecondCpm: d.floorPerSecondCpm } : {}),
    }));
    const options = {
      supplier,
      deals,
      privateAuction: f.privateAuction ?? false,
      integration: supplier ? ('RTB' as const) : ('VAST' as const),
      floorPerSecondCpm: f.floorPerSecondCpm ?? 0,
    };
    // QPS limits count per wall-clock second: repeated decisions start early in one
    if (f.repeat && Date.now() % 1000 > 700) await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));
    let outcome!: Awaited<ReturnType<typeof decide>>;
    for (let i = 0; i < (f.repeat ?? 1); i++) {
      const ctx = f.request.ortb
        ? contextOfBidRequest(f.request.ortb, f.request.ortb.imp[0]!, { remoteAddress: '', userAgent: '' }, Date.now())
        : buildRequestContext(f.request.query ?? {}, conn, Date.now());
      outcome = await decide(deps, 'ch', ctx, options);
    }
    const { xml, trace } = outcome;
    const key = (s: { source: string; id: number }) => `${s.source}:${names.get(`${s.source}:${s.id}`) ?? s.id}`;

    expect(trace.result, f.description).toBe(f.expect.result);
    expect(schemaErrors(f.channel.vastVersion, xml)).toBe('');
    const fates = Object.fromEntries(trace.sources.map((s) => [key(s), s.fate]));
    if (f.expect.fates) expect(fates).toMatchObject(f.expect.fates);
    for (const [k, reason] of Object.entries(f.expect.reasons ?? {}))
      expect(trace.sources.find((s) => key(s) === k)?.reason, k).toBe(reason);
    if (f.expect.winner === null) expect(trace.winner).toBeNull();
    else {
      const { name, ...rest } = f.expect.winner;
      expect(trace.winner).toMatchObject(rest);
      if (name) expect(key(trace.winner!)).toBe(`${rest.source}:${name}`);
    }

    const normal = (path: string) => {
      const u = new URL(path, 'http://x');
      return `${u.pathname}?${u.searchParams.toString()}`;
    };
    const sent = (name: string): BidderCall | undefined => {
      const tag = f.tags[name];
      const path =
        tag?.integration === 'PreBid' ? (f.prebidServer ?? '/pbs') : pathOf(file, name, tag ?? f.adExchanges?.[name]);
      return bidders.requests.find((r) => `${r.path}?${r.query.toString()}` === normal(path));
    };
    for (const [name, partial] of Object.entries(f.expect.outgoing ?? {})) {
      const call = sent(name);
      expect(call, `${name} was called`).toBeDefined();
      expect(call!.headers['x-openrtb-version']).toBe('2.6');
      expect(call!.headers['content-type']).toBe('application/json');
      expect(call!.body, name).toMatchObject(partial as object);
    }
    for (const [name, [min, max]] of Object.entries(f.expect.tmax ?? {})) {
      const tmax = sent(name)!.body.tmax!;
      expect(tmax, `${name} tmax`).toBeGreaterThanOrEqual(min);
      expect(tmax, `${name} tmax`).toBeLessThanOrEqual(max);
    }
    for (const name of f.expect.notCalled ?? []) expect(sent(name), `${name} was called`).toBeUndefined();
    for (const text of f.expect.documentContains ?? [])
      expect(xml).toContain(text.replaceAll('{bidders}', bidders.url));
    for (const text of f.expect.documentLacks ?? [])
      expect(xml).not.toContain(text.replaceAll('{bidders}', bidders.url));

    const noticesMatch = async (expected: string[]) => {
      for (const e of expected) {
        const path = `/notice/${e.split('?')[0]}`;
        const started = Date.now();
        // (fire-and-forget: on a busy two-core machine a notice may take more than a second)
        while (!bidders.notices.some((n) => matches(n, e)) && Date.now() - started < 5000)
          await bidders.waitForNotices(path, bidders.notices.length + 1, 50);
        expect(
          bidders.notices.some((n) => matches(n, e)),
          `notice ${e} among ${bidders.notices.map((n) => n.pathname + n.search).join(' ')}`,
        ).toBe(true);
      }
    };
    await noticesMatch(f.expect.notices ?? []);
    await new Promise((r) => setTimeout(r, 50));
    for (const e of f.expect.noNotices ?? [])
      expect(
        bidders.notices.some((n) => matches(n, e)),
        `no notice ${e}`,
      ).toBe(false);

    if (f.expect.impressionNotices) {
      // the player: every impression URL of ours is fired once (twice for the first: a replay bills nothing more)
      const impressions = [...xml.matchAll(/<Impression[^>]*><!\[CDATA\[([^\]]+)\]\]>/g)]
        .map((m) => m[1]!)
        .filter((u) => u.startsWith(`${ORIGIN}/ev?`));
      expect(impressions.length).toBeGreaterThan(0);
      const eventDeps = {
        clock: systemClock,
        signer,
        replay: new ReplayGuard(),
        counters,
        pacing,
        snapshot: () => snapshot,
        notify: (url: string) => caller.fire(url),
      };
      for (const url of [impressions[0]!, ...impressions])
        handleEvent(eventDeps, new URL(url).searchParams, sinkResponse());
      await noticesMatch(f.expect.impressionNotices);
      await new Promise((r) => setTimeout(r, 50));
      expect(bidders.notices.filter((n) => n.pathname === '/notice/bill').length, 'billed once').toBe(
        f.expect.impressionNotices.filter((n) => n.startsWith('bill')).length,
      );
      expect(bidders.notices.filter((n) => n.pathname === '/notice/win').length, 'won once').toBe(
        f.expect.impressionNotices.filter((n) => n.startsWith('win')).length +
          (f.expect.notices ?? []).filter((n) => n.startsWith('win')).length,
      );
    }
  });
});
