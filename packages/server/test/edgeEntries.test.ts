import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { readJsonBody } from '../src/edge/ortb/requestBody.js';
import { forEachStore } from './helpers.js';

/**
 * Edge entry points registered with `edge.addEntry` answer from the listening server (the lane, and
 * node:http for a chunked body the lane hands over), never through Fastify (inject), read the body
 * themselves, and an entry that throws answers 204, never a 500.
 */
forEachStore((t) => {
  describe('edge entries', () => {
    let app: FastifyInstance;
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
      app.edge.addEntry({ method: 'POST', path: '/boom', handle: () => { throw new Error('boom'); } });
      await app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    });
    afterAll(() => app.close());

    it('reads the raw body once, over the lane and node:http; Fastify (inject) does not route the edge', async () => {
      const live = await fetch(`${base}/echo/a%20b`, { method: 'POST', body: '{"x":1}', headers: { 'content-type': 'application/json' } });
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ rest: 'a b', body: { ok: true, value: { x: 1 }, bytes: 7 } });
      const chunked = await fetch(`${base}/echo/z`, { method: 'POST', body: new Blob(['{"y":2}']).stream(), duplex: 'half', headers: { 'content-type': 'text/plain' } } as RequestInit);
      expect(await chunked.json()).toEqual({ rest: 'z', body: { ok: true, value: { y: 2 }, bytes: 7 } });
      expect((await app.inject({ method: 'POST', url: '/echo/z', payload: '{"y":2}' })).statusCode).toBe(404);
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
}, { seed: false });
