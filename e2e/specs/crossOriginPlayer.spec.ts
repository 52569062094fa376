import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type APIRequestContext } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { demandApi } from '../support/prebidPage.js';
import { EDITION_SERVERS } from '../support/servers.js';

/**
 * A publisher's player on another site plays the demo ad, as the README's "paste the tag into any
 * VAST player" promises: a page of http://localhost:<port> (another origin and another site than
 * adplane's http://127.0.0.1:<port>) fetches the demo channel's VAST tag, sets the MediaFile as
 * the src of a plain <video> (a no-cors load, where Cross-Origin-Resource-Policy decides) and of
 * a <video crossorigin> (a CORS load, as a player reading its frames makes), plays both muted and
 * fires the impression pixels; the impression is counted in the reports.
 */
test.describe.configure({ timeout: 90_000 });

const base = EDITION_SERVERS.default.url;
const run = Date.now().toString(36);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** The player page: a minimal VAST flow, what it saw kept in window.player. */
const playerPage = (tag: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Publisher player</title></head>
<body style="margin:0;padding:16px;background:#15171c;color:#e8e8e8;font:14px sans-serif">
<h1 style="font-size:18px;margin:0 0 12px">A publisher's page on another site</h1>
<div style="display:flex;gap:16px">
  <figure style="margin:0"><video id="plain" width="480" height="270" muted playsinline style="background:#000"></video><figcaption>&lt;video&gt;</figcaption></figure>
  <figure style="margin:0"><video id="cors" width="480" height="270" muted playsinline crossorigin="anonymous" style="background:#000"></video><figcaption>&lt;video crossorigin&gt;</figcaption></figure>
</div>
<pre id="log" style="white-space:pre-wrap"></pre>
<script>
  const state = { media: '', impressions: [], pixels: [], errors: [] };
  window.player = state;
  const log = (line) => { document.getElementById('log').textContent += line + '\\n'; };
  const pixel = (url) => new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve('loaded');
    img.onerror = () => resolve('failed');
    img.src = url;
  });
  (async () => {
    const answer = await fetch(${JSON.stringify(tag)});
    const vast = new DOMParser().parseFromString(await answer.text(), 'application/xml');
    const text = (name) => [...vast.getElementsByTagName(name)].map((n) => n.textContent.trim());
    state.media = text('MediaFile')[0] || '';
    state.impressions = text('Impression');
    log('VAST ' + answer.status + ', MediaFile ' + state.media);
    let fired = false;
    for (const id of ['plain', 'cors']) {
      const video = document.getElementById(id);
      video.addEventListener('error', () => { state.errors.push(id + ': ' + (video.error ? video.error.code + ' ' + video.error.message : 'error')); log(id + ' failed'); });
      video.addEventListener('playing', async () => {
        log(id + ' playing');
        // the impression when the ad starts, as players fire it: an image of adplane's origin
        if (fired) return;
        fired = true;
        state.pixels = await Promise.all(state.impressions.map(pixel));
        log('impression pixels ' + state.pixels.join(', '));
      });
      video.src = state.media;
      video.play().catch((e) => state.errors.push(id + ' play(): ' + e.name + ' ' + e.message));
    }
  })().catch((e) => { state.errors.push('VAST: ' + e.message); log('VAST failed: ' + e.message); });
</script>
</body></html>`;

let api: APIRequestContext;
let pageServer: Server;
let pageOrigin = '';
const channel = { id: 0, uid: '' };

test.beforeAll(async () => {
  api = await demandApi(base);
  const list = await api.get(`/api/demand/channels?search=${encodeURIComponent('Demo player - auction')}&pageSize=10`);
  const found = ((await list.json()) as { items: { id: number; uid: string; name: string }[] }).items.find(
    (c) => c.name === 'Demo player - auction',
  )!;
  Object.assign(channel, { id: found.id, uid: found.uid });
  pageServer = createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== '/') {
      res.writeHead(404);
      res.end();
      return;
    }
    // the tag as a web player fills its macros (domain: this run's own, so the report row is the test's)
    const tag = `${base}/vast/${channel.uid}?w=640&h=360&domain=player-${run}.example&cb=${Date.now()}`;
    const body = playerPage(tag);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await api?.dispose();
  await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()));
});

test("a player on another site plays the demo ad from adplane's VAST, and its impression counts", async ({ page }) => {
  const failed: string[] = [];
  page.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText ?? ''}`));
  const media = page.waitForResponse((r) => r.url().startsWith(`${base}/media/demo-ad.mp4`));

  await page.goto(`${pageOrigin}/`);
  expect(new URL(page.url()).origin).not.toBe(new URL(base).origin);

  // both players load their first frames and play, or say why not (a media error, a refused play())
  for (const id of ['plain', 'cors']) {
    const outcome = await page.waitForFunction(
      (el) => {
        const v = document.getElementById(el) as HTMLVideoElement;
        const errors = (window as unknown as { player: { errors: string[] } }).player.errors.filter((e) =>
          e.startsWith(el),
        );
        if (errors.length) return errors.join('; ');
        return v.readyState >= 2 && v.currentTime > 0 ? 'playing' : false;
      },
      id,
      { timeout: 30_000 },
    );
    expect(await outcome.jsonValue(), `the ${id} video; requests that failed: ${failed.join(', ')}`).toBe('playing');
  }
  // the media file adplane answered: one any site may embed
  const video = await media;
  expect(video.headers()['cross-origin-resource-policy']).toBe('cross-origin');
  expect(video.headers()['content-type']).toBe('video/mp4');

  const seen = await page.evaluate(
    () =>
      (window as unknown as { player: { media: string; impressions: string[]; pixels: string[]; errors: string[] } })
        .player,
  );
  expect(seen.errors).toEqual([]);
  expect(seen.media).toBe(`${base}/media/demo-ad.mp4`);
  expect(seen.impressions.length).toBeGreaterThan(0);
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { player: { pixels: string[] } }).player.pixels))
    .toEqual(seen.impressions.map(() => 'loaded'));
  expect(failed).toEqual([]);
  await page.screenshot({ path: test.info().outputPath('cross-origin-player.png') });

  // the impression is counted for this page's request (the counters flush every few seconds)
  const report = async () => {
    const res = await api.post('/api/rrun', {
      data: {
        startDate: day(-1),
        endDate: day(1),
        dimensions: ['domain'],
        metrics: ['reqs', 'imps'],
        filters: { channel: [channel.id] },
      },
    });
    expect(res.status(), await res.text()).toBe(200);
    const rows = (await res.json()) as (Record<string, string | number> & { total?: boolean })[];
    const row = rows.find((r) => r.domain === `player-${run}.example`);
    return row ? { reqs: Number(row.reqs), imps: Number(row.imps) } : null;
  };
  await expect.poll(report, { timeout: 30_000 }).toEqual({ reqs: 1, imps: 1 });
});
