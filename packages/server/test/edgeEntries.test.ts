import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { readJsonBody } from '../src/edge/ortb/requestBody.js';
import { type EdgeRequest, type EdgeResponse } from '../src/http/edgeHttp.js';
import { edgeRequest } from './edgeClient.js';
import { onSqliteStore } from './helpers.js';

/**
 * Edge entry points registered with `edge.addEntry` answer from the listening server (the lane, and
 * node:http for a chunked body the lane hands over), never through Fastify (inject), routed by the
 * edge's one table, read the body themselves, and an entry that throws answers 204, never a 500.
 */
onSqliteStore(
  (t) => {
    describe('edge entries', () => {
      let app: FastifyInstance;
      /** An entry answering its name and the rest of its path. */
      const named = (name: string) => (_req: EdgeRequest, res: EdgeResponse, rest: string) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'x-entry': name });
        res.end(`${name}:${rest}`);
      };
      let base = '';
      beforeAll(async () => {
        app = await buildApp({ settings: { ...t.settings, logLevel: 'silent' }, store: t.store });
        app.edge.addEntry({
          method: 'POST',
          path: '/echo/',
          async handle(req, res, rest) {
            const body = await readJsonBody(req, 64);
            res.writeHead(body.ok ? 200 : 400, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ rest, body }));
          },
        });
        app.edge.addEntry({
          method: 'POST',
          path: '/boom',
          handle: () => {
            throw new Error('boom');
          },
        });
        app.edge.addEntry({ method: 'GET', path: '/echo/', handle: named('short') });
        app.edge.addEntry({ method: 'GET', path: '/echo/long/', handle: named('long') });
        app.edge.addEntry({ method: 'GET', path: '/echo/exact', handle: named('exact') });
        await app.listen({ port: 0, host: '127.0.0.1' });
        base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      });
      afterAll(() => app.close());

      it('reads the raw body once, over the lane and node:http; Fastify (inject) does not route the edge', async () => {
        const live = await fetch(`${base}/echo/a%20b`, {
          method: 'POST',
          body: '{"x":1}',
          headers: { 'content-type': 'application/json' },
        });
        expect(live.status).toBe(200);
        expect(await live.json()).toEqual({ rest: 'a b', body: { ok: true, value: { x: 1 }, bytes: 7 } });
        const chunked = await fetch(`${base}/echo/z`, {
          method: 'POST',
          body: new Blob(['{"y":2}']).stream(),
          duplex: 'half',
          headers: { 'content-type': 'text/plain' },
        } as RequestInit);
        expect(await chunked.json()).toEqual({ rest: 'z', body: { ok: true, value: { y: 2 }, bytes: 7 } });
        expect((await app.inject({ method: 'POST', url: '/echo/z', payload: '{"y":2}' })).statusCode).toBe(404);
      });

      it('routes by one table: an exact path first, then the longest prefix; a HEAD by its GET entry; a route added once', async () => {
        const get = async (url: string, method = 'GET') => {
          const res = await edgeRequest(app, { method: method as 'GET', url });
          return [res.statusCode, res.headers['x-entry'], res.body];
        };
        expect(await get('/echo/exact')).toEqual([200, 'exact', 'exact:']);
        expect(await get('/echo/exactly')).toEqual([200, 'short', 'short:exactly']);
        expect(await get('/echo/long/a%2Fb?q=1')).toEqual([200, 'long', 'long:a/b']);
        expect(await get('/echo/x', 'HEAD')).toEqual([200, 'short', '']);
        // a prefix is matched only when something follows it
        expect((await get('/echo/'))[0]).toBe(404);
        expect(() => app.edge.addEntry({ method: 'GET', path: '/echo/', handle: named('again') })).toThrow(
          /added twice/,
        );
        expect(app.edge.routes()).toEqual(
          expect.arrayContaining([
            { method: 'GET', path: '/echo/long/' },
            { method: 'HEAD', path: '/vast/' },
            { method: 'POST', path: '/rtb/bid/' },
          ]),
        );
      });

      it('answers a bad body with the reason, and a throwing entry with 204', async () => {
        const big = await fetch(`${base}/echo/x`, { method: 'POST', body: JSON.stringify({ pad: 'x'.repeat(200) }) });
        expect(await big.json()).toMatchObject({ body: { ok: false, reason: 'body_too_large' } });
        const bad = await fetch(`${base}/echo/x`, { method: 'POST', body: '{nope' });
        expect(await bad.json()).toMatchObject({ body: { ok: false, reason: 'invalid_json' } });
        expect((await fetch(`${base}/boom`, { method: 'POST', body: '{}' })).status).toBe(204);
        expect((await app.inject({ method: 'POST', url: '/boom', payload: '{}' })).statusCode).toBe(404);
      });
    });
  },
  { seed: false },
);
