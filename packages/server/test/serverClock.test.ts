import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardAnswer, formatHour } from '@adplane/shared';
import { TestClock } from '../src/clock.js';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

/**
 * The hour the server is still counting, told by the server's clock: GET /api/clock (which a report by
 * hour reads) and the dashboard's `hourNow` (its revenue by hour), in each user's own zone. On a
 * stopped clock at 23:40 UTC, where a zone east of UTC is already in the next day.
 */
forEachStore((t) => {
  let app: FastifyInstance;
  const clock = new TestClock(Date.UTC(2026, 10, 28, 23, 40, 5));
  const cookies: Record<string, string> = {};
  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { clock });
    for (const who of ['admin', 'demand', 'manager', 'sub', 'adv', 'sdk']) cookies[who] = await login(app, who);
  });
  afterAll(async () => {
    await app.close();
  });

  describe('GET /api/clock', () => {
    it.each(['admin', 'demand', 'sub', 'adv', 'sdk'])("answers %s the app's clock, not the machine's", async (who) => {
      const res = await as(app, cookies[who], { method: 'GET', url: '/api/clock' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ now: clock.now() });
    });

    it('is refused signed out', async () => {
      expect((await as(app, null, { method: 'GET', url: '/api/clock' })).statusCode).toBe(403);
    });
  });

  describe("the dashboard's hourNow", () => {
    it.each(['admin', 'demand', 'manager', 'sub', 'adv'])(
      'names the hour it is now in the zone of %s, on its today',
      async (who) => {
        const user = (await as(app, cookies[who], { method: 'GET', url: '/api/auth/user' })).json() as {
          timezone: number;
        };
        const dashboard = (
          await as(app, cookies[who], { method: 'GET', url: '/api/dashboard' })
        ).json<DashboardAnswer>();
        expect(dashboard.hourNow).toBe(formatHour(clock.now(), user.timezone));
        expect(dashboard.hourNow.slice(0, 10)).toBe(dashboard.today);
      },
    );

    it('moves with the clock: the next hour once it turns, in the next day east of UTC', async () => {
      const before = clock.now();
      try {
        clock.advance(30 * 60_000);
        const d = (await as(app, cookies.demand, { method: 'GET', url: '/api/dashboard' })).json<DashboardAnswer>();
        const user = (await as(app, cookies.demand, { method: 'GET', url: '/api/auth/user' })).json() as {
          timezone: number;
        };
        expect(d.hourNow).toBe(formatHour(Date.UTC(2026, 10, 29, 0, 10, 5), user.timezone));
        expect(formatHour(Date.UTC(2026, 10, 28, 23, 40), 2)).toBe('2026-11-29 01:00');
        expect(formatHour(Date.UTC(2026, 10, 28, 23, 40), -5)).toBe('2026-11-28 18:00');
      } finally {
        clock.set(before);
      }
    });
  });
});
