import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDashboard } from '../src/stats/queries/getDashboard.js';
import { type EntityTables } from '../src/store/entityTables.js';
import { as, buildTestApp, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';
import { hourText, midHourClock } from './testTime.js';

/** POST /api/rrun, saved reports, files and the bell, through the real app on every config store and stats engine. */
forEachStoreAndStatsEngine((t, s) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  let northwind = 0;
  let acme = 0;
  let subId = 0;
  let subChannel = { id: 0, name: '' };
  let otherChannel = { id: 0, name: '' };

  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { stats: s.stats, clock: midHourClock() });
    northwind = t.users.demand.id;
    acme = t.users.acme.id;
    subId = t.users.sub.id;
    const channels = await t.store.db
      .withTables<EntityTables>()
      .selectFrom('supply_channels')
      .select(['id', 'name', 'tenant_id', 'sub_id'])
      .where('tenant_id', '=', northwind)
      .execute();
    subChannel = channels.find((c) => c.sub_id === subId) ?? channels[0];
    otherChannel = channels.find((c) => c.id !== subChannel.id) ?? channels[0];
    await s.stats.write([
      statsRow({
        hour: '2026-11-01 10:00:00',
        tenant_id: northwind,
        channel_id: subChannel.id,
        subpublisher_id: subId,
        reqs: 1000,
        opps: 800,
        imps: 200,
        revenue: 2_000_000,
        cost: 500_000,
      }),
      // as the edge writes: the channel's requests on its own row, the ad exchange's calls and impressions on the exchange's
      statsRow({
        hour: '2026-11-01 11:00:00',
        tenant_id: northwind,
        channel_id: otherChannel.id,
        reqs: 500,
        opps: 400,
      }),
      statsRow({
        hour: '2026-11-01 11:00:00',
        tenant_id: northwind,
        channel_id: otherChannel.id,
        adexchange_id: 1,
        marketplace_name: 'Exchange A',
        source_reqs: 500,
        source_opps: 400,
        imps: 100,
        revenue: 1_000_000,
        cost: 400_000,
        rev_m: 1_000_000,
        rev_md: 250_000,
      }),
      statsRow({
        hour: '2026-11-01 12:00:00',
        tenant_id: acme,
        channel_id: 999_999,
        reqs: 7,
        imps: 7,
        revenue: 7_000_000,
      }),
    ]);
    for (const user of ['admin', 'demand', 'sub', 'adv', 'sdk', 'acme', 'manager'])
      cookies[user] = await login(app, user, undefined, freshAddress());
  });
  afterAll(async () => {
    await app?.close();
  });

  const rrun = (user: string, body: Record<string, unknown>) =>
    as(app, cookies[user], {
      method: 'POST',
      url: '/api/rrun',
      payload: { startDate: '2026-11-01', endDate: '2026-11-01', ...body },
    });

  describe('POST /api/rrun', () => {
    it('answers rows with names and the totals row last', async () => {
      const res = await rrun('demand', {
        dimensions: ['channel'],
        metrics: ['imps', 'revenue', 'fill'],
        sort: { by: 'imps', order: 'desc' },
      });
      expect(res.statusCode).toBe(200);
      const rows = res.json<Record<string, unknown>[]>();
      expect(rows).toHaveLength(3);
      expect(rows[0]).toMatchObject({
        channel: subChannel.id,
        channel_name: subChannel.name,
        imps: 200,
        revenue: 2_000_000,
        fill: 25,
      });
      expect(rows[2]).toEqual({ total: true, imps: 300, revenue: 3_000_000, fill: 25 });
    });

    it('scopes every user: a tenant, a sub, a team member, the admin', async () => {
      const total = async (user: string) =>
        (await rrun(user, { metrics: ['imps'] })).json<Record<string, unknown>[]>().at(-1);
      expect(await total('admin')).toEqual({ total: true, imps: 307 });
      expect(await total('demand')).toEqual({ total: true, imps: 300 });
      expect(await total('manager')).toEqual({ total: true, imps: 300 });
      expect(await total('acme')).toEqual({ total: true, imps: 7 });
      expect(await total('sub')).toEqual({ total: true, imps: 200 });
      expect(await total('adv')).toEqual({ total: true, imps: 0 });
      expect((await rrun('sdk', { metrics: ['imps'] })).statusCode).toBe(403);
    });

    it('shows an advertiser its own rows only', async () => {
      const on5 = { startDate: '2025-09-05', endDate: '2025-09-05' };
      await s.stats.write([
        statsRow({
          hour: '2025-09-05 10:00:00',
          tenant_id: northwind,
          channel_id: otherChannel.id,
          advertiser_id: t.users.adv.id,
          imps: 40,
          opps: 80,
          revenue: 600_000,
        }),
        statsRow({
          hour: '2025-09-05 10:00:00',
          tenant_id: northwind,
          channel_id: otherChannel.id,
          imps: 9,
          opps: 9,
        }),
      ]);
      const adv = (await rrun('adv', { ...on5, dimensions: ['date'], metrics: ['imps', 'revenue'] })).json<
        Record<string, unknown>[]
      >();
      expect(adv).toEqual([
        { date: '2025-09-05', imps: 40, revenue: 600_000 },
        { total: true, imps: 40, revenue: 600_000 },
      ]);
      expect((await rrun('demand', { ...on5, metrics: ['imps'] })).json<Record<string, unknown>[]>()).toEqual([
        { total: true, imps: 49 },
      ]);
    });

    it('gives the month-to-date system cost from the tenant prices to users who may see it', async () => {
      const res = await rrun('demand', {
        startDate: '2026-11-01',
        endDate: '2026-11-23',
        timezone: -5,
        metrics: ['systemCost'],
        limit: 1,
      });
      // $0.01 per 1,000 of 1,500 reqs + $0.05 per 1,000 of 300 imps = 15,000 + 15,000 micro-dollars.
      expect(res.json<Record<string, unknown>[]>().at(-1)).toEqual({ total: true, systemCost: 30_000 });
      const refused = await rrun('acme', { metrics: ['imps', 'systemCost'] });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ field: 'metrics.1' });
    });

    it('refuses unknown dimensions, metrics and filters with 400 naming them', async () => {
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ dimensions: ['planet'], metrics: ['imps'] }, 'dimensions.0', /unknown dimension 'planet'/],
        [{ metrics: ['imps', 'joy'] }, 'metrics.1', /unknown metric 'joy'/],
        [{ metrics: ['imps'], filters: { planet: ['x'] } }, 'filters.planet', /unknown filter 'planet'/],
        [{ metrics: ['imps'], filters: { channel: ['abc'] } }, 'filters.channel', /list of ids/],
        [{ metrics: ['imps'], startDate: 'yesterday' }, 'startDate', /YYYY-MM-DD/],
        [{ metrics: ['imps'], timezone: 14 }, 'timezone', /-12 and \+12/],
        [{ dimensions: ['tenant'], metrics: ['imps'] }, 'dimensions.0', /admins only/],
        // names every object inherits are not ids (they were taken for known ones)
        [{ metrics: ['imps', 'toString'] }, 'metrics.1', /unknown metric 'toString'/],
        [{ dimensions: ['constructor'], metrics: ['imps'] }, 'dimensions.0', /unknown dimension 'constructor'/],
        [
          { metrics: ['imps'], sort: { by: 'valueOf' } },
          'sort.by',
          /'valueOf' is not one of the report's dimensions or metrics/,
        ],
      ];
      for (const [body, field, message] of cases) {
        const res = await rrun('demand', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json<{ field: string }>().field).toBe(field);
        expect(res.json<{ message: string }>().message).toMatch(message);
      }
    });

    it('answers the market report helper', async () => {
      const res = await rrun('demand', {
        dimensions: ['marketplace_name'],
        metrics: ['rev_m', 'rev_md', 'imps', 'reqs', 'opps', 'fill'],
        hideErrors: true,
        sort: { by: 'rev_m', order: 'desc' },
      });
      expect(res.json<Record<string, unknown>[]>()[0]).toMatchObject({
        marketplace_name: 'Exchange A',
        rev_m: 1_000_000,
        rev_md: 250_000,
        imps: 100,
        fill: 25,
      });
    });
  });

  describe('dashboard and finance', () => {
    let now = 0;
    beforeAll(async () => {
      now = app.clock.now();
      await s.stats.write([
        statsRow({
          hour: hourText(now),
          tenant_id: northwind,
          channel_id: otherChannel.id,
          reqs: 120,
          opps: 100,
          imps: 50,
          revenue: 500_000,
          cost: 100_000,
        }),
      ]);
    });

    it('shows today, yesterday and the week in the user scope', async () => {
      const res = await as(app, cookies.demand, { method: 'GET', url: '/api/dashboard' });
      expect(res.statusCode).toBe(200);
      const d = res.json<{
        today: string;
        totals: Record<string, Record<string, number>>;
        topChannels: Record<string, unknown>[];
        hours: unknown[];
      }>();
      expect(d.today).toBe(new Date(now - 5 * 3_600_000).toISOString().slice(0, 10));
      expect(d.totals.today).toMatchObject({ imps: 50, revenue: 500_000, profit: 400_000, fill: 50 });
      expect(d.totals.last7).toMatchObject({ imps: 50 });
      expect(d.topChannels[0]).toMatchObject({ channel: otherChannel.id, channel_name: otherChannel.name, imps: 50 });
      expect(d.hours.length).toBeGreaterThan(0);
      const sub = (await as(app, cookies.sub, { method: 'GET', url: '/api/dashboard' })).json<{
        totals: Record<string, Record<string, number>>;
      }>();
      expect(sub.totals.today).toMatchObject({ imps: 0 });
      expect((await as(app, cookies.sdk, { method: 'GET', url: '/api/dashboard' })).statusCode).toBe(403);
    });

    it("compares today so far with yesterday up to the same local hour, and keeps yesterday's whole day beside it", async () => {
      const tenant = 424_242;
      await s.stats.write([
        statsRow({
          hour: '2026-10-01 07:00:00',
          tenant_id: tenant,
          channel_id: 1,
          reqs: 10,
          opps: 10,
          imps: 10,
          revenue: 1_000_000,
        }),
        statsRow({
          hour: '2026-10-01 12:00:00',
          tenant_id: tenant,
          channel_id: 1,
          reqs: 5,
          opps: 5,
          imps: 5,
          revenue: 500_000,
        }),
        statsRow({
          hour: '2026-10-01 15:00:00',
          tenant_id: tenant,
          channel_id: 1,
          reqs: 20,
          opps: 20,
          imps: 20,
          revenue: 2_000_000,
        }),
        statsRow({
          hour: '2026-10-02 09:00:00',
          tenant_id: tenant,
          channel_id: 1,
          reqs: 4,
          opps: 4,
          imps: 4,
          revenue: 400_000,
        }),
      ]);
      const ctx = {
        stats: s.stats,
        db: null,
        scope: { tenantId: tenant },
        prices: new Map(),
        viewer: { type: 'demand' as const },
      };
      // 12:30 UTC: yesterday's 07:00 and 12:00 hours are "so far", its 15:00 is not
      const d = await getDashboard(ctx, 0, Date.parse('2026-10-02T12:30:00Z'), []);
      expect(d.totals.today).toMatchObject({ imps: 4 });
      expect(d.totals.yesterday).toMatchObject({ imps: 35, revenue: 3_500_000 });
      expect(d.totals.yesterdaySoFar).toMatchObject({ imps: 15, revenue: 1_500_000 });
      // at 09:30 UTC it is 04:30 in UTC-5: of local yesterday (2026-10-01 05:00 to 2026-10-02 05:00 UTC), only the
      // 07:00 UTC row (02:00 local) is so far; the 09:00 UTC row is today's 04:00
      const west = await getDashboard(ctx, -5, Date.parse('2026-10-02T09:30:00Z'), []);
      expect(west.totals.today).toMatchObject({ imps: 4 });
      expect(west.totals.yesterday).toMatchObject({ imps: 35 });
      expect(west.totals.yesterdaySoFar).toMatchObject({ imps: 10 });
    });

    it('bills each tenant its month in its own zone, equal to its month-to-date cost', async () => {
      const today = new Date(now - 5 * 3_600_000).toISOString().slice(0, 10);
      const month = today.slice(0, 7);
      const res = await as(app, cookies.admin, { method: 'GET', url: `/api/finance?month=${month}` });
      expect(res.statusCode).toBe(200);
      const finance = res.json<{
        rows: { tenantId: number; reqs: number; imps: number; systemCost: number }[];
        totals: { systemCost: number };
      }>();
      const nw = finance.rows.find((r) => r.tenantId === northwind)!;
      const reqs = 120 + (month === '2026-11' ? 1500 : 0);
      const imps = 50 + (month === '2026-11' ? 300 : 0);
      expect(nw).toMatchObject({ reqs, imps, systemCost: reqs * 10 + imps * 50 });
      const mtd = await rrun('demand', {
        startDate: `${month}-01`,
        endDate: today,
        timezone: -5,
        metrics: ['systemCost'],
        limit: 1,
      });
      expect(mtd.json<Record<string, number>[]>().at(-1)?.systemCost).toBe(nw.systemCost);
      expect(finance.totals.systemCost).toBe(finance.rows.reduce((sum, r) => sum + r.systemCost, 0));
      const bad = await as(app, cookies.admin, { method: 'GET', url: '/api/finance?month=2026-13' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ field: 'month' });
      expect((await as(app, cookies.demand, { method: 'GET', url: `/api/finance?month=${month}` })).statusCode).toBe(
        403,
      );
    });
  });

  describe('saved reports and the bell', () => {
    const request = { startDate: '2026-11-01', endDate: '2026-11-01', dimensions: ['date'], metrics: ['imps'] };

    it('saves, lists after the last id, renames, archives and deletes', async () => {
      const created = await as(app, cookies.demand, {
        method: 'POST',
        url: '/api/savedReports',
        payload: { name: 'Daily imps', request },
      });
      expect(created.statusCode).toBe(201);
      const saved = created.json<{ id: number; name: string; file: number; ivt: number; dt: string }>();
      expect(saved).toMatchObject({ name: 'Daily imps', file: 0, ivt: 0 });
      expect(saved.dt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);

      const bell = await as(app, cookies.demand, { method: 'GET', url: `/api/savedReports?last=${saved.id - 1}` });
      expect(bell.json<{ id: number }[]>().map((r) => r.id)).toEqual([saved.id]);
      expect(
        (await as(app, cookies.demand, { method: 'GET', url: `/api/savedReports?last=${saved.id}` })).json(),
      ).toEqual([]);
      // Another user neither lists nor opens it.
      expect(
        (await as(app, cookies.acme, { method: 'GET', url: '/api/savedReports' }))
          .json<{ id: number }[]>()
          .map((r) => r.id),
      ).not.toContain(saved.id);
      expect((await as(app, cookies.acme, { method: 'GET', url: `/api/savedReport/${saved.id}` })).statusCode).toBe(
        404,
      );
      expect((await as(app, cookies.acme, { method: 'DELETE', url: `/api/savedReport/${saved.id}` })).statusCode).toBe(
        404,
      );

      const renamed = await as(app, cookies.demand, {
        method: 'PUT',
        url: `/api/savedReport/${saved.id}`,
        payload: { name: 'Imps by day', archived: true },
      });
      expect(renamed.json()).toMatchObject({ name: 'Imps by day', archived: true, request: { metrics: ['imps'] } });
      expect(
        (await as(app, cookies.demand, { method: 'GET', url: '/api/savedReports' }))
          .json<{ id: number }[]>()
          .map((r) => r.id),
      ).not.toContain(saved.id);
      expect(
        (await as(app, cookies.demand, { method: 'GET', url: '/api/savedReports?all=1' }))
          .json<{ id: number }[]>()
          .map((r) => r.id),
      ).toContain(saved.id);

      expect(
        (await as(app, cookies.demand, { method: 'DELETE', url: `/api/savedReport/${saved.id}` })).statusCode,
      ).toBe(200);
      expect((await as(app, cookies.demand, { method: 'GET', url: `/api/savedReport/${saved.id}` })).statusCode).toBe(
        404,
      );
    });

    it('refuses a bad saved report with the field', async () => {
      const noName = await as(app, cookies.demand, {
        method: 'POST',
        url: '/api/savedReports',
        payload: { name: ' ', request },
      });
      expect(noName.statusCode).toBe(400);
      expect(noName.json()).toMatchObject({ field: 'name' });
      const badMetric = await as(app, cookies.demand, {
        method: 'POST',
        url: '/api/savedReports',
        payload: { name: 'x', request: { ...request, metrics: ['nope'] } },
      });
      expect(badMetric.json()).toMatchObject({ field: 'request.metrics.0' });
      expect(
        (await as(app, cookies.demand, { method: 'PUT', url: '/api/savedReport/abc', payload: { name: 'x' } }))
          .statusCode,
      ).toBe(400);
    });

    it('writes a long report to a file that only its owner or an admin downloads', async () => {
      const started = await as(app, cookies.demand, {
        method: 'POST',
        url: '/api/rfile',
        payload: {
          name: 'Channels, Nov 1',
          request: { ...request, dimensions: ['date', 'channel'], metrics: ['imps', 'revenue'] },
        },
      });
      expect(started.statusCode).toBe(202);
      const { id } = started.json<{ id: number }>();
      let status = '';
      for (let i = 0; i < 100 && status !== 'ready'; i++) {
        status = (await as(app, cookies.demand, { method: 'GET', url: `/api/savedReport/${id}` })).json<{
          status: string;
        }>().status;
        if (status !== 'ready') await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe('ready');
      const bell = (await as(app, cookies.demand, { method: 'GET', url: '/api/savedReports' })).json<
        { id: number; file: number }[]
      >();
      expect(bell.find((r) => r.id === id)).toMatchObject({ file: 1 });
      const file = await as(app, cookies.demand, { method: 'GET', url: `/api/savedFile/${id}` });
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-disposition']).toBe('attachment; filename="Channels_ Nov 1.csv"');
      const lines = file.body.trim().split('\n');
      expect(lines[0]).toBe('Date,Channel Id,Channel,Impressions,Revenue');
      expect(lines).toHaveLength(4);
      expect(lines[3]).toBe('Total,,,300,3.00');
      expect((await as(app, cookies.acme, { method: 'GET', url: `/api/savedFile/${id}` })).statusCode).toBe(404);
      expect((await as(app, cookies.admin, { method: 'GET', url: `/api/savedFile/${id}` })).statusCode).toBe(200);
      expect((await as(app, null, { method: 'GET', url: `/api/savedFile/${id}` })).statusCode).toBe(403);
    });
  });
});
