import { type AddressInfo } from 'node:net';
import { type BidResponse } from '@adplane/shared';
import { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { as, buildTestApp, createAs, login, type TestStore } from './helpers.js';

/**
 * A DSP tenant with a supplier and campaigns, set up through the real app: the demo demand user
 * signs in and creates suppliers, creatives, deals and campaigns with the demand API, as an ad-ops
 * person would; the app listens on a free port so that suppliers can post bid requests to it over
 * real HTTP. The set-up of the inbound OpenRTB tests (inboundRtb.test.ts: the spec's examples,
 * inboundExchanges.test.ts: exchanges' shapes), each saying only what its tenant buys and sells.
 */

/** A row the tenant created, by the name the test gave it. */
export interface Created {
  id: number;
  uid: string;
}

/** Days from today as an API date (YYYY-MM-DD). */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
/** A price in USD as the API's micros. */
const usd = (n: number) => Math.round(n * 1_000_000);
/** A flight in days from today: from, to. */
type Flight = [from: number, to: number];

export interface SupplierTerms {
  /** Our margin on what the supplier's impressions earn, in percent; unset leaves the API's default. */
  marginPercent?: number;
  /** Requests a second, or 'unlimited' (the default). */
  qpsLimit?: number | 'unlimited';
  /** The media the supplier is set up for; default video and display. */
  formats?: string[];
  /** 0: paused. */
  status?: number;
}

export interface BannerSpec {
  /** Width and height. */
  size: [w: number, h: number];
  /** The advertiser's domain (its adomain, and where the image and click go). */
  advertiser: string;
  /** Its IAB content category. */
  category: string;
  /** Default: the name the test gives it. */
  name?: string;
}

export interface VideoSpotSpec {
  /** The media file's width, height and bitrate (kbps). */
  width: number;
  height: number;
  bitrate: number;
}

export interface DealTerms {
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

export interface CampaignTerms {
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
}

export interface DspTenant {
  /** The app, built and listening (in the tests and in the set-up). */
  readonly app: FastifyInstance;
  /** Where it listens: http://127.0.0.1:<port>. */
  readonly base: string;
  /** Everything created, by the name the test gave it. */
  readonly ids: Record<string, Created>;
  /** A supplier sending OpenRTB bid requests to /rtb/<its uid>. */
  supplier(name: string, label: string, terms?: SupplierTerms): Promise<Created>;
  /** An approved image banner. */
  banner(name: string, spec: BannerSpec): Promise<Created>;
  /** An approved 15 s video spot ('Spot 15s', brand.test, IAB2) of one MP4 media file. */
  videoSpot(name: string, spec: VideoSpotSpec): Promise<Created>;
  deal(name: string, terms: DealTerms): Promise<Created>;
  /** A campaign named `name`, running by default from yesterday for 30 days. */
  campaign(name: string, terms: CampaignTerms): Promise<Created>;
  /** Any other row (channels, tags, …) of demand API `kind`. */
  create(name: string, kind: string, body: Record<string, unknown>): Promise<Created>;
  /** PUT a created row again as it was created, with `changes`; the answer is the test's to check. */
  edit(name: string, changes: Record<string, unknown>): Promise<LightMyRequestResponse>;
  /** Requests counted in the stats where `where` (SQL on the stats table), the edge's counts flushed first. */
  countedRequests(where: string): Promise<number>;
  /** POST a bid request to `path`<uid> (default /rtb/bid/): JSON unless given text or bytes, with `headers`. */
  postBidRequest(uid: string, body: unknown, headers?: Record<string, string>, path?: string): Promise<Response>;
}

/**
 * Register, in the calling describe block, a DSP tenant on `t`'s store: before its tests the app is
 * built and listening, `setUp` creates the tenant's rows, and the edge's snapshot is rebuilt; after
 * them the app is closed.
 */
export function dspTenant(t: TestStore, setUp: (dsp: DspTenant) => Promise<void>): DspTenant {
  let app: FastifyInstance | undefined;
  let cookie = '';
  let base = '';
  const ids: Record<string, Created> = {};
  const created: Record<string, { kind: string; body: Record<string, unknown> }> = {};
  const idsOf = (names: string[]) => names.map((n) => ids[n]!.id);
  const ready = (): FastifyInstance => {
    if (!app) throw new Error('The DSP tenant is set up in beforeAll: use it inside a test or hook');
    return app;
  };

  const dsp: DspTenant = {
    get app() {
      return ready();
    },
    get base() {
      ready();
      return base;
    },
    ids,
    async create(name, kind, body) {
      created[name] = { kind, body };
      return (ids[name] = await createAs(ready(), cookie, kind, body));
    },
    supplier: (name, label, terms = {}) => dsp.create(name, 'sups', { name: label, qpsLimit: 'unlimited', formats: ['video', 'display'], ...terms }),
    banner: (name, { size: [w, h], advertiser, category, name: label = name }) =>
      dsp.create(name, 'creatives', {
        name: label, format: 'display', displayType: 'image', imageUrl: `https://cdn.${advertiser}/${w}x${h}.png`, width: w, height: h, clickUrl: `https://${advertiser}/offer`,
        adomain: [advertiser], iabCategories: [category], approval: 'approved',
      }),
    videoSpot: (name, { width, height, bitrate }) =>
      dsp.create(name, 'creatives', {
        name: 'Spot 15s', format: 'video', videoSource: 'media', approval: 'approved', clickUrl: 'https://brand.test/spot', adomain: ['brand.test'], iabCategories: ['IAB2'], duration: 15,
        mediaFiles: [{ url: 'https://cdn.brand.test/spot.mp4', mime: 'video/mp4', duration: 15, width, height, bitrate }],
      }),
    deal: (name, { name: label, dealId, floor, auctionType, buyerSeats, suppliers, flight }) =>
      dsp.create(name, 'deals', {
        name: label, dealId, floorCpm: usd(floor),
        ...(auctionType !== undefined && { auctionType }),
        ...(buyerSeats && { buyerSeats }),
        ...(suppliers && { supplierIds: idsOf(suppliers) }),
        ...(flight && { startDate: day(flight[0]), endDate: day(flight[1]) }),
      }),
    campaign: (name, { bid, creatives, deals, suppliers, flight = [-1, 30] }) =>
      dsp.create(name, 'campaigns', {
        name, startDate: day(flight[0]), endDate: day(flight[1]), bidCpm: usd(bid), creativeIds: idsOf(creatives),
        ...(deals && { dealIds: idsOf(deals) }),
        ...(suppliers && { supplierIds: idsOf(suppliers) }),
      }),
    edit(name, changes) {
      const { kind, body } = created[name]!;
      return as(ready(), cookie, { method: 'PUT', url: `/api/demand/${kind}/${ids[name]!.id}`, payload: { ...body, ...changes } });
    },
    async countedRequests(where) {
      await ready().edge.flush();
      const [row] = await ready().stats.select(`SELECT sum(reqs) AS reqs FROM ${STATS_TABLE} WHERE ${where}`);
      return Number(row?.reqs ?? 0);
    },
    postBidRequest: (uid, body, headers = {}, path = '/rtb/bid/') =>
      fetch(`${dsp.base}${path}${uid}`, {
        method: 'POST',
        body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...headers },
      }),
  };

  beforeAll(async () => {
    app = await buildTestApp(t.store);
    cookie = await login(app, 'demand');
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    await setUp(dsp);
    await app.edge.snapshots.rebuild();
  });

  afterAll(async () => {
    await app?.close();
  });

  return dsp;
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
