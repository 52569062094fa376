import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type APIRequestContext, expect, type Page, request as playwrightRequest } from '@playwright/test';
import { build } from 'esbuild';
import { DEMO_PASSWORD } from './servers.js';

/**
 * A publisher's page running Prebid.js, for the end-to-end test of adplane's Prebid Server
 * endpoint: Prebid.js from the npm package (prebid.js, pinned in e2e/package.json), its core and
 * the prebidServerBidAdapter bundled by esbuild at test time (the package ships compiled ES
 * modules; importing them and calling processQueue() is the documented npm use, no babel plugin
 * needed since Prebid.js 10), served with the page by a small static server on another origin
 * than adplane's.
 */
const E2E_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the bundle (window.pbjs) in memory: a few hundred ms, offline. */
export async function buildPrebidBundle(): Promise<Buffer> {
  const built = await build({
    stdin: {
      contents:
        "import pbjs from 'prebid.js';\nimport 'prebid.js/modules/prebidServerBidAdapter';\npbjs.processQueue();\n",
      resolveDir: E2E_DIR,
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    outfile: 'prebid.js',
    write: false,
    logLevel: 'error',
  });
  return Buffer.from(built.outputFiles[0]!.contents);
}

export interface PageServer {
  origin: string;
  /**
   * The same page at http://127.0.0.1:<port>: another origin than adplane's, but the same site, so
   * that adplane's cookie is first-party to it (headless Chromium's contexts, like Incognito, keep no
   * third-party cookie).
   */
  sameSiteOrigin: string;
  /** The bid requests its DSP endpoint (`POST /dsp/bid`, which never bids) received. */
  dspBidRequests: { user?: { buyeruid?: string } }[];
  close(): Promise<void>;
}

/** The id the page server's DSP gives every browser (`GET /dsp/sync?redir=<adplane's setuid URL>`). */
export const DSP_USER_ID = 'dsp-e2e-user';

/**
 * Serves `/prebid.js` and `/` (the page's HTML, built per request so the spec can set what it
 * configures). It listens on 127.0.0.1 and the page is opened as http://localhost:<port>: another
 * origin than adplane's http://127.0.0.1:<port>, so every call to adplane is cross-origin. It also
 * plays a DSP, a demand partner of adplane: its user sync (`GET /dsp/sync?redir=...` sends the browser
 * back to `redir` with its id in place of `$UID`) and its bid endpoint (`POST /dsp/bid`, 204).
 */
export async function startPageServer(js: Buffer, html: () => string): Promise<PageServer> {
  const dspBidRequests: PageServer['dspBidRequests'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://page.test');
    const path = url.pathname;
    if (path === '/dsp/sync') {
      const back = url.searchParams.get('redir') ?? '';
      res.writeHead(back ? 302 : 400, back ? { location: back.replace('$UID', DSP_USER_ID) } : {});
      res.end();
    } else if (path === '/dsp/bid' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        dspBidRequests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as PageServer['dspBidRequests'][number]);
        res.writeHead(204);
        res.end();
      });
    } else if (path === '/prebid.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'content-length': js.length });
      res.end(js);
    } else if (path === '/') {
      const body = html();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    sameSiteOrigin: `http://127.0.0.1:${port}`,
    dspBidRequests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Signs the demo demand user in on an API context of adplane at `base` (the test's own, for set-up calls). */
export async function demandApi(base: string): Promise<APIRequestContext> {
  const api = await playwrightRequest.newContext({ baseURL: base });
  expect((await api.post('/api/auth/login', { data: { username: 'demand', password: DEMO_PASSWORD } })).status()).toBe(
    200,
  );
  return api;
}

export interface FillingChannel {
  channel: string;
  campaign: string;
  creative: string;
  /** The banner's `data-ad` marker and its text, to find it rendered on the page. */
  marker: string;
  text: string;
  /** The campaign's bid, micro-dollars CPM. */
  bidCpm: number;
}

/**
 * A PreBid display channel that fills: a 300x250 HTML banner (nothing to fetch from made-up hosts)
 * bought by a campaign from yesterday for 30 days, the publisher paid 70 %. Returns the channel.
 */
export async function fillingDisplayChannel(
  api: APIRequestContext,
  base: string,
  names: FillingChannel,
): Promise<{ id: number; uid: string }> {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const create = async (kind: string, data: Record<string, unknown>) => {
    const res = await api.post(`/api/demand/${kind}`, { data });
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()) as { id: number; uid: string };
  };
  const creative = await create('creatives', {
    name: names.creative,
    format: 'display',
    displayType: 'html',
    width: 300,
    height: 250,
    approval: 'approved',
    clickUrl: `${base}/`,
    adomain: ['adplane.test'],
    html: `<div data-ad="${names.marker}" style="width:300px;height:250px;background:#0b3d91;color:#fff;font:bold 18px/250px sans-serif;text-align:center">${names.text}</div>`,
  });
  await create('campaigns', {
    name: names.campaign,
    startDate: day(-1),
    endDate: day(30),
    bidCpm: names.bidCpm,
    channelScope: 'all',
    creativeIds: [creative.id],
  });
  return create('channels', {
    name: names.channel,
    integration: 'PreBid',
    environment: 'web',
    format: 'display',
    payout: { type: 'revshare', percent: 70 },
    demandMode: 'auction',
    timeoutMs: 1000,
  });
}

/**
 * The page's ad server picked the bid `adId` of ad unit `code`: Prebid.js renders it into a 300x250
 * frame in the unit's element (`#<code>`), the banner of a fillingDisplayChannel shows (its `data-ad`
 * marker, its text) and its impression pixel reaches adplane's /ev.
 */
export async function expectBannerRendered(
  page: Page,
  base: string,
  bid: { code: string; adId: string },
  banner: Pick<FillingChannel, 'marker' | 'text'>,
): Promise<void> {
  const impression = page.waitForRequest((r) => r.url().startsWith(`${base}/ev?e=impression`));
  await page.evaluate(({ code, adId }) => {
    const frame = document.createElement('iframe');
    Object.assign(frame, { width: '300', height: '250', id: 'ad-frame', frameBorder: '0', scrolling: 'no' });
    document.getElementById(code)!.appendChild(frame);
    (window as unknown as { pbjs: { renderAd(doc: Document, id: string): void } }).pbjs.renderAd(
      frame.contentWindow!.document,
      adId,
    );
  }, bid);
  // Prebid.js 10.12+ renders the markup in a frame of its own inside the one it is given
  await expect(
    page.frameLocator('#ad-frame').frameLocator('iframe').locator(`[data-ad="${banner.marker}"]`),
  ).toHaveText(banner.text);
  expect((await (await impression).response())?.status()).toBe(200);
}
