import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReportRow, type SavedReport } from '@adplane/shared';
import { TestClock } from '../src/clock.js';
import { type EntityTables } from '../src/store/entityTables.js';
import { as, buildTestApp, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';

const DAY_MS = 86_400_000;
/** 02:00 UTC on November 24th: still 23:00 on the 23rd at UTC-3, the saved report's time zone. */
const START = Date.parse('2026-11-24T02:00:00Z');

/**
 * Saved reports with a rolling period (datePreset) through the real app: the server computes the
 * preset's days from its clock in the request's own time zone each time the report runs or is opened.
 */
forEachStoreAndStatsEngine((t, s) => {
  let app: FastifyInstance;
  let cookie = '';
  const clock = new TestClock(START);

  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { stats: s.stats, clock });
    const northwind = t.users.demand.id;
    const [channel] = await t.store.db
      .withTables<EntityTables>()
      .selectFrom('supply_channels')
      .select(['id'])
      .where('tenant_id', '=', northwind)
      .execute();
    const row = (hour: string, imps: number) =>
      statsRow({ hour, tenant_id: northwind, channel_id: channel!.id, reqs: imps, opps: imps, imps });
    // local days at UTC-3 run from 03:00 UTC to 03:00 UTC the next day
    await s.stats.write([
      row('2026-11-22 10:00:00', 111), // Nov 22 local
      row('2026-11-23 05:00:00', 222), // Nov 23 local
      row('2026-11-24 01:00:00', 444), // Nov 23 local (22:00), Nov 24 in UTC
      row('2026-11-24 04:00:00', 888), // Nov 24 local
    ]);
    cookie = await login(app, 'demand', undefined, freshAddress());
  });
  afterAll(async () => {
    await app?.close();
  });

  const run = async (request: object | null) => {
    const res = await as(app, cookie, { method: 'POST', url: '/api/rrun', payload: request ?? {} });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<ReportRow[]>();
  };
  const totalImps = (rows: ReportRow[]) => rows.find((r) => r.total)?.imps;
  const open = async (id: number) =>
    (await as(app, cookie, { method: 'GET', url: `/api/savedReport/${id}` })).json<SavedReport>();

  describe('a saved "Yesterday" report', () => {
    it("saves the preset, and opens and runs on the server's yesterday in its time zone, day after day", async () => {
      clock.set(START);
      // saved with stale dates: the preset wins, and they are not an error
      const saved = await as(app, cookie, {
        method: 'POST',
        url: '/api/savedReports',
        payload: {
          name: 'Yesterday by channel',
          request: {
            startDate: '2026-01-10',
            endDate: '2026-01-01',
            datePreset: 'yesterday',
            timezone: -3,
            dimensions: ['channel'],
            metrics: ['imps'],
          },
        },
      });
      expect(saved.statusCode, saved.body).toBe(201);
      const { id, request } = saved.json<SavedReport>();
      expect(request).toMatchObject({ datePreset: 'yesterday', startDate: '2026-11-22', endDate: '2026-11-22' });

      const first = await open(id);
      expect(first.request).toMatchObject({ datePreset: 'yesterday', startDate: '2026-11-22', endDate: '2026-11-22' });
      expect(totalImps(await run(first.request))).toBe(111);

      clock.advance(DAY_MS);
      const next = await open(id);
      expect(next.request).toMatchObject({ datePreset: 'yesterday', startDate: '2026-11-23', endDate: '2026-11-23' });
      // the 23rd at UTC-3 holds the 01:00 UTC hour of the 24th too
      expect(totalImps(await run(next.request))).toBe(666);
      // the request as first opened, its dates now a day old, still runs yesterday's range
      expect(totalImps(await run(first.request))).toBe(666);
      const listed = (await as(app, cookie, { method: 'GET', url: '/api/savedReports?all=1' }))
        .json<SavedReport[]>()
        .find((r) => r.id === id);
      expect(listed?.request).toMatchObject({ datePreset: 'yesterday', startDate: '2026-11-23' });
    });
  });

  it('runs a fixed report on its own dates whatever the clock says', async () => {
    clock.set(START + 5 * DAY_MS);
    const fixed = { startDate: '2026-11-22', endDate: '2026-11-22', timezone: -3, metrics: ['imps'] };
    expect(totalImps(await run(fixed))).toBe(111);
  });

  it('computes the range in the request time zone: in UTC yesterday is another day', async () => {
    clock.set(START + DAY_MS);
    // Nov 25 02:00 UTC: yesterday is Nov 24 in UTC (the 01:00 and 04:00 rows), Nov 23 at UTC-3
    expect(
      totalImps(
        await run({
          startDate: '2026-11-01',
          endDate: '2026-11-01',
          datePreset: 'yesterday',
          timezone: 0,
          metrics: ['imps'],
        }),
      ),
    ).toBe(1332);
    expect(
      totalImps(
        await run({
          startDate: '2026-11-01',
          endDate: '2026-11-01',
          datePreset: 'last7',
          timezone: -3,
          metrics: ['imps'],
        }),
      ),
    ).toBe(1665);
  });

  it('writes a rolling report to a file on the range of the day it is asked, as a fixed report', async () => {
    clock.set(START);
    const res = await as(app, cookie, {
      method: 'POST',
      url: '/api/rfile',
      payload: {
        name: 'Yesterday file',
        request: {
          startDate: '2026-01-01',
          endDate: '2026-01-01',
          datePreset: 'yesterday',
          timezone: -3,
          metrics: ['imps'],
        },
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    const { request } = res.json<SavedReport>();
    expect(request).toMatchObject({ startDate: '2026-11-22', endDate: '2026-11-22' });
    expect(request).not.toHaveProperty('datePreset');
  });

  it('refuses an unknown preset naming the field', async () => {
    const res = await as(app, cookie, {
      method: 'POST',
      url: '/api/rrun',
      payload: { startDate: '2026-11-01', endDate: '2026-11-01', datePreset: 'lastYear', metrics: ['imps'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('datePreset');
  });
});
