import { type AddressInfo } from 'node:net';
import { type BidResponse } from '@adplane/shared';
import { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Clock } from '../src/clock.js';
import { type Settings } from '../src/settings.js';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { startDemandServer, type DemandServer } from './demandServers.js';
import { as, buildTestApp, createAs, login, type TestStore } from './helpers.js';
import { type TestStats } from './statsEngines.js';
import { startTestBidders, type TestBidders } from './testBidders.js';

/**
 * Ad-ops tenants set up through the real app: the demo demand user signs in and creates, with the
 * demand API, what an ad-ops person would: creatives, deals and campaigns, and, as a DSP, the
 * suppliers that post it bid requests (dspTenant: the inbound OpenRTB tests, inboundRtb.test.ts the
 * spec's examples, inboundExchanges.test.ts exchanges' shapes, and multiFormatImp.test.ts), or, as a
 * publisher, the Prebid channels its pages call, filled by its own campaigns (publisherTenant; the
 * Prebid Server tests' one is prebidPublisher), and that sells its channels to programmatic demand
 * as well (`{ programmatic }`: local bidders answer its RTB demand tags, and stand in for Prebid
 * Server for its PreBid ones; `{ vastDemand }`: a local VAST demand partner answers its VAST demand
 * tags, as in edgeServing, adPod and demandTagFunnel). The app listens on a free port, so that
 * suppliers and pages reach it over real HTTP, unless the test asks `{ listen: false }` (its edge
 * requests then listen on first use: edgeRequest, test/edgeClient.ts). Each test says only what its tenant buys and sells.
 */

/** A row the tenant created, by the name the test gave it. */
interface Created {
  id: number;
  uid: string;
}

/** Days from today as an API date (YYYY-MM-DD). */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
/** A price in USD as the API's micros. */
const usd = (n: number) => Math.round(n * 1_000_000);
/** A flight in days from today: from, to. */
type Flight = [from: number, to: number];

export interface TenantOptions {
  /** Listen on a free port (default); false: there is no `base` (edgeRequest, test/edgeClient.ts, listens when first called). */
  listen?: boolean;
  /**
   * Sells to programmatic demand: local bidders (testBidders.ts, `bidders`) are started before the
   * app, for its RTB demand tags; `prebidServer`, how their /pbs answers ('price=30'), makes them its
   * Prebid Server, for its PreBid demand tags.
   */
  programmatic?: { prebidServer?: string };
  /** Sells to VAST demand: a local demand partner (demandServers.ts, `vastDemand`) is started before the app, for its VAST demand tags. */
  vastDemand?: boolean;
  /** Counts into this stats engine's store (forEachStatsEngine) rather than one of the app's own. */
  statsEngine?: TestStats;
  /** The ad-ops user signs in from this client address (freshAddress()); default 127.0.0.1. */
  signInFrom?: string;
  /** The app's clock (a TestClock); default the machine's. */
  clock?: Clock;
  /** The app's trustProxy (ADPLANE_TRUST_PROXY): 'loopback' lets edgeRequest's `remoteAddress` name the client. */
  trustProxy?: string;
  /** More settings of the app, read when it is built (after the test's own earlier beforeAll: a mail server it started). */
  settings?: () => Partial<Settings>;
  /** The key prefix of its delivery counters (a TestDeployment's, with its `redisUrl` in `settings`). */
  deliveryPrefix?: string;
}

interface SupplierTerms {
  /** Our margin on what the supplier's impressions earn, in percent; unset leaves the API's default. */
  marginPercent?: number;
  /** Requests a second, or 'unlimited' (the default). */
  qpsLimit?: number | 'unlimited';
  /** The media the supplier is set up for; default video and display. */
  formats?: string[];
  /** 0: paused. */
  status?: number;
}

/** What every creative states: whose ad it is, and what it is about. */
interface CreativeSpec {
  /** The advertiser's domain: its adomain, and by default where its file is (cdn.<domain>) and where a click goes. */
  advertiser: string;
  /** Its IAB content category; default none. */
  category?: string;
  /** Where a click goes; default https://<advertiser>/offer (a banner), https://<advertiser>/spot (a video spot). */
  clickUrl?: string;
}

interface BannerSpec extends CreativeSpec {
  /** Width and height. */
  size: [w: number, h: number];
  /** Default: https://cdn.<advertiser>/<w>x<h>.png. */
  imageUrl?: string;
  /** Default: the name the test gives it. */
  name?: string;
}

interface VideoSpotSpec extends CreativeSpec {
  /** The media file's width, height and bitrate (kbps). */
  width: number;
  height: number;
  bitrate: number;
  /** The MP4 file; default https://cdn.<advertiser>/spot.mp4. */
  mediaUrl?: string;
  /** Default: 'Spot 15s'. */
  name?: string;
}

interface DealTerms {
  name: string;
  /** The deal id suppliers send in imp.pmp.deals. */
  dealId: string;
  /** Floor CPM in USD. */
  floor: number;
  /** 1 first price, 2 second price, 3 fixed price. */
  auctionType?: number;
  buyerSeats?: string[];
  /** Limited to these suppliers (by name); default any. */
  suppliers?: string[];
  /** Default: no dates. */
  flight?: Flight;
}

interface CampaignTerms {
  /** Bid CPM in USD. */
  bid: number;
  /** Its creatives, by name. */
  creatives: string[];
  /** The deals it buys, by name. */
  deals?: string[];
  /** Limited to these suppliers, by name; default any. */
  suppliers?: string[];
  /** Default: from yesterday for 30 days. */
  flight?: Flight;
  /** Default: the name the test gives it. */
  name?: string;
}

interface PrebidChannelTerms {
  /** The ad units it serves: banners ('display') or instream video ('video'). */
  format: 'display' | 'video';
  /** The VAST a video channel writes; unset leaves the API's default. */
  vastVersion?: string;
  /** Its programmatic demand tags, by name (all at priority 1); default none: the tenant's campaigns alone. */
  demand?: string[];
}

/**
 * Demand tags by name: all at priority 1, or in tiers (`[['first'], ['second', 'third']]`), a tier's
 * tags at its priority (1, 2, …).
 */
type DemandTags = string[] | string[][];

/** How a channel selling to programmatic demand (its demand tags) is set up. */
interface DemandChannelTerms {
  /** Its demand tags, by name (DemandTags); default none: the tenant's campaigns alone. */
  demand?: DemandTags;
  /** The VAST version its player reads; default 4.2. */
  vastVersion?: string;
  /** Calls its demand tier by tier, the first to fill wins (priority), rather than all at once in an auction. */
  waterfall?: boolean;
  /** How long it waits for demand in all, in ms; default 1500. */
  timeoutMs?: number;
  /** Served only where this targeting (by name) allows. */
  targeting?: string;
  /** Checks its requests for invalid traffic and blocks it (blockIVT). */
  blockInvalidTraffic?: boolean;
  /** Created paused (status 0). */
  paused?: boolean;
  /** The ad units it serves; unset leaves the API's default (video). */
  format?: 'display' | 'video';
  /** The publisher's revenue share in percent; unset leaves the API's default. */
  revshare?: number;
  /** Its auction's price: 'first' (the winner pays its bid) or 'second'; unset leaves the API's default. */
  auctionPrice?: 'first' | 'second';
  /** Under this subpublisher (its user id); default none. */
  subpublisherId?: number;
}

/** What every tenant has: the app, its rows, and the demand side it buys with. */
interface Tenant {
  /** The app, built (and listening unless `{ listen: false }`), in the tests and in the set-up. */
  readonly app: FastifyInstance;
  /** Where it listens: http://127.0.0.1:<port> (none with `{ listen: false }`). */
  readonly base: string;
  /** Everything created, by the name the test gave it. */
  readonly ids: Record<string, Created>;
  /** An approved image banner. */
  banner(name: string, spec: BannerSpec): Promise<Created>;
  /** An approved 15 s video spot of one MP4 media file. */
  videoSpot(name: string, spec: VideoSpotSpec): Promise<Created>;
  deal(name: string, terms: DealTerms): Promise<Created>;
  /** A campaign, running by default from yesterday for 30 days. */
  campaign(name: string, terms: CampaignTerms): Promise<Created>;
  /** Any other row (channels, tags, exchanges, …) of demand API `kind`. */
  create(name: string, kind: string, body: Record<string, unknown>): Promise<Created>;
  /** PUT a created row again as it was created, with `changes`; the answer is the test's to check. */
  edit(name: string, changes: Record<string, unknown>): Promise<LightMyRequestResponse>;
  /** Any other request, signed in as the tenant's ad-ops user; the answer is the test's to check. */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Signs the tenant's ad-ops user in again, now (a test that moved the clock past its session's lifetime). */
  signInAgain(): Promise<void>;
  /** Requests counted in the stats where `where` (SQL on the stats table), the edge's counts flushed first. */
  countedRequests(where: string): Promise<number>;
  /** Impressions counted in the stats where `where`, the edge's counts flushed first. */
  countedImpressions(where: string): Promise<number>;
}

/** A DSP: suppliers post it bid requests, its campaigns bid. */
export interface DspTenant extends Tenant {
  /** A supplier sending OpenRTB bid requests to /rtb/<its uid>. */
  supplier(name: string, label: string, terms?: SupplierTerms): Promise<Created>;
  /** POST a bid request to `path`<uid> (default /rtb/bid/): JSON unless given text or bytes, with `headers`. */
  postBidRequest(uid: string, body: unknown, headers?: Record<string, string>, path?: string): Promise<Response>;
}

/** A VAST demand tag calling the local demand partner (`{ vastDemand }`). */
interface VastTagTerms {
  /** Its path and query on the partner (demandServers.ts: 'inline?price=8&w={{width}}', 'hang', …). */
  answer: string;
  /** What it is paid: a CPM in USD, or a share in percent of the price its VAST states. */
  price: { cpm: number } | { revshare: number };
  /** How long it is waited for, in ms; unset leaves the API's default (1 s). */
  timeoutMs?: number;
  /** Called only where this targeting (by name) allows. */
  targeting?: string;
  /** Called this many times a day at the most. */
  dailyRequestCap?: number;
}

/** A publisher: its pages' Prebid.js calls its channels, its own campaigns fill them. */
export interface PublisherTenant extends Tenant {
  /** A web channel Prebid.js calls (/openrtb2/auction, the channel's uid as the bidder's param): an auction within 1 s, the publisher paid 70% of revenue. */
  prebidChannel(name: string, label: string, terms: PrebidChannelTerms): Promise<Created>;
  /** The local bidders its programmatic demand calls (`{ programmatic }` only); each records what it is sent. */
  readonly bidders: TestBidders;
  /** An RTB demand tag calling the local bidder, which answers as `/bid?<answer>` says ('name=api&price=25', testBidders.ts): paid its bid (CPM 0), within 1 s. */
  rtbTag(name: string, label: string, answer: string): Promise<Created>;
  /** A PreBid demand tag: Prebid Server calls `partner` with its `params`, within 1 s. */
  prebidTag(name: string, label: string, partner: string, params: Record<string, unknown>): Promise<Created>;
  /** The local VAST demand partner its VAST demand tags call (`{ vastDemand }` only); it records every call and its headers. */
  readonly vastDemand: DemandServer;
  /** A VAST demand tag calling the local demand partner for `answer`. */
  vastTag(name: string, label: string, terms: VastTagTerms): Promise<Created>;
  /** A channel players call (GET /vast/<uid>, VAST 4.2 unless told) that sells to its demand tags: an auction within 1.5 s unless told. */
  vastChannel(name: string, label: string, terms: DemandChannelTerms): Promise<Created>;
  /** A channel publishers' SSPs post OpenRTB video requests to (/rtb/<uid>), selling to its demand tags: an auction within 1.5 s, the publisher paid 50% of revenue. */
  openRtbChannel(name: string, label: string, terms: { demand: string[] }): Promise<Created>;
}

/**
 * Register, in the calling describe block, a DSP tenant on `t`'s store: before its tests the app is
 * built (and listening; the local bidders and VAST demand partner started first with `{ programmatic }`
 * and `{ vastDemand }`), `setUp` creates the tenant's rows, and the edge's snapshot is rebuilt; after
 * them the app (then the bidders and the partner) is closed.
 */
export function dspTenant(
  t: TestStore,
  setUp: (dsp: DspTenant) => Promise<void>,
  options: TenantOptions = {},
): DspTenant {
  return tenant(t, setUp, options);
}

/** Register a publisher tenant on `t`'s store, as dspTenant does a DSP. */
export function publisherTenant(
  t: TestStore,
  setUp: (publisher: PublisherTenant) => Promise<void>,
  options: TenantOptions = {},
): PublisherTenant {
  return tenant(t, setUp, options);
}

export interface PrebidPublisherSpec extends TenantOptions {
  /** What its rows' names start with: '<label> banner', '<label> display', …. */
  label: string;
  /** The banner's image. */
  imageUrl: string;
  /** The spot's MP4 file. */
  mediaUrl: string;
  /** Where a click on either goes; default https://brand.example.com/offer (the banner), /spot (the spot). */
  clickUrl?: string;
}

/**
 * Register the Prebid tests' publisher on `t`'s store: brand.example.com's 300x250 banner ('banner',
 * in campaign 'bannerCampaign' at $5) and 15 s 640x360 spot ('video', in 'videoCampaign' at $10:
 * above the demo workspace's own video campaign at $6, it wins the video channel), sold through
 * Prebid channels 'display' and 'instream' (VAST 4.2); `more` adds a test's own rows.
 */
export function prebidPublisher(
  t: TestStore,
  spec: PrebidPublisherSpec,
  more?: (publisher: PublisherTenant) => Promise<void>,
): PublisherTenant {
  const { label, imageUrl, mediaUrl, clickUrl, ...options } = spec;
  return publisherTenant(
    t,
    async (publisher) => {
      const advertiser = 'brand.example.com';
      await publisher.banner('banner', { name: `${label} banner`, size: [300, 250], advertiser, imageUrl, clickUrl });
      await publisher.videoSpot('video', {
        name: `${label} spot`,
        width: 640,
        height: 360,
        bitrate: 800,
        advertiser,
        mediaUrl,
        clickUrl,
      });
      await publisher.campaign('bannerCampaign', { name: `${label} banner`, bid: 5, creatives: ['banner'] });
      await publisher.campaign('videoCampaign', { name: `${label} video`, bid: 10, creatives: ['video'] });
      await publisher.prebidChannel('display', `${label} display`, { format: 'display' });
      await publisher.prebidChannel('instream', `${label} instream`, { format: 'video', vastVersion: '4.2' });
      await more?.(publisher);
    },
    options,
  );
}

function tenant(
  t: TestStore,
  setUp: (tenant: DspTenant & PublisherTenant) => Promise<void>,
  {
    listen = true,
    programmatic,
    vastDemand: withVastDemand = false,
    statsEngine,
    signInFrom,
    clock,
    trustProxy,
    settings,
    deliveryPrefix,
  }: TenantOptions,
): DspTenant & PublisherTenant {
  let app: FastifyInstance | undefined;
  let bidders: TestBidders | undefined;
  let vastDemand: DemandServer | undefined;
  let cookie = '';
  let base = '';
  const ids: Record<string, Created> = {};
  const created: Record<string, { kind: string; body: Record<string, unknown> }> = {};
  const idsOf = (names: string[]) => names.map((n) => ids[n]!.id);
  const counted = async (column: 'reqs' | 'imps', where: string) => {
    await ready().edge.flush();
    const [row] = await ready().stats.select(`SELECT sum(${column}) AS ${column} FROM ${STATS_TABLE} WHERE ${where}`);
    return Number(row?.[column] ?? 0);
  };
  const demandOf = (tags: DemandTags) => ({
    demand: (tags as (string | string[])[]).flatMap((tier, i) =>
      Array.isArray(tier)
        ? idsOf(tier).map((tagId) => ({ tagId, priority: i + 1 }))
        : [{ tagId: ids[tier]!.id, priority: 1 }],
    ),
  });
  const ready = (): FastifyInstance => {
    if (!app) throw new Error('The tenant is set up in beforeAll: use it inside a test or hook');
    return app;
  };

  const tenant: DspTenant & PublisherTenant = {
    get app() {
      return ready();
    },
    get base() {
      ready();
      if (!listen) throw new Error('The app does not listen ({ listen: false }): use edgeRequest (test/edgeClient.ts)');
      return base;
    },
    get bidders() {
      ready();
      if (!bidders) throw new Error('The tenant buys no programmatic demand: ask { programmatic: {} }');
      return bidders;
    },
    get vastDemand() {
      ready();
      if (!vastDemand) throw new Error('The tenant buys no VAST demand: ask { vastDemand: true }');
      return vastDemand;
    },
    ids,
    async create(name, kind, body) {
      created[name] = { kind, body };
      return (ids[name] = await createAs(ready(), cookie, kind, body));
    },
    supplier: (name, label, terms = {}) =>
      tenant.create(name, 'sups', { name: label, qpsLimit: 'unlimited', formats: ['video', 'display'], ...terms }),
    banner: (
      name,
      {
        size: [w, h],
        advertiser,
        category,
        name: label = name,
        imageUrl = `https://cdn.${advertiser}/${w}x${h}.png`,
        clickUrl = `https://${advertiser}/offer`,
      },
    ) =>
      tenant.create(name, 'creatives', {
        name: label,
        format: 'display',
        displayType: 'image',
        imageUrl,
        width: w,
        height: h,
        clickUrl,
        adomain: [advertiser],
        ...(category && { iabCategories: [category] }),
        approval: 'approved',
      }),
    videoSpot: (
      name,
      {
        width,
        height,
        bitrate,
        advertiser,
        category,
        name: label = 'Spot 15s',
        mediaUrl = `https://cdn.${advertiser}/spot.mp4`,
        clickUrl = `https://${advertiser}/spot`,
      },
    ) =>
      tenant.create(name, 'creatives', {
        name: label,
        format: 'video',
        videoSource: 'media',
        approval: 'approved',
        clickUrl,
        adomain: [advertiser],
        ...(category && { iabCategories: [category] }),
        duration: 15,
        mediaFiles: [{ url: mediaUrl, mime: 'video/mp4', duration: 15, width, height, bitrate }],
      }),
    deal: (name, { name: label, dealId, floor, auctionType, buyerSeats, suppliers, flight }) =>
      tenant.create(name, 'deals', {
        name: label,
        dealId,
        floorCpm: usd(floor),
        ...(auctionType !== undefined && { auctionType }),
        ...(buyerSeats && { buyerSeats }),
        ...(suppliers && { supplierIds: idsOf(suppliers) }),
        ...(flight && { startDate: day(flight[0]), endDate: day(flight[1]) }),
      }),
    campaign: (name, { name: label = name, bid, creatives, deals, suppliers, flight = [-1, 30] }) =>
      tenant.create(name, 'campaigns', {
        name: label,
        startDate: day(flight[0]),
        endDate: day(flight[1]),
        bidCpm: usd(bid),
        channelScope: 'all',
        creativeIds: idsOf(creatives),
        ...(deals && { dealIds: idsOf(deals) }),
        ...(suppliers && { supplierIds: idsOf(suppliers) }),
      }),
    prebidChannel: (name, label, { format, vastVersion, demand }) =>
      tenant.create(name, 'channels', {
        name: label,
        environment: 'web',
        integration: 'PreBid',
        format,
        payout: { type: 'revshare', percent: 70 },
        demandMode: 'auction',
        timeoutMs: 1000,
        ...(vastVersion && { vastVersion }),
        ...(demand && demandOf(demand)),
      }),
    rtbTag: (name, label, answer) =>
      tenant.create(name, 'tags', {
        name: label,
        integration: 'RTB',
        endpoint: `${tenant.bidders.url}/bid?${answer}`,
        price: { type: 'cpm', cpm: 0 },
        timeoutMs: 1000,
      }),
    prebidTag: (name, label, partner, partnerParams) =>
      tenant.create(name, 'tags', { name: label, integration: 'PreBid', partner, partnerParams, timeoutMs: 1000 }),
    vastTag: (name, label, { answer, price, timeoutMs, targeting, dailyRequestCap }) =>
      tenant.create(name, 'tags', {
        name: label,
        vastUrl: `${tenant.vastDemand.url}/${answer}`,
        price: 'cpm' in price ? { type: 'cpm', cpm: usd(price.cpm) } : { type: 'revshare', percent: price.revshare },
        ...(timeoutMs !== undefined && { timeoutMs }),
        ...(targeting && { targetingId: ids[targeting]!.id }),
        ...(dailyRequestCap !== undefined && { dailyRequestCap }),
      }),
    vastChannel: (
      name,
      label,
      {
        demand = [],
        vastVersion = '4.2',
        waterfall,
        timeoutMs = 1500,
        targeting,
        blockInvalidTraffic,
        paused,
        format,
        revshare,
        auctionPrice,
        subpublisherId,
      },
    ) =>
      tenant.create(name, 'channels', {
        name: label,
        vastVersion,
        demandMode: waterfall ? 'priority' : 'auction',
        timeoutMs,
        ...(paused && { status: 0 }),
        ...(targeting && { targetingId: ids[targeting]!.id }),
        ...(blockInvalidTraffic && { blockIVT: true }),
        ...(format && { format }),
        ...(auctionPrice && { auctionPrice }),
        ...(subpublisherId !== undefined && { subpublisherId }),
        ...(revshare !== undefined && { payout: { type: 'revshare', percent: revshare } }),
        ...demandOf(demand),
      }),
    openRtbChannel: (name, label, { demand }) =>
      tenant.create(name, 'channels', {
        name: label,
        integration: 'RTB',
        format: 'video',
        demandMode: 'auction',
        timeoutMs: 1500,
        payout: { type: 'revshare', percent: 50 },
        ...demandOf(demand),
      }),
    edit(name, changes) {
      const { kind, body } = created[name]!;
      return tenant.request({
        method: 'PUT',
        url: `/api/demand/${kind}/${ids[name]!.id}`,
        payload: { ...body, ...changes },
      });
    },
    request: (options) => as(ready(), cookie, options),
    async signInAgain() {
      cookie = await login(ready(), 'demand', undefined, signInFrom);
    },
    countedRequests: (where) => counted('reqs', where),
    countedImpressions: (where) => counted('imps', where),
    postBidRequest: (uid, body, headers = {}, path = '/rtb/bid/') =>
      fetch(`${tenant.base}${path}${uid}`, {
        method: 'POST',
        body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...headers },
      }),
  };

  beforeAll(async () => {
    if (programmatic) bidders = await startTestBidders();
    if (withVastDemand) vastDemand = await startDemandServer();
    const prebidServer = programmatic?.prebidServer;
    app = await buildTestApp(
      t.store,
      {
        ...(prebidServer && { prebidServerUrl: `${bidders!.url}/pbs?${prebidServer}` }),
        ...(trustProxy && { trustProxy }),
        ...settings?.(),
      },
      {
        ...(statsEngine && { stats: statsEngine.stats }),
        ...(clock && { clock }),
        ...(deliveryPrefix && { deliveryPrefix }),
      },
    );
    cookie = await login(app, 'demand', undefined, signInFrom);
    if (listen) {
      await app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    }
    await setUp(tenant);
    await app.edge.snapshots.rebuild();
  });

  afterAll(async () => {
    await app?.close();
    await bidders?.close();
    await vastDemand?.close();
  });

  return tenant;
}

/** A bid: 200, JSON, OpenRTB 2.6 (the body in the message of a wrong status); its bid response, to check. */
export async function expectBid(res: Response): Promise<BidResponse> {
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.get('x-openrtb-version')).toBe('2.6');
  return (await res.json()) as BidResponse;
}

/** No bid: 204 with an empty body. */
export async function expectNoBid(res: Response): Promise<void> {
  expect(res.status, await res.clone().text()).toBe(204);
  expect(await res.text()).toBe('');
}
