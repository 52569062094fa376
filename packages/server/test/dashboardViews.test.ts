import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DashboardAnswer } from '@adplane/shared';
import { type EntityTables } from '../src/store/entityTables.js';
import { as, buildTestApp, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';
import { hourText, midHourClock } from './testTime.js';

/**
 * GET /api/dashboard?view=ssp|dsp: the DSP view's top lists (campaigns, suppliers) come from the
 * server, for those who may be in that view (the SSP | DSP switch's rule); the SSP view and the
 * subpublisher's and advertiser's dashboards are what they were.
 */
forEachStoreAndStatsEngine((t, s) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  let channel = 0;
  let advCampaign = 0;
  let otherCampaign = 0;
  const sup: Record<string, { id: number; name: string }> = {};

  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { stats: s.stats, clock: midHourClock() });
    const northwind = t.users.demand.id;
    const db = t.store.db.withTables<EntityTables>();
    channel = (
      await db
        .selectFrom('supply_channels')
        .select('id')
        .where('tenant_id', '=', northwind)
        .where('sub_id', 'is', null)
        .executeTakeFirstOrThrow()
    ).id;
    const campaigns = await db
      .selectFrom('campaigns')
      .select(['id', 'adv_id'])
      .where('tenant_id', '=', northwind)
      .execute();
    advCampaign = campaigns.find((c) => c.adv_id === t.users.adv.id)!.id;
    otherCampaign = campaigns.find((c) => c.adv_id !== t.users.adv.id)!.id;
    const suppliers = await db
      .selectFrom('suppliers')
      .select(['id', 'name'])
      .where('tenant_id', '=', northwind)
      .orderBy('id')
      .execute();
    [sup.tidewater, sup.granite] = suppliers;
    const hour = hourText(app.clock.now());
    await s.stats.write([
      // SSP: a channel's traffic sold to demand
      statsRow({
        hour,
        tenant_id: northwind,
        channel_id: channel,
        reqs: 50,
        opps: 40,
        imps: 10,
        revenue: 100_000,
        cost: 50_000,
      }),
      // DSP: bid requests from suppliers, won for campaigns
      statsRow({
        hour,
        tenant_id: northwind,
        supplier_id: sup.tidewater.id,
        campaign_id: advCampaign,
        advertiser_id: t.users.adv.id,
        reqs: 100,
        opps: 100,
        wins: 30,
        imps: 30,
        revenue: 600_000,
      }),
      statsRow({ hour, tenant_id: northwind, supplier_id: sup.tidewater.id, reqs: 100, opps: 100 }),
      statsRow({
        hour,
        tenant_id: northwind,
        supplier_id: sup.granite.id,
        campaign_id: otherCampaign,
        reqs: 50,
        opps: 40,
        wins: 10,
        imps: 10,
        revenue: 300_000,
      }),
      // a campaign's win on the tenant's own channel: no supplier, so in no supplier's row
      statsRow({
        hour,
        tenant_id: northwind,
        channel_id: channel,
        campaign_id: otherCampaign,
        imps: 5,
        revenue: 150_000,
      }),
    ]);
    for (const user of ['demand', 'manager', 'admin', 'acme', 'sub', 'adv', 'sdk'])
      cookies[user] = await login(app, user, undefined, freshAddress());
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = (user: string, query = '') => as(app, cookies[user], { method: 'GET', url: `/api/dashboard${query}` });
  const dashboard = async (user: string, query = '') => {
    const res = await get(user, query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<DashboardAnswer>();
  };

  it('DSP view: top campaigns (revenue, impressions, eCPM) and top suppliers (revenue, impressions, fill), no SSP lists', async () => {
    const d = await dashboard('demand', '?view=dsp');
    expect(d.topCampaigns).toEqual([
      { campaign: advCampaign, campaign_name: expect.any(String), revenue: 600_000, imps: 30, ecpm: 20_000_000 },
      { campaign: otherCampaign, campaign_name: expect.any(String), revenue: 450_000, imps: 15, ecpm: 30_000_000 },
    ]);
    expect(d.topSuppliers).toEqual([
      { supplier: sup.tidewater.id, supplier_name: sup.tidewater.name, revenue: 600_000, imps: 30, fill: 15 },
      { supplier: sup.granite.id, supplier_name: sup.granite.name, revenue: 300_000, imps: 10, fill: 25 },
    ]);
    expect(d.topChannels).toEqual([]);
    expect(d.topDemand).toEqual([]);
    // the cards and charts are the tenant's whatever the view
    expect(d.totals.today).toMatchObject({ imps: 55, revenue: 1_150_000 });
  });

  it('SSP view: unchanged, the same answer with or without view=ssp, and no DSP lists', async () => {
    const plain = await dashboard('demand');
    const ssp = await dashboard('demand', '?view=ssp');
    expect(ssp).toEqual(plain);
    expect(ssp.topChannels.map((r) => r.channel)).toEqual([channel]);
    expect(ssp.topCampaigns).toEqual([]);
    expect(ssp.topSuppliers).toEqual([]);
    expect(ssp.totals).toEqual((await dashboard('demand', '?view=dsp')).totals);
  });

  it("a team member of a tenant with DSP and an admin may ask the DSP view (the admin's reaches every tenant)", async () => {
    const demand = await dashboard('demand', '?view=dsp');
    expect((await dashboard('manager', '?view=dsp')).topSuppliers).toEqual(demand.topSuppliers);
    const admin = await dashboard('admin', '?view=dsp');
    expect(admin.topCampaigns.map((r) => r.campaign)).toEqual([advCampaign, otherCampaign]);
    expect(admin.topSuppliers.map((r) => r.supplier)).toEqual([sup.tidewater.id, sup.granite.id]);
  });

  it('refuses the DSP view with 403 to a tenant without it, a subpublisher and an advertiser; their SSP dashboards answer', async () => {
    for (const [user, message] of [
      ['acme', /DSP view is not enabled for this account/],
      ['sub', /\(sub\) works in the SSP view/],
      ['adv', /\(adv\) works in the SSP view/],
    ] as const) {
      const res = await get(user, '?view=dsp');
      expect(res.statusCode, user).toBe(403);
      expect(res.json<{ message: string }>().message, user).toMatch(message);
      expect((await get(user, '?view=ssp')).statusCode, user).toBe(200);
    }
    expect((await get('sdk', '?view=ssp')).statusCode).toBe(403);
  });

  it('keeps the subpublisher and the advertiser on their own lists', async () => {
    const sub = await dashboard('sub');
    expect(sub.topCampaigns).toEqual([]);
    expect(sub.topSuppliers).toEqual([]);
    const adv = await dashboard('adv', '?view=ssp');
    expect(adv.topCampaigns).toEqual([
      expect.objectContaining({ campaign: advCampaign, revenue: 600_000, imps: 30, ecpm: 20_000_000 }),
    ]);
    expect(adv.topSuppliers).toEqual([]);
    expect(adv.topChannels).toEqual([]);
  });

  it('answers 400 naming the field for a view that is not ssp or dsp', async () => {
    for (const query of ['?view=bogus', '?view=DSP', '?view=', '?view=ssp&view=dsp']) {
      const res = await get('demand', query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json<{ field: string }>().field, query).toBe('view');
      expect(res.json<{ message: string }>().message, query).toMatch(/view: must be ssp or dsp/);
    }
  });
});
