import { mkdirSync, writeFileSync } from 'node:fs';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DashboardAnswer,
  DIMENSION_BY_ID,
  DIMENSION_IDS,
  type DimensionId,
  METRIC_IDS,
  POSTBID_METRICS,
  ROW_STATS_KIND_IDS,
  type RowStatsAnswer,
} from '@adplane/shared';
import { reportFilePath, reportFilesDir } from '../src/stats/reportFiles.js';
import { subpublisherPayoutFiles } from '../src/store/migrations/0011_subpublisher_payout_files.js';
import { type EntityTables } from '../src/store/entityTables.js';
import { createSavedReport, updateSavedReport } from '../src/store/savedReports.js';
import { as, buildTestApp, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';
import { hourText, isoDay, midHourClock } from './testTime.js';

/**
 * Which numbers each user type sees, walked over every route that answers numbers and every metric
 * and dimension of the catalogue, against this table written independently of the rule
 * (packages/shared/src/stats/visibility.ts). Nobody is shown another party's margin: a subpublisher
 * sees its own traffic and its payout (as its revenue), an advertiser its delivery and spend.
 */
const USERS = ['admin', 'demand', 'manager', 'sub', 'adv', 'sdk'] as const;
type UserName = (typeof USERS)[number];

const VIDEO = ['starts', 'firstQuartiles', 'midpoints', 'thirdQuartiles', 'completes', 'vtr'];
const POSTBID = ['postbidImps', 'postbidIvt', 'postbidIvtRate'];
const SEEN_METRICS: Record<UserName, (id: string) => boolean> = {
  admin: () => true,
  // the seeded tenant owner has showSystemCost; its team member has not
  demand: () => true,
  manager: (id) => id !== 'systemCost',
  sub: (id) =>
    [
      'reqs',
      'opps',
      'ivt',
      'imps',
      'clicks',
      'ctr',
      'errors',
      'revenue',
      'ecpm',
      'fill',
      ...VIDEO,
      ...POSTBID,
    ].includes(id),
  adv: (id) =>
    [
      'source_reqs',
      'source_opps',
      'deal_reqs',
      'demandCalls',
      'responses',
      'timeouts',
      'bids',
      'wins',
      'sourceFill',
      'imps',
      'clicks',
      'ctr',
      'errors',
      'revenue',
      'ecpm',
      ...VIDEO,
      ...POSTBID,
    ].includes(id),
  sdk: () => false,
};
const PLACE = [
  'date',
  'hour',
  'country',
  'region',
  'us_state',
  'device',
  'os',
  'browser',
  'app_bundle',
  'domain',
  'integration',
  'vast_error',
  'nofill_reason',
];
const SEEN_DIMENSIONS: Record<UserName, (id: string) => boolean> = {
  admin: () => true,
  demand: (id) => id !== 'tenant',
  manager: (id) => id !== 'tenant',
  sub: (id) => [...PLACE, 'channel', 'subpublisher', 'arm', 'publisher_id'].includes(id),
  adv: (id) =>
    [...PLACE, 'advertiser', 'tag', 'partner', 'campaign', 'creative', 'deal', 'marketplace_name'].includes(id),
  sdk: () => false,
};
/**
 * With its tenant's choice on, a subpublisher also names the demand its traffic was sold to and an
 * advertiser the supply it bought: names to break down and filter by, never another metric.
 */
const SEEN_DIMENSIONS_BY_CHOICE: Record<'sub' | 'adv', (id: string) => boolean> = {
  sub: (id) =>
    SEEN_DIMENSIONS.sub(id) ||
    ['tag', 'partner', 'advertiser', 'campaign', 'creative', 'deal', 'marketplace_name'].includes(id),
  adv: (id) =>
    SEEN_DIMENSIONS.adv(id) ||
    ['channel', 'subpublisher', 'arm', 'supplier', 'adexchange', 'publisher_id'].includes(id),
};
/** The tenant's margin: never in the answer of a subpublisher or an advertiser. */
const MARGIN_FIELDS = ['cost', 'profit', 'margin', 'systemCost', 'rev_m', 'rev_md'];

/** The apps' clock: the rows are written in its hour and the reports ask for its day and month. */
const clock = midHourClock();
const today = () => isoDay(clock.now());
const report = (input: Record<string, unknown>) => ({ startDate: today(), endDate: today(), timezone: 0, ...input });

forEachStoreAndStatsEngine((t, s) => {
  let app: FastifyInstance;
  const cookies = {} as Record<UserName, string>;
  let subChannel = 0;

  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { stats: s.stats, clock });
    const tenant = t.users.demand.id;
    const db = t.store.db.withTables<EntityTables>();
    subChannel = (
      await db.selectFrom('supply_channels').select('id').where('sub_id', '=', t.users.sub.id).executeTakeFirstOrThrow()
    ).id;
    const advTag = (
      await db.selectFrom('demand_tags').select('id').where('adv_id', '=', t.users.adv.id).executeTakeFirstOrThrow()
    ).id;
    // The postbid report is open to whom the admin granted post-bid: the subpublisher and the advertiser here too.
    await t.store.db
      .updateTable('users')
      .set({ show_postbid_pix: 1 })
      .where('id', 'in', [t.users.sub.id, t.users.adv.id])
      .execute();
    const hour = hourText(clock.now());
    await s.stats.write([
      // the subpublisher's channel sold to the advertiser's tag: demand paid 2.00, the tenant paid the subpublisher 1.20
      statsRow({
        hour,
        tenant_id: tenant,
        channel_id: subChannel,
        subpublisher_id: t.users.sub.id,
        tag_id: advTag,
        advertiser_id: t.users.adv.id,
        reqs: 100,
        opps: 80,
        source_reqs: 80,
        source_opps: 80,
        demand_calls: 80,
        bids: 30,
        wins: 20,
        imps: 20,
        completes: 10,
        clicks: 2,
        revenue: 2_000_000,
        cost: 1_200_000,
        rev_m: 500_000,
        postbid_imps: 20,
        postbid_ivt: 1,
      }),
      // another channel of the tenant's, sold elsewhere
      statsRow({
        hour,
        tenant_id: tenant,
        channel_id: subChannel + 100_000,
        reqs: 50,
        opps: 40,
        imps: 10,
        revenue: 1_000_000,
        cost: 500_000,
      }),
    ]);
    for (const user of USERS) cookies[user] = await login(app, user, undefined, freshAddress());
  });
  afterAll(async () => {
    await app?.close();
  });

  const rrun = (user: UserName, body: Record<string, unknown>) =>
    as(app, cookies[user], { method: 'POST', url: '/api/rrun', payload: report(body) });

  /** The tenant's choice, set as the console sets it: an admin saves the demand account with its switches. */
  async function showOtherSide(by: UserName, on: boolean) {
    const id = t.users.demand.id;
    const current = (await as(app, cookies.admin, { method: 'GET', url: `/api/demands/${id}` })).json<
      Record<string, unknown>
    >();
    return as(app, cookies[by], {
      method: 'PUT',
      url: `/api/demands/${id}`,
      payload: { ...current, password: '', showDemandToSubs: on, showSupplyToAdvs: on },
    });
  }

  describe.each(USERS)('%s', (user) => {
    it('runs every metric of the catalogue it may see, and is refused the others with the metric named', async () => {
      for (const id of METRIC_IDS) {
        const res = await rrun(user, { metrics: [id] });
        if (user === 'sdk') expect(res.statusCode, id).toBe(403);
        else if (SEEN_METRICS[user](id)) expect(res.statusCode, `${id}: ${res.body}`).toBe(200);
        else {
          expect(res.statusCode, `${id}: ${res.body}`).toBe(400);
          expect(res.json()).toMatchObject({ field: 'metrics.0' });
          expect(res.json<{ message: string }>().message).toContain(`'${id}'`);
        }
      }
    });

    it('breaks down and filters by every dimension it may see, and is refused the others', async () => {
      for (const id of DIMENSION_IDS) {
        const by = await rrun(user, { dimensions: [id], metrics: ['imps'] });
        const seen = SEEN_DIMENSIONS[user](id);
        expect(by.statusCode, `${id}: ${by.body}`).toBe(user === 'sdk' ? 403 : seen ? 200 : 400);
        if (!seen && user !== 'sdk') expect(by.json()).toMatchObject({ field: 'dimensions.0' });
        if (DIMENSION_BY_ID[id].type === 'time') continue;
        const value = DIMENSION_BY_ID[id].type === 'entity' ? 1 : 'x';
        const filtered = await rrun(user, { filters: { [id]: [value] }, metrics: ['imps'] });
        expect(filtered.statusCode, `filter ${id}: ${filtered.body}`).toBe(user === 'sdk' ? 403 : seen ? 200 : 400);
        if (!seen && user !== 'sdk') expect(filtered.json()).toMatchObject({ field: `filters.${id}` });
      }
    });

    it('writes files and saves reports only of what it may see', async () => {
      const hidden = METRIC_IDS.filter((id) => !SEEN_METRICS[user](id));
      for (const id of hidden) {
        const file = await as(app, cookies[user], {
          method: 'POST',
          url: '/api/rfile',
          payload: { name: `file ${id}`, request: report({ metrics: [id] }) },
        });
        expect(file.statusCode, `${id}: ${file.body}`).toBe(user === 'sdk' ? 403 : 400);
        if (user !== 'sdk') expect(file.json()).toMatchObject({ field: 'request.metrics.0' });
        const saved = await as(app, cookies[user], {
          method: 'POST',
          url: '/api/savedReports',
          payload: { name: `saved ${id}`, request: report({ metrics: [id] }) },
        });
        expect(saved.statusCode, `${id}: ${saved.body}`).toBe(400);
        expect(saved.json()).toMatchObject({ field: 'request.metrics.0' });
      }
      const seen = METRIC_IDS.filter((id) => SEEN_METRICS[user](id));
      if (seen.length === 0) return;
      const saved = await as(app, cookies[user], {
        method: 'POST',
        url: '/api/savedReports',
        payload: { name: 'every metric', request: report({ metrics: seen }) },
      });
      expect(saved.statusCode, saved.body).toBe(201);
      const file = await as(app, cookies[user], {
        method: 'POST',
        url: '/api/rfile',
        payload: { name: 'every metric', request: report({ metrics: seen }) },
      });
      expect(file.statusCode, file.body).toBe(202);
    });

    it('gets a dashboard of only the numbers it may see', async () => {
      const res = await as(app, cookies[user], { method: 'GET', url: '/api/dashboard' });
      if (user === 'sdk') return expect(res.statusCode).toBe(403);
      expect(res.statusCode, res.body).toBe(200);
      const d = res.json<DashboardAnswer>();
      const rows = [
        ...Object.values(d.totals),
        ...d.hours,
        ...d.days,
        ...d.topChannels,
        ...d.topDemand,
        ...d.topCampaigns,
        ...d.topSuppliers,
      ];
      for (const row of rows) {
        for (const key of Object.keys(row)) {
          if (key === 'total' || key.endsWith('_name') || Object.hasOwn(DIMENSION_BY_ID, key)) continue;
          expect(SEEN_METRICS[user](key), `${key} in the dashboard`).toBe(true);
        }
      }
      if (user === 'sub' || user === 'adv')
        for (const row of rows) for (const field of MARGIN_FIELDS) expect(row).not.toHaveProperty(field);
    });

    it('gets the numbers beside list rows only of what it may see', async () => {
      for (const kind of ROW_STATS_KIND_IDS) {
        const res = await as(app, cookies[user], { method: 'GET', url: `/api/rowStats?kind=${kind}&period=today` });
        if (res.statusCode === 403) continue; // a list the user may not open
        expect(res.statusCode, `${kind}: ${res.body}`).toBe(200);
        const answer = res.json<RowStatsAnswer>();
        for (const id of answer.metrics) expect(SEEN_METRICS[user](id), `${kind}: ${id}`).toBe(true);
        for (const values of Object.values(answer.rows))
          for (const id of Object.keys(values)) expect(SEEN_METRICS[user](id), `${kind}: ${id}`).toBe(true);
      }
    });

    it('runs the postbid report by the dimensions it may see', async () => {
      for (const id of POSTBID_METRICS) {
        const res = await as(app, cookies[user], {
          method: 'POST',
          url: '/api/pbrun',
          payload: report({ metrics: [id] }),
        });
        // the tenant's team member was not granted post-bid, nor was the SDK user
        expect(res.statusCode, `${id}: ${res.body}`).toBe(user === 'manager' || user === 'sdk' ? 403 : 200);
      }
      if (user === 'manager' || user === 'sdk') return;
      for (const id of ['tenant', 'tag', 'channel', 'campaign', 'supplier'] as DimensionId[]) {
        const res = await as(app, cookies[user], {
          method: 'POST',
          url: '/api/pbrun',
          payload: report({ dimensions: [id], metrics: ['postbidImps'] }),
        });
        expect(res.statusCode, `${id}: ${res.body}`).toBe(SEEN_DIMENSIONS[user](id) ? 200 : 400);
      }
    });

    it('reads the finance report only as an admin', async () => {
      const res = await as(app, cookies[user], { method: 'GET', url: `/api/finance?month=${today().slice(0, 7)}` });
      expect(res.statusCode, res.body).toBe(user === 'admin' ? 200 : 403);
    });
  });

  describe("with the tenant's choice to show each side the other's names", () => {
    beforeAll(async () => {
      const res = await showOtherSide('admin', true);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ showDemandToSubs: true, showSupplyToAdvs: true });
    });
    afterAll(async () => {
      expect((await showOtherSide('admin', false)).statusCode).toBe(200);
    });

    describe.each(['sub', 'adv'] as const)('%s', (user) => {
      it('breaks down and filters by the other side too, and is refused the rest', async () => {
        for (const id of DIMENSION_IDS) {
          const seen = SEEN_DIMENSIONS_BY_CHOICE[user](id);
          const by = await rrun(user, { dimensions: [id], metrics: ['imps'] });
          expect(by.statusCode, `${id}: ${by.body}`).toBe(seen ? 200 : 400);
          if (DIMENSION_BY_ID[id].type === 'time') continue;
          const filtered = await rrun(user, {
            filters: { [id]: [DIMENSION_BY_ID[id].type === 'entity' ? 1 : 'x'] },
            metrics: ['imps'],
          });
          expect(filtered.statusCode, `filter ${id}: ${filtered.body}`).toBe(seen ? 200 : 400);
        }
      });

      it('still sees only its own metrics, by any dimension', async () => {
        const other: DimensionId = user === 'sub' ? 'tag' : 'subpublisher';
        for (const id of METRIC_IDS) {
          const res = await rrun(user, { dimensions: [other], metrics: [id] });
          expect(res.statusCode, `${id}: ${res.body}`).toBe(SEEN_METRICS[user](id) ? 200 : 400);
        }
        const d = (await as(app, cookies[user], { method: 'GET', url: '/api/dashboard' })).json<DashboardAnswer>();
        const rows = [
          ...Object.values(d.totals),
          ...d.hours,
          ...d.days,
          ...d.topChannels,
          ...d.topDemand,
          ...d.topCampaigns,
          ...d.topSuppliers,
        ];
        for (const row of rows) for (const field of MARGIN_FIELDS) expect(row).not.toHaveProperty(field);
      });

      it('saves reports, writes files and runs the postbid report by the other side', async () => {
        const request = report({
          dimensions: [user === 'sub' ? 'advertiser' : 'channel'],
          metrics: ['imps', 'revenue'],
        });
        expect(
          (
            await as(app, cookies[user], {
              method: 'POST',
              url: '/api/savedReports',
              payload: { name: 'other side', request },
            })
          ).statusCode,
        ).toBe(201);
        expect(
          (
            await as(app, cookies[user], {
              method: 'POST',
              url: '/api/rfile',
              payload: { name: 'other side', request },
            })
          ).statusCode,
        ).toBe(202);
        const pb = await as(app, cookies[user], {
          method: 'POST',
          url: '/api/pbrun',
          payload: report({ dimensions: [user === 'sub' ? 'tag' : 'channel'], metrics: ['postbidImps'] }),
        });
        expect(pb.statusCode, pb.body).toBe(200);
        expect(
          (
            await as(app, cookies[user], {
              method: 'POST',
              url: '/api/pbrun',
              payload: report({ dimensions: ['tenant'], metrics: ['postbidImps'] }),
            })
          ).statusCode,
        ).toBe(400);
      });

      it('is told the choice when it signs in, for the console to offer those names', async () => {
        const me = (await as(app, cookies[user], { method: 'GET', url: '/api/auth/user' })).json<
          Record<string, unknown>
        >();
        expect(me).toMatchObject({ tenantShowDemandToSubs: true, tenantShowSupplyToAdvs: true });
      });
    });

    it("names the demand a subpublisher's traffic was sold to beside its payout, and the supply an advertiser bought beside its spend", async () => {
      const sub = (await rrun('sub', { dimensions: ['tag', 'advertiser'], metrics: ['imps', 'revenue', 'ecpm'] })).json<
        Record<string, unknown>[]
      >();
      expect(sub[0]).toMatchObject({
        advertiser: t.users.adv.id,
        advertiser_name: t.users.adv.name,
        imps: 20,
        revenue: 1_200_000,
        ecpm: 60_000_000,
      });
      expect(sub[0].tag_name).toEqual(expect.any(String));
      for (const row of sub) for (const field of MARGIN_FIELDS) expect(row).not.toHaveProperty(field);
      const adv = (await rrun('adv', { dimensions: ['channel', 'subpublisher'], metrics: ['imps', 'revenue'] })).json<
        Record<string, unknown>[]
      >();
      expect(adv[0]).toMatchObject({
        channel: subChannel,
        subpublisher: t.users.sub.id,
        subpublisher_name: t.users.sub.name,
        imps: 20,
        revenue: 2_000_000,
      });
      expect(adv[0].channel_name).toEqual(expect.any(String));
      for (const row of adv) for (const field of MARGIN_FIELDS) expect(row).not.toHaveProperty(field);
      // the tenant's other channel, sold elsewhere, stays out of the advertiser's rows
      expect(adv.filter((r) => !r.total)).toHaveLength(1);
    });

    it("is the tenant's to choose: a demand user, its team member and the subpublisher cannot set it through the admins' route", async () => {
      for (const by of ['demand', 'manager', 'sub', 'adv'] as const)
        expect((await showOtherSide(by, false)).statusCode, by).toBe(403);
      expect((await rrun('sub', { dimensions: ['tag'], metrics: ['imps'] })).statusCode).toBe(200);
    });

    it('refuses the other side again, files included, once the tenant turns the choice off', async () => {
      const db = t.store.db;
      const request = {
        ...report({ dimensions: ['tag'], metrics: ['imps'] }),
        filters: {},
        hideErrors: false,
      } as never;
      const file = await createSavedReport(db, {
        userId: t.users.sub.id,
        tenantId: t.users.demand.id,
        name: 'by tag',
        kind: 'file',
        ivt: false,
        request,
      });
      mkdirSync(reportFilesDir(t.settings.dataDir), { recursive: true });
      writeFileSync(reportFilePath(t.settings.dataDir, `tag-${file.id}.csv`), 'Demand Tag,Impressions\nx,20\n');
      await updateSavedReport(db, file.id, { status: 'ready', progress: 100, fileName: `tag-${file.id}.csv` });
      expect((await as(app, cookies.sub, { method: 'GET', url: `/api/savedFile/${file.id}` })).statusCode).toBe(200);

      // an admin other than the super admin may change the account's switches too, as its other features
      const ops = await login(app, 'ops', undefined, freshAddress());
      const current = (await as(app, ops, { method: 'GET', url: `/api/demands/${t.users.demand.id}` })).json<
        Record<string, unknown>
      >();
      const off = await as(app, ops, {
        method: 'PUT',
        url: `/api/demands/${t.users.demand.id}`,
        payload: { ...current, password: '', showDemandToSubs: false, showSupplyToAdvs: false },
      });
      expect(off.statusCode, off.body).toBe(200);
      const refused = await rrun('sub', { dimensions: ['tag'], metrics: ['imps'] });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json<{ message: string }>().message).toContain(
        'unless their demand account shows them the demand',
      );
      const adv = await rrun('adv', { filters: { channel: [subChannel] }, metrics: ['imps'] });
      expect(adv.statusCode, adv.body).toBe(400);
      expect(adv.json()).toMatchObject({ field: 'filters.channel' });
      const download = await as(app, cookies.sub, { method: 'GET', url: `/api/savedFile/${file.id}` });
      expect(download.statusCode, download.body).toBe(403);
      expect(download.body).toContain('request.dimensions.0');
      const me = (await as(app, cookies.adv, { method: 'GET', url: '/api/auth/user' })).json<Record<string, unknown>>();
      expect(me).toMatchObject({ tenantShowDemandToSubs: false, tenantShowSupplyToAdvs: false });
    });
  });

  it("answers a subpublisher its payout as its revenue, never the tenant's gross", async () => {
    const res = await rrun('sub', {
      dimensions: ['channel'],
      metrics: ['revenue', 'ecpm', 'imps'],
      sort: { by: 'revenue', order: 'desc' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.json<Record<string, number>[]>();
    expect(rows[0]).toMatchObject({ channel: subChannel, revenue: 1_200_000, ecpm: 60_000_000, imps: 20 });
    expect(rows.at(-1)).toMatchObject({ total: true, revenue: 1_200_000 });

    const d = (await as(app, cookies.sub, { method: 'GET', url: '/api/dashboard' })).json<DashboardAnswer>();
    expect(d.totals.today).toMatchObject({ revenue: 1_200_000, ecpm: 60_000_000, imps: 20 });
    expect(d.topChannels).toEqual([expect.objectContaining({ channel: subChannel, revenue: 1_200_000 })]);
    const channels = (
      await as(app, cookies.sub, { method: 'GET', url: `/api/rowStats?kind=channels&period=today&ids=${subChannel}` })
    ).json<RowStatsAnswer>();
    expect(channels.rows[String(subChannel)]).toMatchObject({ revenue: 1_200_000, ecpm: 60_000_000 });
  });

  it('answers an advertiser what it spent, and the tenant its gross, cost and margin', async () => {
    const adv = (await rrun('adv', { metrics: ['revenue', 'ecpm'] })).json<Record<string, number>[]>();
    expect(adv.at(-1)).toMatchObject({ revenue: 2_000_000, ecpm: 100_000_000 });
    const tenant = (await rrun('demand', { metrics: ['revenue', 'cost', 'profit', 'margin'] })).json<
      Record<string, number>[]
    >();
    expect(tenant.at(-1)).toMatchObject({ revenue: 3_000_000, cost: 1_700_000, profit: 1_300_000 });
    const d = (await as(app, cookies.demand, { method: 'GET', url: '/api/dashboard' })).json<DashboardAnswer>();
    expect(d.totals.today).toMatchObject({ revenue: 3_000_000, cost: 1_700_000, profit: 1_300_000 });
  });

  it('does not run or hand out a report saved before the rule with numbers the user may not see', async () => {
    const db = t.store.db;
    const request = {
      ...report({ metrics: ['imps', 'profit'] }),
      dimensions: [],
      filters: {},
      hideErrors: false,
    } as never;
    const saved = await createSavedReport(db, {
      userId: t.users.sub.id,
      tenantId: t.users.demand.id,
      name: 'old margin',
      kind: 'report',
      ivt: false,
      request,
    });
    const open = await as(app, cookies.sub, { method: 'GET', url: `/api/savedReport/${saved.id}` });
    expect(open.statusCode).toBe(200);
    const run = await rrun('sub', open.json<{ request: Record<string, unknown> }>().request);
    expect(run.statusCode, run.body).toBe(400);
    expect(run.json()).toMatchObject({ field: 'metrics.1' });

    const file = await createSavedReport(db, {
      userId: t.users.sub.id,
      tenantId: t.users.demand.id,
      name: 'old margin file',
      kind: 'file',
      ivt: false,
      request,
    });
    mkdirSync(reportFilesDir(t.settings.dataDir), { recursive: true });
    writeFileSync(reportFilePath(t.settings.dataDir, `old-${file.id}.csv`), 'Impressions,Profit\n20,0.80\n');
    await updateSavedReport(db, file.id, { status: 'ready', progress: 100, fileName: `old-${file.id}.csv` });
    const bell = await as(app, cookies.sub, { method: 'GET', url: '/api/savedReports?all=1' });
    expect(bell.json<{ id: number }[]>().map((r) => r.id)).toEqual(expect.arrayContaining([saved.id, file.id]));
    const download = await as(app, cookies.sub, { method: 'GET', url: `/api/savedFile/${file.id}` });
    expect(download.statusCode, download.body).toBe(403);
    expect(download.body).toContain("'profit' is not available to subpublisher users");
    // an admin may read every number, so it may open the file
    expect((await as(app, cookies.admin, { method: 'GET', url: `/api/savedFile/${file.id}` })).statusCode).toBe(200);
  });

  it("withdraws a subpublisher's file written with the tenant's revenue, and keeps its other files", async () => {
    const db = t.store.db;
    const fileOf = async (name: string, metrics: string[]) => {
      const request = { ...report({ metrics }), dimensions: [], filters: {}, hideErrors: false } as never;
      const saved = await createSavedReport(db, {
        userId: t.users.sub.id,
        tenantId: t.users.demand.id,
        name,
        kind: 'file',
        ivt: false,
        request,
      });
      writeFileSync(reportFilePath(t.settings.dataDir, `old-${saved.id}.csv`), 'Impressions,Revenue\n20,2.00\n');
      await updateSavedReport(db, saved.id, { status: 'ready', progress: 100, fileName: `old-${saved.id}.csv` });
      return saved.id;
    };
    mkdirSync(reportFilesDir(t.settings.dataDir), { recursive: true });
    const gross = await fileOf('old gross', ['imps', 'revenue']);
    const counts = await fileOf('old counts', ['imps', 'fill']);
    await subpublisherPayoutFiles(t.store.dialect).up(db as never);
    const withdrawn = await as(app, cookies.sub, { method: 'GET', url: `/api/savedFile/${gross}` });
    expect(withdrawn.statusCode, withdrawn.body).toBe(409);
    expect(withdrawn.body).toContain('payout');
    expect((await as(app, cookies.sub, { method: 'GET', url: `/api/savedFile/${counts}` })).statusCode).toBe(200);
  });
});
