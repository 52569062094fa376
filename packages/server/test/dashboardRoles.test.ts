import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DashboardAnswer } from '@adplane/shared';
import { type EntityTables } from '../src/store/entityTables.js';
import { as, buildTestApp, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';
import { hourText, midHourClock } from './testTime.js';

/** GET /api/dashboard by role: each user lands on its own numbers and the top lists its role looks at. */
forEachStoreAndStatsEngine((t, s) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  let subChannel = 0;
  let otherChannel = 0;
  let advCampaign = 0;

  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { stats: s.stats, clock: midHourClock() });
    const northwind = t.users.demand.id;
    const db = t.store.db.withTables<EntityTables>();
    const channels = await db
      .selectFrom('supply_channels')
      .select(['id', 'sub_id'])
      .where('tenant_id', '=', northwind)
      .execute();
    subChannel = channels.find((c) => c.sub_id === t.users.sub.id)!.id;
    otherChannel = channels.find((c) => c.sub_id !== t.users.sub.id)!.id;
    advCampaign = (
      await db.selectFrom('campaigns').select('id').where('adv_id', '=', t.users.adv.id).executeTakeFirstOrThrow()
    ).id;
    const hour = hourText(app.clock.now());
    await s.stats.write([
      statsRow({
        hour,
        tenant_id: northwind,
        channel_id: subChannel,
        subpublisher_id: t.users.sub.id,
        reqs: 100,
        opps: 80,
        imps: 20,
        revenue: 200_000,
        cost: 100_000,
      }),
      statsRow({
        hour,
        tenant_id: northwind,
        channel_id: otherChannel,
        reqs: 50,
        opps: 40,
        imps: 10,
        revenue: 100_000,
        cost: 50_000,
      }),
      statsRow({
        hour,
        tenant_id: northwind,
        campaign_id: advCampaign,
        advertiser_id: t.users.adv.id,
        wins: 8,
        imps: 8,
        revenue: 160_000,
      }),
    ]);
    for (const user of ['demand', 'sub', 'adv']) cookies[user] = await login(app, user, undefined, freshAddress());
  });
  afterAll(async () => {
    await app?.close();
  });

  const dashboard = async (user: string) => {
    const res = await as(app, cookies[user], { method: 'GET', url: '/api/dashboard' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<DashboardAnswer>();
  };

  it('shows the tenant its channels and demand tags', async () => {
    const d = await dashboard('demand');
    expect(d.topChannels.map((r) => r.channel)).toEqual([subChannel, otherChannel]);
    expect(d.topCampaigns).toEqual([]);
    expect(d.totals.today).toMatchObject({ imps: 38, revenue: 460_000 });
  });

  it("shows a subpublisher its own channels' revenue (its payout) and fill, and no demand nor margin", async () => {
    const d = await dashboard('sub');
    expect(d.topChannels).toEqual([
      expect.objectContaining({ channel: subChannel, revenue: 100_000, imps: 20, fill: 25 }),
    ]);
    expect(d.topDemand).toEqual([]);
    expect(d.totals.today).toEqual({ total: true, imps: 20, revenue: 100_000, fill: 25, reqs: 100, ecpm: 5_000_000 });
  });

  it("shows an advertiser its campaigns' delivery", async () => {
    const d = await dashboard('adv');
    expect(d.topCampaigns).toEqual([
      expect.objectContaining({ campaign: advCampaign, imps: 8, revenue: 160_000, ecpm: 20_000_000 }),
    ]);
    expect(d.topChannels).toEqual([]);
    expect(d.totals.today).toEqual({ total: true, imps: 8, revenue: 160_000, ecpm: 20_000_000 });
  });
});
