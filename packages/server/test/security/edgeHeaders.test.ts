import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_ROUTE_PATHS } from '@adplane/shared';
import { EDGE_PATHS, isEdgePath } from '../../src/http/securityHeaders.js';
import { as, buildTestApp, login, onSqliteStore } from '../helpers.js';

/**
 * The headers of what the edge serves to other origins (players, pages, SDKs, exchanges) against
 * those of the console and /api, over each way a request is answered: the edge lane, node:http (a
 * connection the lane handed over: here by a chunked request) and Fastify (inject: the routes the
 * edge's table leaves to it, the demo's video and partner, sellers.json and debug=1).
 */

type Transport = 'lane' | 'node:http' | 'fastify';
const TRANSPORTS: Transport[] = ['lane', 'node:http', 'fastify'];

interface Sent {
  method: 'GET' | 'HEAD' | 'POST' | 'OPTIONS';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const PAGE_ORIGIN = 'https://player.publisher.example';

/**
 * What an edge answer must not carry: the console's framing refusal and opener policy. (A CSP of the
 * answer's own is allowed when it does not refuse framing: a cached document's sandbox applies only
 * when a browser opens it as a page.) /optout is a page where a person chooses: it refuses framing
 * on purpose, so that no other site can trick the choice out of them.
 */
function blocking(url: string, headers: Got['headers']): string[] {
  if (url.startsWith('/optout'))
    return headers['x-frame-options'] === 'DENY' ? [] : [`X-Frame-Options ${String(headers['x-frame-options'])}`];
  const found: string[] = [];
  if (headers['x-frame-options'] !== undefined) found.push(`X-Frame-Options ${String(headers['x-frame-options'])}`);
  if (String(headers['content-security-policy'] ?? '').includes('frame-ancestors'))
    found.push(`CSP ${String(headers['content-security-policy'])}`);
  if (headers['cross-origin-opener-policy'] !== undefined)
    found.push(`Cross-Origin-Opener-Policy ${String(headers['cross-origin-opener-policy'])}`);
  return found;
}

/** The full path of every route, read from Fastify's printed radix tree (`├── label (METHODS)`, four columns a level). */
function routePaths(app: FastifyInstance): string[] {
  const stack: string[] = [];
  const paths: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: true }).split('\n')) {
    const match = /^((?:[│ ] {3})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    if (match[3]) paths.push(stack.join(''));
  }
  return paths;
}

onSqliteStore((t) => {
  let app: FastifyInstance;
  let port = 0;
  let webDist = '';
  let demand = '';
  let channelUid = '';
  let vastXml = '';
  let cachedUuid = '';

  beforeAll(async () => {
    webDist = mkdtempSync(join(tmpdir(), 'adplane-edge-headers-web-'));
    writeFileSync(join(webDist, 'index.html'), '<!doctype html><title>adplane</title><div id="root"></div>');
    app = await buildTestApp(t.store, { demo: true, webDist });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
    demand = await login(app, 'demand');
    const list = await as(app, demand, { method: 'GET', url: '/api/demand/channels?search=Demo%20player&pageSize=10' });
    channelUid = (list.json() as { items: { uid: string; name: string }[] }).items.find(
      (c) => c.name === 'Demo player - auction',
    )!.uid;
    vastXml = (
      await send('lane', { method: 'GET', url: `/vast/${channelUid}?w=640&h=360&ip=8.8.8.8` })
    ).body.toString();
    const cached = await send('lane', {
      method: 'POST',
      url: '/cache',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ puts: [{ type: 'xml', value: '<VAST version="3.0"></VAST>' }] }),
    });
    cachedUuid = (JSON.parse(cached.body.toString()) as { responses: { uuid: string }[] }).responses[0]!.uuid;
  });
  afterAll(async () => {
    await app.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  /** `sent` over `transport`; the node:http one sends its body chunked, which the lane never reads. */
  async function send(transport: Transport, sent: Sent): Promise<Got> {
    if (transport === 'fastify') {
      const res = await app.inject({
        method: sent.method,
        url: sent.url,
        headers: sent.headers ?? {},
        ...(sent.body !== undefined ? { payload: sent.body } : {}),
      });
      return { status: res.statusCode, headers: res.headers as Got['headers'], body: res.rawPayload };
    }
    return new Promise<Got>((resolve, reject) => {
      const chunked = transport === 'node:http';
      const headers: Record<string, string> = { ...(sent.headers ?? {}) };
      if (chunked) headers['transfer-encoding'] = 'chunked';
      else if (sent.body !== undefined) headers['content-length'] = String(Buffer.byteLength(sent.body));
      const req = httpRequest(
        { host: '127.0.0.1', port, method: sent.method, path: sent.url, headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(sent.body);
    });
  }

  /** The path and query of an absolute URL of the VAST (its host is the settings' public host, not this server). */
  const local = (url: string) => {
    const u = new URL(url.replaceAll('&amp;', '&'));
    return `${u.pathname}${u.search}`;
  };
  const vastUrls = (tag: string) =>
    [...vastXml.matchAll(new RegExp(`<${tag}[^>]*>\\s*<!\\[CDATA\\[([^\\]]+)\\]\\]>`, 'g'))].map((m) => local(m[1]!));

  /** What Fastify routes of the edge's paths: the rest is the edge's table, which inject never reaches. */
  const fastifyRouted = (sent: Sent) => /^\/(media|demo)\/|^\/sellers\.json|[?&]debug=1(&|$)/.test(sent.url);

  /** One request to each thing the edge serves another origin, as a player, a page or a partner sends it. */
  function edgeRequests(): Sent[] {
    const origin = { origin: PAGE_ORIGIN };
    const preflight = (url: string) => ({
      method: 'OPTIONS' as const,
      url,
      headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    const [media] = vastUrls('MediaFile');
    const [impression] = vastUrls('Impression');
    const [click] = vastUrls('ClickThrough');
    expect(media, vastXml).toMatch(/^\/media\/demo-ad\.mp4/);
    expect(impression, vastXml).toMatch(/^\/ev\?/);
    expect(click, vastXml).toMatch(/^\/ev\?/);
    return [
      // a player: the VAST tag, its media file (whole, a range, HEAD), its pixels and its click redirect
      { method: 'GET', url: `/vast/${channelUid}?w=640&h=360&ip=8.8.8.8`, headers: origin },
      { method: 'HEAD', url: `/vast/${channelUid}` },
      preflight(`/vast/${channelUid}`),
      { method: 'GET', url: `/vast/${channelUid}?w=640&h=360&debug=1`, headers: origin },
      { method: 'GET', url: media!, headers: origin },
      { method: 'GET', url: media!, headers: { ...origin, range: 'bytes=0-99' } },
      { method: 'HEAD', url: media! },
      { method: 'GET', url: impression!, headers: origin },
      { method: 'HEAD', url: impression! },
      preflight('/ev'),
      { method: 'GET', url: click! },
      // the demo's demand partner, which players reach through wrappers
      { method: 'GET', url: '/demo/demand/vast?price=2.5' },
      { method: 'GET', url: '/demo/demand/track?e=impression' },
      { method: 'GET', url: '/demo/demand/adchoices.svg' },
      // Prebid.js and AMP pages: auction, cache, user sync, events
      { method: 'POST', url: '/openrtb2/auction', headers: { ...origin, 'content-type': 'text/plain' }, body: '{}' },
      preflight('/openrtb2/auction'),
      { method: 'GET', url: '/openrtb2/amp?tag_id=none', headers: origin },
      {
        method: 'POST',
        url: '/cache',
        headers: { ...origin, 'content-type': 'text/plain' },
        body: JSON.stringify({ puts: [{ type: 'xml', value: '<VAST version="3.0"></VAST>' }] }),
      },
      { method: 'GET', url: `/cache?uuid=${cachedUuid}`, headers: origin },
      { method: 'HEAD', url: `/cache?uuid=${cachedUuid}` },
      { method: 'GET', url: '/cache?uuid=00000000-0000-4000-8000-000000000000', headers: origin },
      preflight('/cache'),
      { method: 'GET', url: '/vtrack?uuid=none', headers: origin },
      preflight('/vtrack'),
      { method: 'GET', url: '/event?t=win&b=none&a=none', headers: origin },
      { method: 'GET', url: '/status' },
      { method: 'GET', url: '/info/bidders' },
      { method: 'GET', url: '/info/bidders/adplane' },
      { method: 'GET', url: '/bidders/params' },
      { method: 'POST', url: '/cookie_sync', headers: { ...origin, 'content-type': 'text/plain' }, body: '{}' },
      { method: 'GET', url: '/setuid?bidder=adplane&uid=u1' },
      { method: 'GET', url: '/getuids' },
      { method: 'GET', url: '/optout' },
      // exchanges, suppliers' sync pixels, postbacks, crawlers
      { method: 'POST', url: '/rtb/none', headers: { 'content-type': 'application/json' }, body: '{}' },
      { method: 'POST', url: '/rtb/bid/none', headers: { 'content-type': 'application/json' }, body: '{}' },
      { method: 'GET', url: '/rtb/win?t=none' },
      { method: 'GET', url: '/rtb/sync/none' },
      { method: 'GET', url: '/pb/none' },
      { method: 'GET', url: '/sellers.json' },
    ];
  }

  describe('what the edge serves to other origins', () => {
    it('lists every route that is not the console, /api or an operator endpoint, and nothing else', () => {
      const routes = [...routePaths(app), ...app.edge.routes().map((r) => r.path)];
      expect(routes).toContain('/media/demo-ad.mp4');
      expect(routes).toContain('/cache');
      const own = (path: string) =>
        path.startsWith('/api/') || ['/healthz', '/metrics', '/preview/creative.html', '/', '/*'].includes(path);
      expect(routes.filter((path) => !own(path) && !isEdgePath(path))).toEqual([]);
      expect(routes.filter((path) => own(path) && isEdgePath(path))).toEqual([]);
      expect(CONSOLE_ROUTE_PATHS.filter((path) => isEdgePath(path))).toEqual([]);
      // (each entry of the list is a route, so the list holds no path nobody serves)
      expect(
        EDGE_PATHS.filter(
          (prefix) =>
            !routes.some(
              (path) =>
                isEdgePath(path) && (path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)),
            ),
        ),
      ).toEqual([]);
    });

    it('matches a prefix on whole segments only', () => {
      expect(isEdgePath('/ev?e=impression')).toBe(true);
      expect(isEdgePath('/event?t=win')).toBe(true);
      expect(isEdgePath('/evil')).toBe(false);
      expect(isEdgePath('/vast/abc?w=1')).toBe(true);
      expect(isEdgePath('/vast')).toBe(false);
      expect(isEdgePath('/cachex')).toBe(false);
      expect(isEdgePath('/info/bidders/all')).toBe(true);
      expect(isEdgePath('/api/demand/tags')).toBe(false);
      expect(isEdgePath('/')).toBe(false);
    });

    for (const transport of TRANSPORTS) {
      it(`answers each with Cross-Origin-Resource-Policy: cross-origin and nothing that blocks another origin (${transport})`, async () => {
        const wrong: string[] = [];
        for (const sent of edgeRequests()) {
          const got = await send(transport, sent);
          if (transport === 'fastify' && !fastifyRouted(sent)) {
            // the edge's table is read by the listening server alone: inject finds no route there
            if (got.status !== 404) wrong.push(`${sent.method} ${sent.url} (${got.status}): served through Fastify`);
            continue;
          }
          const what = `${sent.method} ${sent.url} (${got.status})`;
          if (got.status >= 500) wrong.push(`${what}: a 5xx`);
          if (got.headers['cross-origin-resource-policy'] !== 'cross-origin')
            wrong.push(`${what}: Cross-Origin-Resource-Policy ${String(got.headers['cross-origin-resource-policy'])}`);
          for (const found of blocking(sent.url, got.headers)) wrong.push(`${what}: ${found}`);
        }
        expect(wrong).toEqual([]);
      });
    }

    for (const transport of TRANSPORTS) {
      it(`serves the demo video to a player of another origin: ranges, its type, CORS (${transport})`, async () => {
        const media = vastUrls('MediaFile')[0]!;
        const whole = await send(transport, { method: 'GET', url: media, headers: { origin: PAGE_ORIGIN } });
        expect(whole.status).toBe(200);
        expect(whole.headers['content-type']).toBe('video/mp4');
        expect(whole.headers['accept-ranges']).toBe('bytes');
        expect(['*', PAGE_ORIGIN]).toContain(whole.headers['access-control-allow-origin']);
        const size = whole.body.length;
        expect(whole.body.subarray(4, 8).toString()).toBe('ftyp');

        const range = await send(transport, {
          method: 'GET',
          url: media,
          headers: { origin: PAGE_ORIGIN, range: 'bytes=100-199' },
        });
        expect(range.status).toBe(206);
        expect(range.headers['content-range']).toBe(`bytes 100-199/${size}`);
        expect(range.headers['content-type']).toBe('video/mp4');
        expect(range.body.equals(whole.body.subarray(100, 200))).toBe(true);
        expect(range.headers['cross-origin-resource-policy']).toBe('cross-origin');
        const open = await send(transport, { method: 'GET', url: media, headers: { range: `bytes=${size - 10}-` } });
        expect([open.status, open.headers['content-range'], open.body.length]).toEqual([
          206,
          `bytes ${size - 10}-${size - 1}/${size}`,
          10,
        ]);
      });
    }
  });

  describe('the console and /api', () => {
    for (const transport of TRANSPORTS) {
      it(`keep their strict headers (${transport})`, async () => {
        const wrong: string[] = [];
        const pages: Sent[] = [
          { method: 'GET', url: '/api/auth/user', headers: { cookie: demand } },
          { method: 'GET', url: '/api/auth/session' },
          { method: 'GET', url: '/api/demand/channels?pageSize=10', headers: { cookie: demand, origin: PAGE_ORIGIN } },
          { method: 'GET', url: '/' },
          { method: 'GET', url: '/login' },
          { method: 'GET', url: '/campaigns' },
          // a path beside an edge prefix is the console's (its not-found page), under the console's policy
          { method: 'GET', url: '/vast' },
          { method: 'GET', url: '/events' },
          { method: 'GET', url: '/index.html' },
          { method: 'GET', url: '/healthz' },
        ];
        for (const sent of pages) {
          const got = await send(transport, sent);
          const what = `${sent.method} ${sent.url} (${got.status})`;
          if (got.headers['cross-origin-resource-policy'] !== 'same-origin')
            wrong.push(`${what}: Cross-Origin-Resource-Policy ${String(got.headers['cross-origin-resource-policy'])}`);
          if (got.headers['cross-origin-opener-policy'] !== 'same-origin')
            wrong.push(`${what}: Cross-Origin-Opener-Policy ${String(got.headers['cross-origin-opener-policy'])}`);
          if (got.headers['x-frame-options'] !== 'DENY')
            wrong.push(`${what}: X-Frame-Options ${String(got.headers['x-frame-options'])}`);
          if (!String(got.headers['content-security-policy']).includes("frame-ancestors 'none'"))
            wrong.push(`${what}: CSP ${String(got.headers['content-security-policy'])}`);
          if (got.headers['access-control-allow-origin'] !== undefined)
            wrong.push(`${what}: CORS ${String(got.headers['access-control-allow-origin'])}`);
        }
        expect(wrong).toEqual([]);
        // the creative preview keeps its own policy, framed by the console alone
        const preview = await send(transport, { method: 'GET', url: '/preview/creative.html' });
        expect([preview.headers['cross-origin-resource-policy'], preview.headers['x-frame-options']]).toEqual([
          'same-origin',
          'SAMEORIGIN',
        ]);
      });

      it(`never serve the console under an edge path (${transport})`, async () => {
        for (const url of ['/media/nothing', '/demo/nothing', '/rtb/sync/', '/info/bidders/']) {
          const got = await send(transport, { method: 'GET', url, headers: { accept: 'text/html' } });
          expect(got.body.toString(), url).not.toContain('<div id="root">');
        }
      });
    }
  });
});
