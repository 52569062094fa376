import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES, type ResourceKind } from '@adplane/shared';
import { type EntityTables } from '../../src/store/entityTables.js';
import { buildEditionApps, type EditionApps, forEachStore, freshAddress, grantDsp, login } from '../helpers.js';
import { sampleBody } from '../resourceSamples.js';

/**
 * Tenant isolation past the route guards (authorizationMatrix.test.ts covers those): ids of another
 * tenant's rows nested in bodies, query strings, bulk and list calls; what a sub or adv user reads of
 * rows that use its own; fields a body may not set; and what an admin acting as a user is sent and may
 * change. Every refusal leaves the store as it was.
 */
const TENANT_KINDS: ResourceKind[] = [
  'channels',
  'tags',
  'sups',
  'campaigns',
  'creatives',
  'adexchanges',
  'deals',
  'targetings',
  'applists',
  'publists',
  'crelists',
  'iplists',
  'ivts',
];
const USERS = ['admin', 'ops', 'demand', 'manager', 'sub', 'adv', 'sdk', 'acme'] as const;
type Who = (typeof USERS)[number];

forEachStore((t) => {
  let apps: EditionApps;
  const cookies: Partial<Record<Who, string>> = {};
  /** One row of each kind in the demand user's tenant (northwind), creatives, campaigns and tags assigned to its adv user. */
  const own: Partial<Record<ResourceKind, number>> = {};

  const call = (who: Who | string, method: string, url: string, payload?: unknown) =>
    apps.for(url).inject({
      method: method as 'GET',
      url,
      ...(payload !== undefined ? { payload: payload as object } : {}),
      headers: (cookies[who as Who] ?? who) ? { cookie: cookies[who as Who] ?? who } : {},
    });
  const tables = () => t.store.db.withTables<EntityTables>();
  const rowsOf = async (table: keyof EntityTables) =>
    (await tables().selectFrom(table).selectAll().orderBy('id').execute()).map((r) => JSON.stringify(r));

  beforeAll(async () => {
    apps = await buildEditionApps(t.store);
    await grantDsp(t.store, t.users.demand.id);
    await grantDsp(t.store, t.users.acme.id);
    for (const who of USERS) cookies[who] = await login(apps.apps.default, who, undefined, freshAddress());
    for (const kind of TENANT_KINDS) {
      const assigned =
        kind === 'creatives' || kind === 'campaigns' || kind === 'tags' ? { advertiserId: t.users.adv.id } : {};
      const res = await call('demand', 'POST', RESOURCES[kind].api, { ...sampleBody(kind, 900), ...assigned });
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(201);
      own[kind] = res.json<{ id: number }>().id;
    }
  });
  afterAll(() => apps.close());

  describe('ids of another tenant nested in a body', () => {
    it("refuses a campaign whose advertiser, targeting, creatives, deals, suppliers and exchanges are another tenant's, naming each field, and writes nothing", async () => {
      const before = await rowsOf('campaigns');
      const res = await call('acme', 'POST', RESOURCES.campaigns.api, {
        ...sampleBody('campaigns', 901),
        advertiserId: t.users.adv.id,
        targetingId: own.targetings,
        creativeIds: [own.creatives],
        dealIds: [own.deals],
        supplierIds: [own.sups],
        adExchangeIds: [own.adexchanges],
      });
      expect(res.statusCode, res.body).toBe(400);
      const fields = res
        .json<{ errors: { field: string }[] }>()
        .errors.map((e) => e.field)
        .sort();
      expect(fields).toEqual(['adExchangeIds', 'advertiserId', 'creativeIds', 'dealIds', 'supplierIds', 'targetingId']);
      expect(await rowsOf('campaigns')).toEqual(before);
    });

    it("refuses a channel calling another tenant's demand tags, pixels or subpublisher, and a targeting using its lists", async () => {
      const channel = await call('acme', 'POST', RESOURCES.channels.api, {
        ...sampleBody('channels', 902),
        demand: [{ tagId: own.tags }],
        ivtIds: [own.ivts],
        subpublisherId: t.users.sub.id,
      });
      expect(channel.statusCode, channel.body).toBe(400);
      expect(
        channel
          .json<{ errors: { field: string }[] }>()
          .errors.map((e) => e.field)
          .sort(),
      ).toEqual(['demand', 'ivtIds', 'subpublisherId']);
      const targeting = await call('acme', 'POST', RESOURCES.targetings.api, {
        ...sampleBody('targetings', 902),
        rules: { appLists: { mode: 'include', ids: [own.applists] } },
      });
      expect(targeting.statusCode).toBe(400);
      expect(targeting.json<{ field: string }>().field).toBe('rules.appLists');
    });

    it('refuses the same ids on an update and leaves the row as it was', async () => {
      const mine = await call('acme', 'POST', RESOURCES.campaigns.api, sampleBody('campaigns', 903));
      expect(mine.statusCode).toBe(201);
      const before = await rowsOf('campaigns');
      const res = await call('acme', 'PUT', `${RESOURCES.campaigns.api}/${mine.json<{ id: number }>().id}`, {
        ...sampleBody('campaigns', 903),
        creativeIds: [own.creatives],
      });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ field: string }>().field).toBe('creativeIds');
      expect(await rowsOf('campaigns')).toEqual(before);
    });

    it("lets an admin create a row in a tenant only with that tenant's references, and only in a demand account", async () => {
      const crossed = await call('ops', 'POST', RESOURCES.channels.api, {
        ...sampleBody('channels', 904),
        tenantId: t.users.acme.id,
        targetingId: own.targetings,
      });
      expect(crossed.statusCode).toBe(400);
      expect(crossed.json<{ field: string }>().field).toBe('targetingId');
      for (const tenantId of [t.users.manager.id, t.users.sub.id]) {
        const res = await call('ops', 'POST', RESOURCES.channels.api, { ...sampleBody('channels', 904), tenantId });
        expect(res.statusCode).toBe(400);
        expect(res.json<{ field: string }>().field).toBe('tenantId');
      }
    });

    it("refuses bulk and list calls on another tenant's rows, targetings and lists", async () => {
      const channel = await call('acme', 'POST', RESOURCES.channels.api, sampleBody('channels', 905));
      const creative = await call('acme', 'POST', RESOURCES.creatives.api, sampleBody('creatives', 905));
      const before = [await rowsOf('supply_channels'), await rowsOf('app_lists'), await rowsOf('creative_lists')];
      const pause = await call('acme', 'POST', `${RESOURCES.channels.api}/bulk`, {
        action: 'pause',
        ids: [channel.json<{ id: number }>().id, own.channels],
      });
      expect([pause.statusCode, pause.json<{ field: string }>().field]).toEqual([404, 'ids.1']);
      const setTargeting = await call('acme', 'POST', `${RESOURCES.channels.api}/bulk`, {
        action: 'setTargeting',
        ids: [channel.json<{ id: number }>().id],
        targetingId: own.targetings,
      });
      expect([setTargeting.statusCode, setTargeting.json<{ field: string }>().field]).toEqual([400, 'targetingId']);
      const addToList = await apps.apps.V2V.inject({
        method: 'POST',
        url: `${RESOURCES.creatives.api}/bulk`,
        headers: { cookie: cookies.acme! },
        payload: { action: 'addToList', ids: [creative.json<{ id: number }>().id], listIds: [own.crelists] },
      });
      expect([addToList.statusCode, addToList.json<{ field: string }>().field]).toEqual([404, 'listIds.0']);
      const add = await call('acme', 'POST', `${RESOURCES.applists.api}/add`, {
        listIds: [own.applists],
        items: ['com.example.grab'],
      });
      expect([add.statusCode, add.json<{ field: string }>().field]).toEqual([404, 'listIds.0']);
      expect([await rowsOf('supply_channels'), await rowsOf('app_lists'), await rowsOf('creative_lists')]).toEqual(
        before,
      );
    });
  });

  describe('ids of another tenant in query strings and paths', () => {
    it("answers 404 or nothing for another tenant's campaigns, channels, saved reports and files", async () => {
      const pacing = await call('acme', 'GET', `${RESOURCES.campaigns.api}/pacing?ids=${own.campaigns}`);
      expect(pacing.statusCode).toBe(404);
      const rowStats = await call('acme', 'GET', `/api/rowStats?kind=channels&period=last7&ids=${own.channels}`);
      expect(rowStats.statusCode).toBe(200);
      expect(rowStats.json<{ rows: object }>().rows).toEqual({});
      expect((await call('acme', 'POST', '/api/edge/test', { channelId: own.channels })).statusCode).toBe(404);
      expect((await call('acme', 'GET', `${RESOURCES.channels.api}/${own.channels}/adstxt`)).statusCode).toBe(404);
      const activity = await apps.apps.CTVMediaV2V.inject({
        method: 'GET',
        url: `/api/activity?kind=channels&entityId=${own.channels}`,
        headers: { cookie: cookies.acme! },
      });
      expect([activity.statusCode, activity.json()]).toEqual([200, []]);

      const saved = await call('demand', 'POST', '/api/savedReports', {
        name: 'Northwind only',
        request: { startDate: '2026-11-01', endDate: '2026-11-01', metrics: ['imps'] },
      });
      expect(saved.statusCode).toBe(201);
      const id = saved.json<{ id: number }>().id;
      for (const who of ['acme', 'sub', 'manager'] as const) {
        for (const [method, url] of [
          ['GET', `/api/savedReport/${id}`],
          ['PUT', `/api/savedReport/${id}`],
          ['DELETE', `/api/savedReport/${id}`],
          ['GET', `/api/savedFile/${id}`],
        ]) {
          const res = await call(who, method, url, method === 'PUT' ? { name: 'taken' } : undefined);
          expect(res.statusCode, `${who} ${method} ${url}`).toBe(404);
        }
        expect(
          (await call(who, 'GET', '/api/savedReports?all=1')).json<{ id: number }[]>().map((r) => r.id),
        ).not.toContain(id);
      }
      expect((await call('demand', 'GET', `/api/savedReport/${id}`)).json()).toMatchObject({
        name: 'Northwind only',
        archived: false,
      });
    });
  });

  describe('what a sub or adv user reads of the rows that use its own', () => {
    it("lists on a creative's or tag's usage only the rows the adv user may read", async () => {
      const creative = own.creatives!;
      const tag = own.tags!;
      const theirs = await call('demand', 'POST', RESOURCES.campaigns.api, {
        ...sampleBody('campaigns', 910),
        name: "Another advertiser's campaign",
        creativeIds: [creative],
      });
      const mine = await call('demand', 'POST', RESOURCES.campaigns.api, {
        ...sampleBody('campaigns', 911),
        name: "The adv's own campaign",
        advertiserId: t.users.adv.id,
        creativeIds: [creative],
      });
      const channel = await call('demand', 'POST', RESOURCES.channels.api, {
        ...sampleBody('channels', 910),
        name: 'A channel of the tenant',
        demand: [{ tagId: tag }],
      });
      for (const res of [theirs, mine, channel]) expect(res.statusCode, res.body).toBe(201);

      const ids = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);
      const advCreative = await call('adv', 'GET', `${RESOURCES.creatives.api}/${creative}/usage`);
      expect(advCreative.statusCode).toBe(200);
      expect(ids(advCreative.json())).toEqual([mine.json<{ id: number }>().id]);
      const advTag = await call('adv', 'GET', `${RESOURCES.tags.api}/${tag}/usage`);
      expect([advTag.statusCode, advTag.json()]).toEqual([200, []]);
      // the tenant's users still see every use, and archiving still weighs them all
      expect(ids((await call('demand', 'GET', `${RESOURCES.creatives.api}/${creative}/usage`)).json())).toEqual(
        ids([theirs.json(), mine.json()]),
      );
      expect(ids((await call('manager', 'GET', `${RESOURCES.tags.api}/${tag}/usage`)).json())).toEqual([
        channel.json<{ id: number }>().id,
      ]);
      expect((await call('demand', 'POST', `${RESOURCES.tags.api}/${tag}/archive`, {})).statusCode).toBe(409);
    });

    it('refuses a report file or saved report a sub or tenant may not run, before keeping it', async () => {
      const count = async () =>
        Number(
          (
            await t.store.db
              .selectFrom('saved_reports')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const report = { startDate: '2026-11-01', endDate: '2026-11-01', metrics: ['imps'] };
      for (const who of ['sub', 'acme', 'adv'] as const) {
        // a dimension each of them may see, then the one only admins may
        const file = await call(who, 'POST', '/api/rfile', {
          name: 'Every tenant',
          request: { ...report, dimensions: ['country', 'tenant'] },
        });
        expect([file.statusCode, file.json<{ field: string }>().field], who).toEqual([400, 'request.dimensions.1']);
        const saved = await call(who, 'POST', '/api/savedReports', {
          name: 'Every tenant',
          request: { ...report, filters: { tenant: [t.users.demand.id] } },
        });
        expect([saved.statusCode, saved.json<{ field: string }>().field], who).toEqual([400, 'request.filters.tenant']);
      }
      const notIds = await call('acme', 'POST', '/api/rfile', {
        name: 'Bad filter',
        request: { ...report, filters: { channel: ['abc'] } },
      });
      expect([notIds.statusCode, notIds.json<{ field: string }>().field]).toEqual([400, 'request.filters.channel']);
      expect(await count()).toBe(before);
      const mine = await call('acme', 'POST', '/api/savedReports', { name: 'Mine', request: report });
      const changed = await call('acme', 'PUT', `/api/savedReport/${mine.json<{ id: number }>().id}`, {
        request: { ...report, dimensions: ['tenant'] },
      });
      expect([changed.statusCode, changed.json<{ field: string }>().field]).toEqual([400, 'request.dimensions.0']);
      expect((await call('acme', 'GET', `/api/savedReport/${mine.json<{ id: number }>().id}`)).json()).toMatchObject({
        request: { dimensions: [] },
      });
      // admins break down by tenant
      expect(
        (
          await call('ops', 'POST', '/api/rfile', {
            name: 'Every tenant',
            request: { ...report, dimensions: ['tenant'] },
          })
        ).statusCode,
      ).toBe(202);
    });

    it('keeps a sub or adv user to its own rows whatever the list or report asks', async () => {
      const subChannels = await call('sub', 'GET', `${RESOURCES.channels.api}/list`);
      const subIds = new Set(
        (await tables().selectFrom('supply_channels').select('id').where('sub_id', '=', t.users.sub.id).execute()).map(
          (r) => r.id,
        ),
      );
      expect(subChannels.json<{ id: number }[]>().every((r) => subIds.has(r.id))).toBe(true);
      expect((await call('sub', 'GET', `${RESOURCES.channels.api}/${own.channels}`)).statusCode).toBe(404);
      const widened = await call('sub', 'POST', '/api/rrun', {
        startDate: '2026-11-01',
        endDate: '2026-11-01',
        metrics: ['imps'],
        dimensions: ['demand'],
      });
      expect(widened.statusCode).toBe(400);
      expect((await call('adv', 'GET', '/api/rowStats?kind=subs&period=today')).statusCode).toBe(403);
      expect((await call('sub', 'GET', '/api/dashboard?view=dsp')).statusCode).toBe(403);
    });
  });

  describe('fields a body may not set', () => {
    it('ignores id, uid, tenantId, stamps and assignment columns sent with a row', async () => {
      const res = await call('demand', 'POST', RESOURCES.tags.api, {
        ...sampleBody('tags', 920),
        id: 424242,
        uid: 'forged01',
        tenantId: t.users.acme.id,
        ownerId: t.users.acme.id,
        archived: true,
        createdAt: '2000-01-01T00:00:00.000Z',
        updatedAt: '2000-01-01T00:00:00.000Z',
        advId: t.users.adv.id,
        subId: t.users.sub.id,
      });
      expect(res.statusCode, res.body).toBe(201);
      const row = res.json<Record<string, unknown>>();
      expect(row.id).not.toBe(424242);
      expect(row.uid).not.toBe('forged01');
      expect(row).toMatchObject({ tenantId: t.users.demand.id, archived: false, advertiserId: null });
      expect(String(row.createdAt)).not.toMatch(/^2000/);
      const stored = await tables()
        .selectFrom('demand_tags')
        .selectAll()
        .where('id', '=', row.id as number)
        .executeTakeFirstOrThrow();
      expect([stored.tenant_id, stored.adv_id]).toEqual([t.users.demand.id, null]);
    });

    it("keeps a new account in the caller's tenant and the profile's prices, uid, token and domain as they were", async () => {
      const sub = await call('demand', 'POST', RESOURCES.subs.api, {
        ...sampleBody('subs', 921),
        tenantId: t.users.acme.id,
        managerId: t.users.acme.id,
        type: 'demand',
        showDsp: true,
      });
      expect(sub.statusCode, sub.body).toBe(201);
      const stored = await t.store.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', sub.json<{ id: number }>().id)
        .executeTakeFirstOrThrow();
      expect([stored.type, stored.tenant_id, stored.manager_id]).toEqual(['sub', t.users.demand.id, null]);

      const before = (await call('demand', 'GET', '/api/demand/info')).json<Record<string, unknown>>();
      const res = await call('demand', 'PUT', '/api/demand/info', {
        ...before,
        priceReq: 1,
        priceImp: 1,
        priceDsp: 0,
        uid: 'forged',
        token: 'forged',
        domain: 'evil.example',
        type: 'admin',
        showSystemCost: true,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        priceReq: before.priceReq,
        priceImp: before.priceImp,
        priceDsp: before.priceDsp,
        uid: before.uid,
        token: before.token,
        domain: before.domain,
        type: 'demand',
      });
    });
  });

  describe('an admin acting as a user', () => {
    it("is not sent the account's API token, and may remove but not add tag parameters", async () => {
      const own = (await call('demand', 'GET', '/api/demand/info')).json<Record<string, unknown>>();
      expect(typeof own.token).toBe('string');
      const kept = await call('demand', 'PUT', '/api/demand/info', {
        ...own,
        tagParams: ['site_section', 'placement'],
      });
      expect(kept.statusCode, kept.body).toBe(200);

      const acting = await login(apps.apps.default, 'ops', undefined, freshAddress());
      expect((await call(acting, 'GET', `/api/switch?type=demand&id=${t.users.demand.id}`)).statusCode).toBe(302);
      const seen = await call(acting, 'GET', '/api/demand/info');
      expect(seen.statusCode).toBe(200);
      expect(seen.json()).toMatchObject({ id: t.users.demand.id, uid: own.uid, token: null });

      const body = { ...seen.json<Record<string, unknown>>() };
      const added = await call(acting, 'PUT', '/api/demand/info', {
        ...body,
        tagParams: ['site_section', 'placement', 'smuggled'],
      });
      expect(added.statusCode).toBe(400);
      expect(added.json()).toMatchObject({ field: 'tagParams' });
      const stored = await t.store.db
        .selectFrom('users')
        .select('tag_params')
        .where('id', '=', t.users.demand.id)
        .executeTakeFirstOrThrow();
      expect(String(stored.tag_params)).not.toContain('smuggled');

      const removed = await call(acting, 'PUT', '/api/demand/info', { ...body, tagParams: ['placement'] });
      expect(removed.statusCode, removed.body).toBe(200);
      expect(removed.json()).toMatchObject({ tagParams: ['placement'], token: null });
      // the account itself still reads its token
      expect((await call('demand', 'GET', '/api/demand/info')).json()).toMatchObject({
        token: own.token,
        tagParams: ['placement'],
      });
    });

    it('refuses the switch to everyone but admins, and to an account of another type', async () => {
      for (const who of ['demand', 'manager', 'sub', 'adv', 'sdk', 'acme'] as const) {
        expect((await call(who, 'GET', `/api/switch?type=demand&id=${t.users.acme.id}`)).statusCode, who).toBe(403);
      }
      const acting = await login(apps.apps.default, 'ops', undefined, freshAddress());
      expect((await call(acting, 'GET', `/api/switch?type=demand&id=${t.users.adv.id}`)).statusCode).toBe(404);
      expect((await call(acting, 'GET', `/api/switch?type=admin&id=${t.users.admin.id}`)).statusCode).toBe(403);
    });
  });
});
