import { type APIRequestContext } from '@playwright/test';
import { expect, test } from '../support/test.js';
import {
  buildPrebidBundle,
  demandApi,
  expectBannerRendered,
  fillingDisplayChannel,
  type PageServer,
  startPageServer,
} from '../support/prebidPage.js';
import { EDITION_SERVERS } from '../support/servers.js';

/**
 * Prebid Server's event notifications and seat non-bids through adplane, proven by the real
 * Prebid.js (the npm package's core and prebidServerBidAdapter, bundled by esbuild) on a page of
 * another origin (docs/prebid.md, "Events" and "Seat non-bids"):
 * - `s2sConfig.extPrebid.events` asks for events: Prebid.js turns the banner bid's
 *   `ext.prebid.events.win` into a win event tracker and fires it when it renders the bid
 *   (`markWinningBid`); adplane acknowledges it at `GET /event`, and the impression (adplane's own
 *   pixel in the markup, then the `imp` event a creative would fire) is counted once;
 * - `s2sConfig.extPrebid.returnallbidstatus` asks for seat non-bids: Prebid.js hands the answer's
 *   `ext.seatnonbid` to its `pbsAnalytics` event (older versions' `seatNonBid` event is gone from this one).
 */
test.describe.configure({ mode: 'serial', timeout: 90_000 });

const base = EDITION_SERVERS.default.url;
const run = Date.now().toString(36);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

let api: APIRequestContext;
let pageServer: PageServer;
/** The display channel the page's ad units bid on: made for this spec, so its numbers are the tests' own. */
const channel = { id: 0, uid: '' };
/** The banner's campaign bids $30.00; the channel pays its publisher 70%. */
const BANNER_PRICE = 21;
/** The channel's banner, as the page shows it. */
const BANNER_AD = { marker: 'adplane-events-e2e', text: 'adplane events' };

/** What a page of this spec configures: its s2sConfig.extPrebid and its ad units. */
interface PageSetup {
  extPrebid: Record<string, unknown>;
  adUnits: Record<string, unknown>[];
}
let setup: PageSetup = { extPrebid: {}, adUnits: [] };

interface BidSeen {
  adId: string;
  adUnitCode: string;
  bidderCode: string;
  cpm: number;
  mediaType: string;
  pbsBidId?: string;
  eventtrackers?: { event: number; method: number; url: string }[];
}
interface PbsAnalyticsSeen {
  auctionId: string;
  seatnonbid: unknown;
  requestedBidders: string[];
  /** the PBS answer as the event carries it (its `ext`) */
  responseExt: Record<string, unknown>;
}
interface PrebidResult {
  auctionId: string;
  responses: Record<string, BidSeen[]>;
  /** The pbsAnalytics events emitted by the time Prebid.js called bidsBackHandler. */
  pbsAnalytics: PbsAnalyticsSeen[];
}
interface PbsBid {
  impid: string;
  price: number;
  adm?: string;
  ext: { prebid: { type: string; bidid: string; events?: { win: string; imp: string } } };
}
interface NonBid {
  impid: string;
  statuscode: number;
  ext?: { prebid: { bid: Record<string, unknown> } };
}
interface PbsAnswer {
  seatbid: { seat: string; bid: PbsBid[] }[];
  ext: { prebid: { auctiontimestamp: number }; seatnonbid?: { seat: string; nonbid: NonBid[] }[] };
}

/** The publisher's page: Prebid.js with adplane as its Prebid Server, set up as `setup` says. */
function pageHtml(): string {
  const config = {
    endpoint: `${base}/openrtb2/auction`,
    account: channel.uid,
    extPrebid: setup.extPrebid,
    adUnits: setup.adUnits,
  };
  return `<!doctype html><html><head><title>Publisher page</title><script src="/prebid.js"></script></head><body>
<h1>A publisher's page</h1><div id="banner-1"></div>
<script>
const cfg = ${JSON.stringify(config)};
window.pbsAnalytics = [];
window.bidsWon = [];
window.prebidResult = new Promise((resolve) => {
  pbjs.que.push(() => {
    pbjs.onEvent('pbsAnalytics', (e) => window.pbsAnalytics.push({ auctionId: e.auctionId, seatnonbid: e.seatnonbid, requestedBidders: e.requestedBidders, responseExt: e.response && e.response.ext }));
    pbjs.onEvent('bidWon', (b) => window.bidsWon.push(b.adId));
    pbjs.setConfig({
      s2sConfig: [{ accountId: cfg.account, bidders: ['adplane'], adapter: 'prebidServer', enabled: true, endpoint: cfg.endpoint, timeout: 1000, extPrebid: cfg.extPrebid }],
    });
    pbjs.addAdUnits(cfg.adUnits);
    pbjs.requestBids({
      timeout: 3000,
      bidsBackHandler: (responses, _timedOut, auctionId) => {
        const out = {};
        for (const [code, unit] of Object.entries(responses)) {
          out[code] = unit.bids.map((b) => ({ adId: b.adId, adUnitCode: b.adUnitCode, bidderCode: b.bidderCode, cpm: b.cpm, mediaType: b.mediaType, pbsBidId: b.pbsBidId, eventtrackers: b.eventtrackers }));
        }
        resolve({ auctionId, responses: out, pbsAnalytics: window.pbsAnalytics.slice() });
      },
    });
  });
});
</script></body></html>`;
}

const bannerUnit = (code: string, sizes: number[][], extra: Record<string, unknown> = {}) => ({
  code,
  mediaTypes: { banner: { sizes } },
  bids: [{ bidder: 'adplane', params: { channel: channel.uid } }],
  ...extra,
});

/** `name{labels} value` of adplane's /metrics (0 when the series is not there yet). */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const res = await api.get('/metrics');
  expect(res.status()).toBe(200);
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const close = line.indexOf('}');
    const have = line.slice(name.length + 1, close).split(',');
    if (wanted.every((l) => have.includes(l)) && have.length === wanted.length)
      return Number(line.slice(close + 1).trim());
  }
  return 0;
}

/** One Prebid Server auction for the channel, outside the page (`domain`: the site it names). */
async function auction(id: string, domain: string): Promise<PbsAnswer> {
  const res = await api.post('/openrtb2/auction', {
    data: {
      id,
      site: { domain, page: `https://${domain}/` },
      imp: [
        {
          id: '1',
          banner: { format: [{ w: 300, h: 250 }] },
          ext: { prebid: { bidder: { adplane: { channel: channel.uid } } } },
        },
      ],
    },
  });
  expect(res.status()).toBe(200);
  return (await res.json()) as PbsAnswer;
}

test.beforeAll(async () => {
  api = await demandApi(base);
  const made = await fillingDisplayChannel(api, base, {
    channel: `E2E Prebid events ${run}`,
    campaign: `E2E Prebid events campaign ${run}`,
    creative: `E2E Prebid events banner ${run}`,
    ...BANNER_AD,
    bidCpm: 30_000_000,
  });
  Object.assign(channel, made);
  // The edge answers once the new channel is in its snapshot (rebuilt within a second of a change).
  await expect.poll(async () => (await auction('probe', 'probe.example')).seatbid.length, { timeout: 15_000 }).toBe(1);
  pageServer = await startPageServer(await buildPrebidBundle(), pageHtml);
});

test.afterAll(async () => {
  await pageServer?.close();
  await api?.dispose();
});

test("with s2sConfig.extPrebid.events, Prebid.js fires the bid's win event at adplane's /event when it renders the banner, and the impression counts once", async ({
  page,
}) => {
  setup = { extPrebid: { events: {} }, adUnits: [bannerUnit('banner-1', [[300, 250]])] };
  const logs: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') logs.push(m.text());
  });
  const before = {
    win: await metric('adplane_prebid_events_total', { type: 'win', result: 'acknowledged' }),
    imp: await metric('adplane_prebid_events_total', { type: 'imp', result: 'counted' }),
  };

  const answered = page.waitForResponse(
    (r) => r.url() === `${base}/openrtb2/auction` && r.request().method() === 'POST',
  );
  await page.goto(`${pageServer.origin}/`);
  const response = await answered;
  const result = (await page.evaluate(
    () => (window as unknown as { prebidResult: Promise<unknown> }).prebidResult,
  )) as PrebidResult;

  // Prebid.js asked for events (extPrebid merged into ext.prebid), with its auction timestamp
  const sent = response.request().postDataJSON() as {
    site: { publisher: { id: string } };
    ext: { prebid: { events?: unknown; auctiontimestamp: number; integration?: string } };
  };
  expect(sent.ext.prebid.events).toEqual({});
  expect(sent.site.publisher.id).toBe(channel.uid);

  // adplane's banner bid carries Prebid Server's win and imp URLs to its /event
  const answer = (await response.json()) as PbsAnswer;
  const bid = answer.seatbid[0]!.bid[0]!;
  expect(bid).toMatchObject({
    impid: 'banner-1',
    price: BANNER_PRICE,
    ext: { prebid: { type: 'banner', bidid: expect.any(String) } },
  });
  expect(answer.ext.prebid.auctiontimestamp).toBe(sent.ext.prebid.auctiontimestamp);
  const { win, imp } = bid.ext.prebid.events!;
  for (const [url, t] of [
    [win, 'win'],
    [imp, 'imp'],
  ] as const) {
    const u = new URL(url);
    expect(`${u.origin}${u.pathname}`).toBe(`${base}/event`);
    expect(Object.fromEntries(u.searchParams)).toMatchObject({
      t,
      b: bid.ext.prebid.bidid,
      a: channel.uid,
      bidder: 'adplane',
      ts: String(sent.ext.prebid.auctiontimestamp),
      tk: expect.stringMatching(/.{16,}/),
    });
    if (sent.ext.prebid.integration) expect(u.searchParams.get('int')).toBe(sent.ext.prebid.integration);
  }

  // Prebid.js made the win URL the bid's win event tracker (event 500, an image pixel)
  expect(result.responses['banner-1'], logs.join('\n')).toHaveLength(1);
  const banner = result.responses['banner-1']![0]!;
  expect(banner).toMatchObject({
    bidderCode: 'adplane',
    mediaType: 'banner',
    cpm: BANNER_PRICE,
    pbsBidId: bid.ext.prebid.bidid,
  });
  expect(banner.eventtrackers).toEqual([{ event: 500, method: 1, url: win }]);

  // The page renders the winning ad: its markup's impression pixel reaches adplane, and Prebid.js fires the win event
  const winFired = page.waitForRequest((r) => r.url() === win);
  await expectBannerRendered(page, base, { code: 'banner-1', adId: banner.adId }, BANNER_AD);
  const winRequest = await winFired;
  expect(winRequest.method()).toBe('GET');
  expect((await winRequest.response())?.status()).toBe(204);
  expect(await page.evaluate(() => (window as unknown as { bidsWon: string[] }).bidsWon)).toEqual([banner.adId]);

  // A creative or an SDK fires the imp event too (cross-origin, with credentials): adplane answers it
  // (CORS as its other entries), a replay of the impression its pixel counted
  const impAnswer = await page.evaluate(async (url) => {
    const res = await fetch(url, { credentials: 'include' });
    return { status: res.status, body: await res.text() };
  }, imp);
  expect(impAnswer).toEqual({ status: 204, body: '' });

  expect(await metric('adplane_prebid_events_total', { type: 'win', result: 'acknowledged' })).toBe(before.win + 1);
  expect(await metric('adplane_prebid_events_total', { type: 'imp', result: 'counted' })).toBe(before.imp + 1);

  // The reports: one impression. A later auction, from a site of its own, is the mark that the
  // counters flushed since every event above was answered (they flush whole, in order).
  const marker = `flushed-${run}.example`;
  expect((await auction('marker', marker)).seatbid).toHaveLength(1);
  const report = async () => {
    const res = await api.post('/api/rrun', {
      data: {
        startDate: day(-1),
        endDate: day(0),
        dimensions: ['domain'],
        metrics: ['reqs', 'imps'],
        filters: { channel: [channel.id] },
      },
    });
    expect(res.status(), await res.text()).toBe(200);
    return (await res.json()) as (Record<string, string | number> & { total?: boolean })[];
  };
  await expect
    .poll(async () => (await report()).some((r) => r.domain === marker && Number(r.reqs) >= 1), { timeout: 20_000 })
    .toBe(true);
  const rows = await report();
  expect(rows.find((r) => r.total)).toMatchObject({ imps: 1 });
  // the page's auction and its impression (a host without a dot, as localhost, is no domain in the reports)
  expect(rows.filter((r) => !r.total && Number(r.imps) > 0)).toEqual([{ domain: '', reqs: 1, imps: 1 }]);
});

test("with s2sConfig.extPrebid.returnallbidstatus, adplane's ext.seatnonbid reaches the page through Prebid.js's pbsAnalytics event", async ({
  page,
}) => {
  // three ad units on the channel: one it fills, one no creative fits (728x90: no bid, code 0), one
  // whose floor ($100, in the ad unit's ortb2Imp) is over adplane's best price (code 301, with the refused bid)
  setup = {
    extPrebid: { returnallbidstatus: true },
    adUnits: [
      bannerUnit('banner-1', [[300, 250]]),
      bannerUnit('leaderboard', [[728, 90]]),
      bannerUnit('floored', [[300, 250]], { ortb2Imp: { bidfloor: 100, bidfloorcur: 'USD' } }),
    ],
  };
  const answered = page.waitForResponse(
    (r) => r.url() === `${base}/openrtb2/auction` && r.request().method() === 'POST',
  );
  await page.goto(`${pageServer.origin}/`);
  const response = await answered;
  const result = (await page.evaluate(
    () => (window as unknown as { prebidResult: Promise<unknown> }).prebidResult,
  )) as PrebidResult;

  const sent = response.request().postDataJSON() as {
    imp: { id: string; bidfloor?: number }[];
    ext: { prebid: { returnallbidstatus?: boolean } };
  };
  expect(sent.ext.prebid.returnallbidstatus).toBe(true);
  expect(sent.imp.find((i) => i.id === 'floored')?.bidfloor).toBe(100);

  const answer = (await response.json()) as PbsAnswer;
  expect(answer.seatbid.flatMap((s) => s.bid.map((b) => b.impid))).toEqual(['banner-1']);
  expect(answer.ext.seatnonbid).toEqual([
    {
      seat: 'adplane',
      nonbid: expect.arrayContaining([
        { impid: 'leaderboard', statuscode: 0 },
        {
          impid: 'floored',
          statuscode: 301,
          ext: {
            prebid: {
              bid: expect.objectContaining({ price: BANNER_PRICE, w: 300, h: 250, mtype: 1, origbidcur: 'USD' }),
            },
          },
        },
      ]),
    },
  ]);
  expect(answer.ext.seatnonbid![0]!.nonbid).toHaveLength(2);

  // Prebid.js: the bid for the unit adplane filled, and the non-bids handed to its analytics, for this auction
  expect(Object.keys(result.responses).filter((code) => result.responses[code]!.length)).toEqual(['banner-1']);
  expect(result.pbsAnalytics).toEqual([
    {
      auctionId: result.auctionId,
      seatnonbid: answer.ext.seatnonbid,
      requestedBidders: ['adplane'],
      responseExt: answer.ext,
    },
  ]);

  // Without returnallbidstatus adplane lists no non-bid, and Prebid.js emits no pbsAnalytics event
  // (it reads ext.seatnonbid only when its s2sConfig.extPrebid asked; it emits before the auction ends)
  setup = { ...setup, extPrebid: {} };
  const again = page.waitForResponse((r) => r.url() === `${base}/openrtb2/auction` && r.request().method() === 'POST');
  await page.reload();
  const plain = (await (await again).json()) as PbsAnswer;
  const quiet = (await page.evaluate(
    () => (window as unknown as { prebidResult: Promise<unknown> }).prebidResult,
  )) as PrebidResult;
  expect(plain.ext.seatnonbid).toBeUndefined();
  expect(plain.seatbid.flatMap((s) => s.bid.map((b) => b.impid))).toEqual(['banner-1']);
  expect(quiet.pbsAnalytics).toEqual([]);
});
