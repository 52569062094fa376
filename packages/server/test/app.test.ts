import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthUser, decryptJsonBody } from '@adplane/shared';
import { buildApp } from '../src/app.js';
import { as, buildTestApp, DEMO_PASSWORD, forEachStore, login } from './helpers.js';
import { exchange } from './rawHttp.js';

forEachStore((t) => {
  describe('operations and errors', () => {
    let app: FastifyInstance;
    beforeAll(async () => {
      app = await buildTestApp(t.store);
    });
    afterAll(async () => {
      await app.close();
    });

    it('GET /healthz answers ok after a store round-trip', async () => {
      const response = await app.inject({ method: 'GET', url: '/healthz' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        status: 'ok',
        delivery: { engine: 'memory', redis: 'unused', since: expect.any(Number) },
      });
    });

    it('GET /metrics speaks the Prometheus text format', async () => {
      await app.inject({ method: 'GET', url: '/healthz' });
      const response = await app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0.0.4/);
      expect(response.body).toMatch(
        /^# HELP process_uptime_seconds .*\n# TYPE process_uptime_seconds gauge\nprocess_uptime_seconds \d+$/m,
      );
      expect(response.body).toMatch(/adplane_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]/);
      expect(response.body).toContain('# TYPE adplane_login_failures_total counter');
    });

    it("lists every metric family of /metrics in docs/security.md's tables, with its type", async () => {
      const body = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      const rows = readFileSync(new URL('../../../docs/security.md', import.meta.url), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .map((line) => line.split(' | '));
      const families = [...body.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({
        name: name!,
        type: type!,
      }));
      // the edge's too: this app has the edge (role all)
      expect(families.map((f) => f.name)).toContain('adplane_edge_request_seconds');
      for (const { name, type } of families) {
        const row = rows.find((cells) => cells[0]!.includes(`\`${name}\``));
        expect(row, `${name} is missing from docs/security.md, "What /metrics holds"`).toBeDefined();
        expect(row![1], `the type of ${name} in docs/security.md`).toBe(type);
      }
    });

    it('keeps idle connections open longer than exchanges and load balancers do (Keep-Alive: timeout=65), as set', async () => {
      const live = await buildTestApp(t.store, { keepAliveMs: 90_000 });
      try {
        expect(app.server.keepAliveTimeout).toBe(65_000);
        await live.listen({ port: 0, host: '127.0.0.1' });
        const res = await fetch(`http://127.0.0.1:${(live.server.address() as { port: number }).port}/healthz`);
        expect(res.headers.get('keep-alive')).toBe('timeout=90');
      } finally {
        await live.close();
      }
    });

    it('answers a request head over 16 KB with 431: a JSON reason to GET, no body to HEAD (its client reads the next answer cleanly)', async () => {
      const live = await buildTestApp(t.store);
      try {
        await live.listen({ port: 0, host: '127.0.0.1' });
        const port = (live.server.address() as { port: number }).port;
        const big = `pad=${'x'.repeat(20_000)}`;
        const get = await exchange(port, [`GET /ev?${big} HTTP/1.1\r\nHost: a\r\n\r\n`], 1);
        expect(get.answers[0]).toMatchObject({ status: 431, headers: { 'content-type': 'application/json' } });
        expect(JSON.parse(get.answers[0]!.body)).toMatchObject({
          statusCode: 431,
          message: 'Exceeded maximum allowed HTTP header size',
        });
        const head = await exchange(port, [`HEAD /ev?${big} HTTP/1.1\r\nHost: a\r\n\r\n`], 1, { waitEndMs: 2000 });
        expect(head.ended).toBe(true);
        expect(head.answers).toEqual([
          { status: 431, headers: { connection: 'close', 'content-length': '0' }, body: '' },
        ]);
        // and through a real HTTP client
        await expect(
          fetch(`http://127.0.0.1:${port}/healthz?${big}`, { method: 'HEAD' }).then((r) => r.status),
        ).resolves.toBe(431);
      } finally {
        await live.close();
      }
    });

    it('answers 404 JSON to an unknown /api route', async () => {
      const response = await app.inject({ method: 'GET', url: '/api/no/such/thing' });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ message: 'Not found' });
    });

    it('answers 400, not 500, to a malformed JSON body', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: '{"username": "admin", ',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ message: 'Body is not valid JSON' });
    });

    it('answers 500 without details when a handler fails unexpectedly', async () => {
      const failing = await buildApp({ settings: { ...t.settings, logLevel: 'silent' }, store: t.store });
      failing.get('/api/test-failure', { config: { guard: 'public' } }, async () => {
        throw new Error('secret internal detail');
      });
      try {
        const response = await failing.inject({ method: 'GET', url: '/api/test-failure' });
        expect(response.statusCode).toBe(500);
        expect(response.json()).toEqual({ message: 'Internal error' });
        expect(response.body).not.toContain('secret');
      } finally {
        await failing.close();
      }
    });
  });

  describe('response encryption', () => {
    let app: FastifyInstance;
    beforeAll(async () => {
      app = await buildTestApp(t.store, { encryptResponses: true });
    });
    afterAll(async () => {
      await app.close();
    });

    it('sends JSON answers encrypted with json-encrypt: 1, and they decrypt', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'demand', password: DEMO_PASSWORD },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['json-encrypt']).toBe('1');
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect(response.body).not.toContain('Northwind');
      expect(JSON.parse(decryptJsonBody(response.body)) as AuthUser).toMatchObject({
        name: 'Northwind Media',
        type: 'demand',
      });
    });

    it('encrypts errors too, and leaves non-API answers alone', async () => {
      const refused = await app.inject({ method: 'GET', url: '/api/auth/user' });
      expect(refused.statusCode).toBe(403);
      expect(JSON.parse(decryptJsonBody(refused.body))).toEqual({ message: 'Forbidden' });
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      expect(health.headers['json-encrypt']).toBeUndefined();
      expect(health.json()).toMatchObject({ status: 'ok' });
    });
  });

  describe('console bundle', () => {
    let app: FastifyInstance;
    let dist: string;
    beforeAll(async () => {
      dist = mkdtempSync(join(tmpdir(), 'adplane-dist-'));
      mkdirSync(join(dist, 'assets'));
      writeFileSync(join(dist, 'index.html'), '<!doctype html><title>adplane</title><div id="root"></div>');
      writeFileSync(join(dist, 'assets', 'app-abc123.js'), 'console.warn("app")');
      writeFileSync(join(dist, 'assets', 'app-abc123.js.br'), brotliCompressSync('console.warn("app")'));
      app = await buildTestApp(t.store, { webDist: dist });
    });
    afterAll(async () => {
      await app.close();
      rmSync(dist, { recursive: true, force: true });
    });

    it('serves index.html at / and for every history-mode route', async () => {
      for (const url of ['/', '/campaigns', '/report/12?saved=1', '/login']) {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(200);
        expect(response.headers['content-type']).toMatch(/text\/html/);
        expect(response.body).toContain('<div id="root">');
        expect(response.headers['cache-control']).toBe('no-cache');
      }
    });

    it('answers a path outside the console route table with 404 and the console (its not-found page)', async () => {
      for (const url of ['/nowhere', '/report/12/x', '/campaigns/7', '/Channels']) {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(404);
        expect(response.headers['content-type']).toMatch(/text\/html/);
        expect(response.body).toContain('<div id="root">');
      }
    });

    it('serves built assets with a long cache, and 404 for a missing file', async () => {
      const asset = await app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['cache-control']).toContain('immutable');
      expect(asset.headers['content-encoding']).toBeUndefined();
      expect(asset.body).toBe('console.warn("app")');
      expect((await app.inject({ method: 'GET', url: '/assets/gone-123.js' })).statusCode).toBe(404);
    });

    it("sends an asset's Brotli copy to a browser that accepts it, with the same long cache", async () => {
      const asset = await app.inject({
        method: 'GET',
        url: '/assets/app-abc123.js',
        headers: { 'accept-encoding': 'gzip, deflate, br' },
      });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-encoding']).toBe('br');
      expect(asset.headers['cache-control']).toContain('immutable');
      expect(asset.headers['content-type']).toMatch(/javascript/);
      expect(brotliDecompressSync(asset.rawPayload).toString()).toBe('console.warn("app")');
    });

    it('keeps /api, /healthz and /metrics out of the fallback', async () => {
      expect((await app.inject({ method: 'GET', url: '/api/nope' })).json()).toEqual({ message: 'Not found' });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toMatchObject({ status: 'ok' });
      expect((await app.inject({ method: 'POST', url: '/campaigns' })).statusCode).toBe(404);
    });

    it('still answers the API next to the console', async () => {
      const cookie = await login(app, 'adv');
      expect((await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(200);
    });
  });
});
