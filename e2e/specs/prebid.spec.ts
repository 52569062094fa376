import { type APIRequestContext } from '@playwright/test';
import { expect, test } from '../support/test.js';
import {
  buildPrebidBundle,
  demandApi,
  DSP_USER_ID,
  expectBannerRendered,
  fillingDisplayChannel,
  type PageServer,
  startPageServer,
} from '../support/prebidPage.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { signIn } from '../support/session.js';

/**
 * Header bidding through adplane, end to end: a publisher's page on another origin runs Prebid.js
 * (built from the npm package, prebidServerBidAdapter with s2sConfig.endpoint at adplane's
 * /openrtb2/auction, bidder adplane) and gets bids for a video ad unit on the demo channel and a
 * banner ad unit on a display channel, over a cross-origin request with credentials. The console's
 * channel page shows the set-up to paste.
 */
test.describe.configure({ mode: 'serial', timeout: 90_000 });

const base = EDITION_SERVERS.default.url;
const run = Date.now().toString(36);
const names = {
  creative: `E2E Prebid banner ${run}`,
  campaign: `E2E Prebid banner campaign ${run}`,
  channel: `E2E Prebid display ${run}`,
};
/** The display channel's banner, as the page shows it. */
const BANNER_AD = { marker: 'adplane-e2e', text: 'adplane header bidding' };

let api: APIRequestContext;
let pageServer: PageServer;
const channels = { video: '', banner: '' };

interface BidSeen {
  bidderCode: string;
  cpm: number;
  mediaType: string;
  width: number;
  height: number;
  netRevenue: boolean;
  currency: string;
  creativeId: string;
  adId: string;
  vastUrl?: string;
  vastXml?: string;
  ad?: string;
  meta: { advertiserDomains?: string[] };
}
interface PrebidResult {
  responses: Record<string, BidSeen[]>;
  targeting: Record<string, Record<string, string>>;
}
interface PbsAnswer {
  seatbid: {
    seat: string;
    bid: {
      impid: string;
      price: number;
      adm?: string;
      ext: {
        prebid: {
          type: string;
          targeting: Record<string, string>;
          cache?: { vastXml?: { url: string; cacheId: string } };
        };
      };
    }[];
  }[];
  ext: { responsetimemillis: Record<string, number> };
}

/**
 * Whether the page caches video bids itself, through Prebid.js's own `cache.url` pointed at
 * adplane's /cache (ignoreBidderCacheKey: every video bid posted there), instead of asking the
 * auction to cache them.
 */
let clientSideCache = false;
/** The page's s2sConfig.accountId: the console's set-up gives the channel's uid (its demand partners' syncs come with it). */
let account = 'e2e-publisher';

/** The publisher's page: Prebid.js, adplane as its Prebid Server, a video and a banner ad unit. */
function pageHtml(): string {
  const config = {
    endpoint: `${base}/openrtb2/auction`,
    sync: `${base}/cookie_sync`,
    video: channels.video,
    banner: channels.banner,
    clientCache: clientSideCache ? `${base}/cache` : '',
    account,
  };
  return `<!doctype html><html><head><title>Publisher page</title><script src="/prebid.js"></script></head><body>
<h1>A publisher's page</h1><div id="banner-1"></div>
<script>
const cfg = ${JSON.stringify(config)};
window.prebidResult = new Promise((resolve) => {
  pbjs.que.push(() => {
    pbjs.setConfig({
      s2sConfig: [{
        accountId: cfg.account, bidders: ['adplane'], adapter: 'prebidServer', enabled: true, endpoint: cfg.endpoint, syncEndpoint: cfg.sync, timeout: 1000,
        extPrebid: { ...(cfg.clientCache ? {} : { cache: { vastxml: {} } }), targeting: { pricegranularity: 'medium', includebidderkeys: true } },
      }],
      ...(cfg.clientCache ? { cache: { url: cfg.clientCache, ignoreBidderCacheKey: true } } : {}),
    });
    pbjs.addAdUnits([
      { code: 'video-1', mediaTypes: { video: { context: 'instream', playerSize: [[640, 480]], mimes: ['video/mp4'], protocols: [2, 3, 5, 6, 7, 8], plcmt: 1 } }, bids: [{ bidder: 'adplane', params: { channel: cfg.video } }] },
      { code: 'banner-1', mediaTypes: { banner: { sizes: [[300, 250]] } }, bids: [{ bidder: 'adplane', params: { channel: cfg.banner } }] },
    ]);
    pbjs.requestBids({
      timeout: 3000,
      bidsBackHandler: (responses) => {
        const out = {};
        for (const [code, unit] of Object.entries(responses)) {
          out[code] = unit.bids.map((b) => ({ bidderCode: b.bidderCode, cpm: b.cpm, mediaType: b.mediaType, width: b.width, height: b.height, netRevenue: b.netRevenue, currency: b.currency,
            creativeId: b.creativeId, adId: b.adId, vastUrl: b.vastUrl, vastXml: b.vastXml, ad: b.ad, meta: b.meta }));
        }
        resolve({ responses: out, targeting: pbjs.getAdserverTargeting() });
      },
    });
  });
});
</script></body></html>`;
}

test.beforeAll(async () => {
  api = await demandApi(base);
  channels.banner = (await fillingDisplayChannel(api, base, { ...names, ...BANNER_AD, bidCpm: 25_000_000 })).uid;
  const list = await api.get(`/api/demand/channels?search=${encodeURIComponent('Demo player - auction')}&pageSize=10`);
  channels.video = ((await list.json()) as { items: { uid: string; name: string }[] }).items.find(
    (c) => c.name === 'Demo player - auction',
  )!.uid;
  expect(channels.video).toBeTruthy();
  pageServer = await startPageServer(await buildPrebidBundle(), pageHtml);
});

test.afterAll(async () => {
  await pageServer?.close();
  await api?.dispose();
});

test('a page on another origin running Prebid.js gets video and banner bids from adplane, cross-origin with credentials', async ({
  page,
}) => {
  const logs: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') logs.push(m.text());
  });
  // The edge answers once the new channel is in its snapshot (rebuilt within a second of a change).
  await expect
    .poll(
      async () => {
        const res = await api.post('/openrtb2/auction', {
          data: {
            id: 'probe',
            site: { page: 'https://probe.example/' },
            imp: [
              {
                id: '1',
                banner: { format: [{ w: 300, h: 250 }] },
                ext: { prebid: { bidder: { adplane: { channel: channels.banner } } } },
              },
            ],
          },
        });
        return ((await res.json()) as PbsAnswer).seatbid.length;
      },
      { timeout: 15_000 },
    )
    .toBe(1);

  const auction = page.waitForResponse(
    (r) => r.url() === `${base}/openrtb2/auction` && r.request().method() === 'POST',
  );
  const cookieSync = page.waitForResponse((r) => r.url() === `${base}/cookie_sync`);
  const setuid = page.waitForResponse((r) => r.url().startsWith(`${base}/setuid?bidder=adplane&uid=`));
  await page.goto(`${pageServer.origin}/`);
  const response = await auction;
  const result = (await page.evaluate(
    () => (window as unknown as { prebidResult: Promise<unknown> }).prebidResult,
  )) as PrebidResult;

  // User sync (s2sConfig.syncEndpoint): adplane names the pixel that would give this browser its
  // adplane id; the page is of another site, and this browser (as Incognito) keeps no third-party
  // cookie: the next test runs it on a page of adplane's site
  const sync = await cookieSync;
  expect(await sync.json()).toMatchObject({
    status: 'no_cookie',
    bidder_status: [{ bidder: 'adplane', no_cookie: true, usersync: { type: 'redirect' } }],
  });
  expect(await sync.headerValue('access-control-allow-origin')).toBe(pageServer.origin);
  expect((await setuid).status()).toBe(200);

  // Cross-origin, with credentials: the browser sent the page's Origin and accepted adplane's answer
  // only because it echoes that Origin and allows credentials (Prebid.js calls withCredentials).
  const pageOrigin = pageServer.origin;
  expect(await response.request().headerValue('origin')).toBe(pageOrigin);
  expect(response.status()).toBe(200);
  expect(await response.headerValue('access-control-allow-origin')).toBe(pageOrigin);
  expect(await response.headerValue('access-control-allow-credentials')).toBe('true');
  const sent = response.request().postDataJSON() as {
    imp: { id: string; ext: { prebid: { bidder: Record<string, unknown> } } }[];
    ext: { prebid: { targeting: unknown; channel: { name: string } } };
  };
  expect(sent.imp.map((i) => i.ext.prebid.bidder.adplane)).toEqual([
    { channel: channels.video },
    { channel: channels.banner },
  ]);
  expect(sent.ext.prebid.channel.name).toBe('pbjs');

  // What adplane answered: one seat, a bid per ad unit, with the keys and the cache asked for.
  const answer = (await response.json()) as PbsAnswer;
  expect(answer.ext.responsetimemillis.adplane).toBeGreaterThanOrEqual(0);
  expect(answer.seatbid.map((s) => s.seat)).toEqual(['adplane']);
  const byImp = Object.fromEntries(answer.seatbid[0]!.bid.map((b) => [b.impid, b]));
  const videoBid = byImp['video-1']!;
  const bannerBid = byImp['banner-1']!;
  expect(videoBid.ext.prebid.type).toBe('video');
  expect(videoBid.adm).toMatch(/<VAST version="4\.2"/);
  expect(videoBid.ext.prebid.targeting).toMatchObject({
    hb_bidder: 'adplane',
    hb_bidder_adplane: 'adplane',
    hb_pb: expect.stringMatching(/^\d+\.\d0$/),
    hb_uuid: videoBid.ext.prebid.cache!.vastXml!.cacheId,
  });
  // the banner's campaign bids $25.00; the channel pays its publisher 70%
  expect(bannerBid).toMatchObject({
    price: 17.5,
    ext: {
      prebid: {
        type: 'banner',
        targeting: { hb_pb: '17.50', hb_bidder: 'adplane', hb_size: '300x250', hb_pb_adplane: '17.50' },
      },
    },
  });

  // What Prebid.js made of it: bids from bidder adplane, the video with the cache URL it hands a player.
  expect(result.responses['video-1'], logs.join('\n')).toHaveLength(1);
  expect(result.responses['banner-1'], logs.join('\n')).toHaveLength(1);
  const video = result.responses['video-1']![0]!;
  expect(video).toMatchObject({
    bidderCode: 'adplane',
    mediaType: 'video',
    cpm: videoBid.price,
    currency: 'USD',
    netRevenue: true,
    vastUrl: videoBid.ext.prebid.cache!.vastXml!.url,
  });
  expect(video.vastXml).toContain('<VAST');
  const banner = result.responses['banner-1']![0]!;
  expect(banner).toMatchObject({
    bidderCode: 'adplane',
    mediaType: 'banner',
    cpm: 17.5,
    width: 300,
    height: 250,
    meta: { advertiserDomains: ['adplane.test'] },
  });
  expect(banner.ad).toContain('adplane header bidding');
  expect(result.targeting['banner-1']).toMatchObject({ hb_bidder: 'adplane', hb_pb: '17.50', hb_size: '300x250' });
  expect(result.targeting['video-1']).toMatchObject({ hb_bidder: 'adplane' });

  // The player's side: the cached VAST loads from the page's origin too.
  const vast = await page.evaluate(async (url) => {
    const res = await fetch(url, { credentials: 'include' });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  }, video.vastUrl!);
  expect(vast).toMatchObject({ status: 200, type: expect.stringMatching(/^application\/xml/) });
  expect(vast.body).toBe(videoBid.adm);

  // The banner renders where Prebid.js puts it, and its impression pixel reaches adplane.
  await expectBannerRendered(page, base, { code: 'banner-1', adId: banner.adId }, BANNER_AD);
});

test("Prebid.js's cookie sync gives the browser its adplane id (Prebid Server's uids cookie), which its next auctions carry", async ({
  page,
}) => {
  const sync = page.waitForResponse((r) => r.url() === `${base}/cookie_sync`);
  const setuid = page.waitForResponse((r) => r.url().startsWith(`${base}/setuid?bidder=adplane&uid=`));
  await page.goto(`${pageServer.sameSiteOrigin}/`);
  expect(await (await sync).json()).toMatchObject({
    status: 'no_cookie',
    bidder_status: [{ bidder: 'adplane', no_cookie: true }],
  });
  expect((await setuid).status()).toBe(200);
  const uid = new URL((await setuid).url()).searchParams.get('uid')!;
  await expect
    .poll(async () => (await page.context().cookies(base)).find((c) => c.name === 'uids'))
    .toMatchObject({ sameSite: 'None', secure: true });
  // (getuids is for the browser itself, not for pages: read with the browser's cookies, outside the page)
  expect(await (await page.request.get(`${base}/getuids`)).json()).toEqual({ buyeruids: { adplane: uid } });

  // the next page view: the auction carries the id (frequency caps count it), nothing left to sync
  const auction = page.waitForRequest((r) => r.url() === `${base}/openrtb2/auction`);
  const again = page.waitForResponse((r) => r.url() === `${base}/cookie_sync`);
  await page.reload();
  expect(await (await auction).headerValue('cookie')).toContain('uids=');
  expect(await (await again).json()).toEqual({ status: 'ok', bidder_status: [] });
  await page.evaluate(() => (window as unknown as { prebidResult: Promise<unknown> }).prebidResult);
});

test("a demand partner of the channel syncs through Prebid.js's cookie sync, and its bid requests carry its id", async ({
  page,
}) => {
  // the page server plays the DSP: an RTB demand tag of the banner channel, with its user sync URL
  const tag = await api.post('/api/demand/tags', {
    data: {
      name: `E2E synced DSP ${run}`,
      integration: 'RTB',
      endpoint: `${pageServer.sameSiteOrigin}/dsp/bid`,
      price: { type: 'cpm', cpm: 0 },
      timeoutMs: 500,
      userSyncUrl: `${pageServer.sameSiteOrigin}/dsp/sync?redir=\${REDIRECT}`,
    },
  });
  expect(tag.status(), await tag.text()).toBe(201);
  const tagId = ((await tag.json()) as { id: number }).id;
  const found = await api.get(`/api/demand/channels?search=${encodeURIComponent(names.channel)}&pageSize=10`);
  const channel = ((await found.json()) as { items: { id: number; name: string }[] }).items.find(
    (c) => c.name === names.channel,
  )!;
  const current = (await (await api.get(`/api/demand/channels/${channel.id}`)).json()) as Record<string, unknown>;
  const updated = await api.put(`/api/demand/channels/${channel.id}`, {
    data: { ...current, demand: [{ tagId, priority: 1 }] },
  });
  expect(updated.status(), await updated.text()).toBe(200);
  account = channels.banner;
  try {
    const partner = `adplane_tag_${tagId}`;
    const sync = page.waitForResponse((r) => r.url() === `${base}/cookie_sync`);
    const stored = page.waitForResponse((r) => r.url().startsWith(`${base}/setuid?bidder=${partner}&`));
    await page.goto(`${pageServer.sameSiteOrigin}/`);
    const answer = (await (await sync).json()) as { bidder_status: { bidder: string }[] };
    expect(answer.bidder_status.map((s) => s.bidder)).toContain(partner);
    // Prebid.js fired the partner's pixel: the DSP sent the browser back to adplane with its id
    expect((await stored).status()).toBe(200);
    expect(new URL((await stored).url()).searchParams.get('uid')).toBe(DSP_USER_ID);
    await page.evaluate(() => (window as unknown as { prebidResult: Promise<unknown> }).prebidResult);
    // the next auction of this browser: the partner's bid request carries its id
    const before = pageServer.dspBidRequests.length;
    await page.reload();
    await page.evaluate(() => (window as unknown as { prebidResult: Promise<unknown> }).prebidResult);
    const asked = pageServer.dspBidRequests.slice(before);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((r) => r.user?.buyeruid === DSP_USER_ID)).toBe(true);
  } finally {
    account = 'e2e-publisher';
  }
});

test("a person opts the browser out of adplane's id on its opt-out page, and back in", async ({ page }) => {
  await page.goto(`${base}/optout`);
  await expect(page.locator('#status')).toHaveText('adplane keeps no id for this browser.');
  await page.getByRole('button', { name: 'Opt out' }).click();
  await expect(page.locator('#status')).toContainText('This browser is opted out');
  await page.screenshot({ path: test.info().outputPath('optout.png') });
  // Prebid.js's cookie sync from a publisher's page now gets Prebid Server's 401, and no pixel
  const sync = page.waitForResponse((r) => r.url() === `${base}/cookie_sync`);
  await page.goto(`${pageServer.sameSiteOrigin}/`);
  expect((await sync).status()).toBe(401);
  await page.goto(`${base}/optout`);
  await page.getByRole('button', { name: 'Opt back in' }).click();
  await expect(page.locator('#status')).toHaveText('adplane keeps no id for this browser.');
});

test("a page caching its video bids through Prebid.js's own cache.url stores them in adplane's /cache (as Prebid Cache), cross-origin", async ({
  page,
}) => {
  clientSideCache = true;
  try {
    const auction = page.waitForResponse(
      (r) => r.url() === `${base}/openrtb2/auction` && r.request().method() === 'POST',
    );
    const stored = page.waitForResponse((r) => r.url() === `${base}/cache` && r.request().method() === 'POST');
    await page.goto(`${pageServer.origin}/`);
    const answer = (await (await auction).json()) as PbsAnswer;
    const put = await stored;
    const result = (await page.evaluate(
      () => (window as unknown as { prebidResult: Promise<unknown> }).prebidResult,
    )) as PrebidResult;

    // the auction cached nothing (not asked); Prebid.js posted the bid's VAST to adplane's /cache
    const videoBid = answer.seatbid[0]!.bid.find((b) => b.impid === 'video-1')!;
    expect(videoBid.ext.prebid.cache).toBeUndefined();
    expect(put.status()).toBe(200);
    expect(await put.headerValue('access-control-allow-origin')).toBe(pageServer.origin);
    const posted = put.request().postDataJSON() as { puts: { type: string; value: string }[] };
    expect(posted.puts.map((p) => p.type)).toEqual(['xml']);
    const { responses } = (await put.json()) as { responses: { uuid: string }[] };
    expect(responses).toHaveLength(1);

    // the bid Prebid.js hands the player is loaded from there: adplane's document, whole
    const video = result.responses['video-1']![0]!;
    expect(video.vastUrl).toBe(`${base}/cache?uuid=${responses[0]!.uuid}`);
    const vast = await page.evaluate(async (url) => {
      const res = await fetch(url, { credentials: 'include' });
      return { status: res.status, body: await res.text() };
    }, video.vastUrl!);
    expect(vast.status).toBe(200);
    expect(vast.body).toBe(posted.puts[0]!.value);
    expect(vast.body).toContain(videoBid.adm!.slice(0, 200));
  } finally {
    clientSideCache = false;
  }
});

test('the channel page shows the Prebid.js set-up to paste, next to the VAST tag', async ({ page }) => {
  await signIn(page, 'demand');
  const list = new ResourcePage(page, 'channels', '/channels');
  await list.open();
  await list.search('Demo player - auction');
  await list.openRow('Demo player - auction');
  const setup = list.drawer.getByTestId('channel-prebid');
  await setup.scrollIntoViewIfNeeded();
  const config = list.drawer.getByTestId('channel-prebid-config');
  await expect(config).toContainText(`endpoint: '${base}/openrtb2/auction'`);
  await expect(config).toContainText(`syncEndpoint: '${base}/cookie_sync'`);
  await expect(list.drawer.getByTestId('channel-prebid-optout')).toContainText(`${base}/optout`);
  await expect(config).toContainText(`bids: [{ bidder: 'adplane', params: { channel: '${channels.video}' } }]`);
  await expect(config).toContainText("context: 'instream'");
  await expect(list.drawer.getByTestId('channel-tag')).toContainText(`${base}/vast/${channels.video}`);
  // The set-up is a section of the drawer: its jump link brings it into view.
  await list.drawer.getByTestId('jump-Prebid.js').click();
  await expect(list.drawer.locator('.form-section-title', { hasText: 'Prebid.js' })).toBeInViewport();
  await page.screenshot({ path: test.info().outputPath('channel-prebid.png') });
  await setup.screenshot({ path: test.info().outputPath('channel-prebid-section.png') });
});

test("a display channel's drawer also gives the amp-ad for AMP pages, calling the AMP endpoint with the channel", async ({
  page,
}) => {
  await signIn(page, 'demand');
  const list = new ResourcePage(page, 'channels', '/channels');
  await list.open();
  await list.search(names.channel);
  await list.openRow(names.channel);
  const setup = list.drawer.getByTestId('channel-prebid');
  await setup.scrollIntoViewIfNeeded();
  await list.drawer.getByTestId('channel-prebid-config-variant-amp').click();
  const config = list.drawer.getByTestId('channel-prebid-config');
  await expect(config).toContainText('<amp-ad width="300" height="250"');
  await expect(config).toContainText(`${base}/openrtb2/amp?tag_id=${channels.banner}&w=ATTR(width)`);
  await setup.screenshot({ path: test.info().outputPath('channel-amp-section.png') });
});
