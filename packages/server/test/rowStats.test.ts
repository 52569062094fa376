import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RowStatsAnswer } from '@adplane/shared';
import { type EntityTables } from '../src/store/entityTables.js';
import { parseJson } from '../src/store/json.js';
import { as, buildTestApp, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';
import { hourText, midHourClock } from './testTime.js';

/** GET /api/rowStats: the numbers beside a list's rows, equal to a report, in each user's scope, on every store and engine. */
forEachStoreAndStatsEngine((t, s) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  let northwind = 0;
  let subChannel = 0;
  let otherChannel = 0;
  let advCampaign = 0;
  let otherCampaign = 0;
  let tag = 0;
  let deal = { id: 0, dealId: '' };
  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { stats: s.stats, clock: midHourClock() });
    const now = hourText(app.clock.now());
    const dayAgo = hourText(app.clock.now() - 24 * 3_600_000);
    northwind = t.users.demand.id;
    const db = t.store.db.withTables<EntityTables>();
    const channels = await db
      .selectFrom('supply_channels')
      .select(['id', 'sub_id'])
      .where('tenant_id', '=', northwind)
      .execute();
    subChannel = channels.find((c) => c.sub_id === t.users.sub.id)!.id;
    otherChannel = channels.find((c) => c.sub_id !== t.users.sub.id)!.id;
    const campaigns = await db
      .selectFrom('campaigns')
      .select(['id', 'adv_id'])
      .where('tenant_id', '=', northwind)
      .execute();
    advCampaign = campaigns.find((c) => c.adv_id === t.users.adv.id)!.id;
    otherCampaign = campaigns.find((c) => c.id !== advCampaign)!.id;
    tag = (await db.selectFrom('demand_tags').select('id').where('tenant_id', '=', northwind).executeTakeFirstOrThrow())
      .id;
    const dealRow = await db
      .selectFrom('deals')
      .select(['id', 'data'])
      .where('tenant_id', '=', northwind)
      .executeTakeFirstOrThrow();
    deal = { id: dealRow.id, dealId: parseJson<{ dealId: string }>(dealRow.data, { dealId: '' }).dealId };
    const base = { tenant_id: northwind };
    await s.stats.write([
      statsRow({
        ...base,
        hour: now,
        channel_id: subChannel,
        subpublisher_id: t.users.sub.id,
        reqs: 1000,
        opps: 800,
        imps: 200,
        revenue: 2_000_000,
      }),
      statsRow({ ...base, hour: now, channel_id: otherChannel, reqs: 500, opps: 400, imps: 100, revenue: 1_000_000 }),
      statsRow({ ...base, hour: dayAgo, channel_id: otherChannel, reqs: 50, opps: 40, imps: 10, revenue: 100_000 }),
      // A demand tag's own row: considered 300 times, called 120, 30 impressions.
      statsRow({ ...base, hour: now, tag_id: tag, source_reqs: 300, source_opps: 120, imps: 30, revenue: 450_000 }),
      // Our bidder's wins: the adv's campaign through a deal, another advertiser's campaign.
      statsRow({
        ...base,
        hour: now,
        campaign_id: advCampaign,
        advertiser_id: t.users.adv.id,
        deal_id: deal.dealId,
        bids: 90,
        wins: 40,
        imps: 40,
        revenue: 600_000,
      }),
      statsRow({ ...base, hour: now, campaign_id: otherCampaign, bids: 10, wins: 5, imps: 5, revenue: 50_000 }),
      // Another tenant with the same deal id and a made-up channel id.
      statsRow({
        tenant_id: t.users.acme.id,
        hour: now,
        channel_id: 999_999,
        deal_id: deal.dealId,
        reqs: 7,
        imps: 7,
        wins: 7,
        revenue: 7_000_000,
      }),
    ]);
    for (const user of ['admin', 'demand', 'manager', 'sub', 'adv', 'sdk', 'acme'])
      cookies[user] = await login(app, user, undefined, freshAddress());
  });
  afterAll(async () => {
    await app?.close();
  });

  const rowStats = (user: string, query: string) =>
    as(app, cookies[user], { method: 'GET', url: `/api/rowStats?${query}` });
  const rowsOf = async (user: string, query: string) => {
    const res = await rowStats(user, query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<RowStatsAnswer>();
  };

  it('answers each channel its key metrics for today, equal to a report by channel over the same days', async () => {
    const answer = await rowsOf('demand', 'kind=channels&period=today');
    expect(answer).toMatchObject({
      kind: 'channels',
      period: 'today',
      timezone: -5,
      metrics: ['reqs', 'imps', 'fill', 'revenue', 'ecpm'],
    });
    expect(answer.startDate).toBe(answer.endDate);
    expect(answer.rows[String(subChannel)]).toEqual({
      reqs: 1000,
      imps: 200,
      fill: 25,
      revenue: 2_000_000,
      ecpm: 10_000_000,
    });
    expect(answer.rows[String(otherChannel)]).toEqual({
      reqs: 500,
      imps: 100,
      fill: 25,
      revenue: 1_000_000,
      ecpm: 10_000_000,
    });
    const report = await as(app, cookies.demand, {
      method: 'POST',
      url: '/api/rrun',
      payload: {
        startDate: answer.startDate,
        endDate: answer.endDate,
        timezone: answer.timezone,
        dimensions: ['channel'],
        metrics: answer.metrics,
      },
    });
    for (const row of report.json<Record<string, number>[]>().filter((r) => !r.total && r.channel > 0)) {
      const { channel, channel_name: _name, ...metrics } = row;
      expect(answer.rows[String(channel)]).toEqual(metrics);
    }
  });

  it('covers yesterday and the last 7 days in the user time zone', async () => {
    const yesterday = await rowsOf('demand', 'kind=channels&period=yesterday');
    const today = await rowsOf('demand', 'kind=channels&period=today');
    const week = await rowsOf('demand', 'kind=channels&period=last7');
    expect(yesterday.rows[String(otherChannel)]).toMatchObject({ reqs: 50, imps: 10 });
    expect(yesterday.rows[String(subChannel)]).toBeUndefined();
    expect(week.rows[String(otherChannel)]).toMatchObject({ reqs: 550, imps: 110 });
    expect(week.endDate).toBe(today.endDate);
    expect(Date.parse(week.endDate) - Date.parse(week.startDate)).toBe(6 * 86_400_000);
  });

  it('answers only the rows asked about', async () => {
    const answer = await rowsOf('demand', `kind=channels&period=today&ids=${otherChannel},123456`);
    expect(Object.keys(answer.rows)).toEqual([String(otherChannel)]);
  });

  it('gives demand tags their fill over the times they were called', async () => {
    const answer = await rowsOf('manager', 'kind=tags&period=today');
    expect(answer.metrics).toEqual(['source_reqs', 'imps', 'sourceFill', 'revenue', 'ecpm']);
    expect(answer.rows[String(tag)]).toEqual({
      source_reqs: 300,
      imps: 30,
      sourceFill: 25,
      revenue: 450_000,
      ecpm: 15_000_000,
    });
  });

  it('keys deals by their deal id, apart from another tenant using the same id', async () => {
    const answer = await rowsOf('demand', 'kind=deals&period=today');
    expect(answer.rows[String(deal.id)]).toEqual({
      bids: 90,
      wins: 40,
      imps: 40,
      revenue: 600_000,
      ecpm: 15_000_000,
    });
    const admin = await rowsOf('admin', `kind=deals&period=today&ids=${deal.id}`);
    expect(admin.rows).toEqual({ [String(deal.id)]: answer.rows[String(deal.id)] });
  });

  it('scopes a sub to its channels and an adv to its campaigns, like reports', async () => {
    const sub = await rowsOf('sub', `kind=channels&period=today&ids=${subChannel},${otherChannel}`);
    expect(Object.keys(sub.rows)).toEqual([String(subChannel)]);
    const adv = await rowsOf('adv', 'kind=campaigns&period=today');
    expect(adv.rows).toEqual({
      [String(advCampaign)]: { bids: 90, wins: 40, imps: 40, revenue: 600_000, ecpm: 15_000_000 },
    });
    const demand = await rowsOf('demand', 'kind=campaigns&period=today');
    expect(Object.keys(demand.rows).sort()).toEqual([String(advCampaign), String(otherCampaign)].sort());
    // Another tenant reads nothing of Northwind's, even naming its rows.
    const acme = await rowsOf('acme', `kind=channels&period=today&ids=${subChannel},${otherChannel}`);
    expect(acme.rows).toEqual({});
  });

  it('refuses kinds the user cannot list, and users without numbers', async () => {
    expect((await rowStats('sub', 'kind=tags&period=today')).statusCode).toBe(403);
    expect((await rowStats('adv', 'kind=channels&period=today')).statusCode).toBe(403);
    expect((await rowStats('sdk', 'kind=channels&period=today')).statusCode).toBe(403);
    // Acme has no DSP view: its campaigns are refused like its campaign list.
    expect((await rowStats('acme', 'kind=campaigns&period=today')).statusCode).toBe(403);
    expect((await as(app, null, { method: 'GET', url: '/api/rowStats?kind=channels&period=today' })).statusCode).toBe(
      403,
    );
  });

  it('answers 400 naming the field for a bad kind, period or ids', async () => {
    const cases: [string, string, RegExp][] = [
      ['period=today', 'kind', /must be one of channels/],
      ['kind=targetings&period=today', 'kind', /must be one of channels/],
      ['kind=channels', 'period', /must be one of today, yesterday, last7/],
      ['kind=channels&period=week', 'period', /must be one of today/],
      ['kind=channels&period=today&ids=1,x', 'ids', /row ids separated by commas/],
      ['kind=channels&period=today&ids=0', 'ids', /row ids/],
    ];
    for (const [query, field, message] of cases) {
      const res = await rowStats('demand', query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json<{ field: string }>().field, query).toBe(field);
      expect(res.json<{ message: string }>().message, query).toMatch(message);
    }
  });
});
