import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, forEachStore } from '../helpers.js';

/** /metrics answers only the allowed addresses and the bearer token (it holds login failures among other things). */
const TOKEN = 'scrape-token-0123456789abcdef';

forEachStore(
  (t) => {
    let app: FastifyInstance;
    beforeAll(async () => {
      app = await buildTestApp(t.store, { metricsAllow: ['10.20.0.0/16', '::1'], metricsToken: TOKEN });
    });
    afterAll(async () => app.close());

    const scrape = (remoteAddress: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers });

    it('answers an allowed address and a bearer of the token, and refuses everyone else', async () => {
      expect((await scrape('10.20.3.4')).statusCode).toBe(200);
      expect((await scrape('::ffff:10.20.3.4')).statusCode).toBe(200);
      expect((await scrape('::1')).statusCode).toBe(200);
      expect((await scrape('198.51.100.7', { authorization: `Bearer ${TOKEN}` })).statusCode).toBe(200);
      for (const [address, headers] of [
        ['198.51.100.7', {}],
        ['127.0.0.1', {}],
        ['10.21.0.1', {}],
        ['198.51.100.7', { authorization: 'Bearer wrong-token-0123456789ab' }],
        ['198.51.100.7', { authorization: TOKEN }],
      ] as const) {
        const response = await scrape(address, headers);
        expect(response.statusCode, `${address} ${JSON.stringify(headers)}`).toBe(403);
        expect(response.body).not.toContain('adplane_login_failures_total');
      }
    });

    it('times every route by its pattern', async () => {
      await app.inject({ method: 'GET', url: '/healthz' });
      const body = (await scrape('10.20.0.1')).body;
      expect(body).toMatch(/adplane_http_request_duration_seconds_count\{method="GET",route="\/healthz"\} [1-9]/);
    });

    it('is loopback-only by default', async () => {
      const byDefault = await buildTestApp(t.store);
      try {
        expect(
          (await byDefault.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).statusCode,
        ).toBe(200);
        expect(
          (await byDefault.inject({ method: 'GET', url: '/metrics', remoteAddress: '192.0.2.1' })).statusCode,
        ).toBe(403);
      } finally {
        await byDefault.close();
      }
    });
  },
  { seed: false },
);
