import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES, type ResourceKind } from '@adplane/shared';
import { buildEditionApps, type EditionApps, forEachStore, grantDsp, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

const ENTITY_KINDS = Object.values(RESOURCES)
  .filter((d) => d.storage === 'entity' && d.audience === 'tenant')
  .map((d) => d.kind);

forEachStore((t) => {
  // Every kind where its edition opens it (Creative and Publisher Lists: V2V; User Activity: CTVMediaV2V).
  let apps: EditionApps;
  const cookies: Record<string, string> = {};
  const call = (who: string, method: string, url: string, payload?: unknown) =>
    // Every POST and PUT is JSON (the CSRF defence): an action without a body sends {}.
    apps.for(url).inject({
      method: method as 'GET',
      url,
      payload: (payload ?? (method === 'POST' || method === 'PUT' ? {} : undefined)) as object,
      headers: who ? { cookie: cookies[who] } : {},
    });

  beforeAll(async () => {
    apps = await buildEditionApps(t.store);
    // Tenant isolation of DSP kinds needs a second tenant with the DSP view (the mode rule itself: security/entitlements.test.ts).
    await grantDsp(t.store, t.users.acme.id);
    for (const u of ['admin', 'ops', 'demand', 'manager', 'sub', 'adv', 'sdk', 'acme'])
      cookies[u] = await login(apps.apps.default, u);
  });
  afterAll(() => apps.close());

  describe.each(ENTITY_KINDS)('%s', (kind: ResourceKind) => {
    const api = RESOURCES[kind].api;

    it('creates, reads, updates, lists, duplicates, archives, restores and deletes', async () => {
      const created = await call('demand', 'POST', api, sampleBody(kind, 1));
      expect(created.statusCode, created.body).toBe(201);
      const row = created.json();
      expect(row.id).toBeGreaterThan(0);
      expect(row.status).toBe(1);
      expect(row.tenantId).toBe(t.users.demand.id);
      if (RESOURCES[kind].uid) expect(row.uid).toMatch(/^[0-9a-f]{16}$/);

      const read = await call('demand', 'GET', `${api}/${row.id}`);
      expect(read.statusCode).toBe(200);
      expect(read.json().name).toBe(row.name);

      const updated = await call('demand', 'PUT', `${api}/${row.id}`, {
        ...sampleBody(kind, 1),
        name: '  Renamed  ',
        status: 0,
      });
      expect(updated.statusCode, updated.body).toBe(200);
      expect(updated.json()).toMatchObject({ name: 'Renamed', status: 0 });

      const page = await call('demand', 'GET', `${api}?search=renamed&pageSize=10&status=paused`);
      expect(page.statusCode, page.body).toBe(200);
      expect(page.json().items.map((r: { id: number }) => r.id)).toContain(row.id);
      expect(page.json().pageSize).toBe(10);

      const list = await call('demand', 'GET', `${api}/list`);
      expect(list.json().find((i: { id: number }) => i.id === row.id)).toMatchObject({ id: row.id, name: 'Renamed' });

      const dup = await call('demand', 'POST', `${api}/${row.id}/duplicate`);
      expect(dup.statusCode, dup.body).toBe(201);
      expect(dup.json()).toMatchObject({ name: 'Renamed (copy)', status: 0 });
      expect(dup.json().id).not.toBe(row.id);

      const archived = await call('demand', 'POST', `${api}/${row.id}/archive`);
      expect(archived.json().archived).toBe(true);
      const active = await call('demand', 'GET', `${api}?pageSize=100`);
      expect(active.json().items.map((r: { id: number }) => r.id)).not.toContain(row.id);
      const inArchive = await call('demand', 'GET', `${api}?status=archived&pageSize=100`);
      expect(inArchive.json().items.map((r: { id: number }) => r.id)).toContain(row.id);
      expect((await call('demand', 'PUT', `${api}/${row.id}`, sampleBody(kind, 1))).statusCode).toBe(409);
      expect((await call('demand', 'POST', `${api}/${row.id}/restore`)).json().archived).toBe(false);

      expect((await call('demand', 'DELETE', `${api}/${dup.json().id}`)).statusCode).toBe(204);
      expect((await call('demand', 'GET', `${api}/${dup.json().id}`)).statusCode).toBe(404);
    });

    it('names the field of a validation error and writes nothing', async () => {
      const before = (await call('demand', 'GET', `${api}?pageSize=100`)).json().total;
      const bad = await call('demand', 'POST', api, { ...sampleBody(kind, 2), name: '   ' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors.map((e: { field: string }) => e.field)).toContain('name');
      expect((await call('demand', 'GET', `${api}?pageSize=100`)).json().total).toBe(before);
    });

    it('keeps tenants apart', async () => {
      const mine = (await call('demand', 'POST', api, sampleBody(kind, 3))).json();
      expect((await call('acme', 'GET', `${api}/${mine.id}`)).statusCode).toBe(404);
      expect((await call('acme', 'PUT', `${api}/${mine.id}`, sampleBody(kind, 3))).statusCode).toBe(404);
      expect((await call('acme', 'POST', `${api}/${mine.id}/archive`)).statusCode).toBe(404);
      expect((await call('acme', 'DELETE', `${api}/${mine.id}`)).statusCode).toBe(404);
      const theirs = (await call('acme', 'GET', `${api}/list`)).json();
      expect(theirs.map((i: { id: number }) => i.id)).not.toContain(mine.id);
      // The team member works in its manager's tenant; an admin sees every tenant.
      expect((await call('manager', 'GET', `${api}/${mine.id}`)).statusCode).toBe(200);
      expect((await call('admin', 'GET', `${api}/${mine.id}`)).statusCode).toBe(200);
    });
  });

  describe('duplicate', () => {
    it("keeps ' (copy)' on a long name, shortening the original part with an ellipsis", async () => {
      const api = RESOURCES.channels.api;
      const named = async (name: string) => {
        const row = await call('demand', 'POST', api, { ...sampleBody('channels', 11), name });
        expect(row.statusCode, row.body).toBe(201);
        const dup = await call('demand', 'POST', `${api}/${row.json().id}/duplicate`);
        expect(dup.statusCode, dup.body).toBe(201);
        return dup.json().name as string;
      };
      // 248 characters and ' (copy)' fill the 255 exactly: nothing is cut
      const fits = `${'F'.repeat(247)}x`;
      expect(await named(fits)).toBe(`${fits} (copy)`);
      // one more and the original part gives way, never the suffix
      const long = `${'L'.repeat(200)} ${'M'.repeat(53)}`;
      const copy = await named(long);
      expect(copy).toHaveLength(255);
      expect(copy).toBe(`${long.slice(0, 247)}… (copy)`);
      // a space where it is cut is not kept before the ellipsis
      const spaced = `${'S'.repeat(246)} tail-end`;
      expect(await named(spaced)).toBe(`${'S'.repeat(246)}… (copy)`);
      // an emoji at the cut is dropped whole, never halved
      const emoji = `${'E'.repeat(246)}😀 and`;
      expect(await named(emoji)).toBe(`${'E'.repeat(246)}… (copy)`);
      // a copy of the copy says so as well
      const again = await call('demand', 'GET', `${api}?search=${encodeURIComponent('L'.repeat(20))}&status=paused`);
      const first = again.json().items.find((r: { name: string }) => r.name === copy);
      const second = await call('demand', 'POST', `${api}/${first.id}/duplicate`);
      expect(second.json().name).toBe(`${copy.slice(0, 247)}… (copy)`);
    });
  });

  describe('references', () => {
    it('refuses a reference to another tenant and names the field', async () => {
      const acmeTag = (await call('acme', 'POST', RESOURCES.tags.api, sampleBody('tags', 9))).json();
      const res = await call('demand', 'POST', RESOURCES.channels.api, {
        ...sampleBody('channels', 9),
        demand: [{ tagId: acmeTag.id, priority: 1 }],
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().field).toBe('demand');
    });

    it('blocks archiving and deleting a row in use, naming who uses it', async () => {
      const targeting = (await call('demand', 'POST', RESOURCES.targetings.api, sampleBody('targetings', 7))).json();
      const channel = (
        await call('demand', 'POST', RESOURCES.channels.api, {
          ...sampleBody('channels', 7),
          targetingId: targeting.id,
        })
      ).json();
      const usage = (await call('demand', 'GET', `${RESOURCES.targetings.api}/${targeting.id}/usage`)).json();
      expect(usage).toEqual([expect.objectContaining({ kind: 'channels', id: channel.id, field: 'targetingId' })]);
      const archive = await call('demand', 'POST', `${RESOURCES.targetings.api}/${targeting.id}/archive`);
      expect(archive.statusCode).toBe(409);
      expect(archive.json().message).toContain(channel.name);
      expect((await call('demand', 'DELETE', `${RESOURCES.targetings.api}/${targeting.id}`)).statusCode).toBe(409);
      // Once the channel no longer uses it, it can go.
      await call('demand', 'PUT', `${RESOURCES.channels.api}/${channel.id}`, {
        ...sampleBody('channels', 7),
        targetingId: null,
      });
      expect((await call('demand', 'POST', `${RESOURCES.targetings.api}/${targeting.id}/archive`)).statusCode).toBe(
        200,
      );
    });

    it('checks reference data and partner parameters', async () => {
      const badCountry = await call('demand', 'POST', RESOURCES.targetings.api, {
        name: 't',
        rules: { countries: { mode: 'include', values: ['XX'] } },
      });
      expect(badCountry.statusCode).toBe(400);
      expect(badCountry.json().field).toBe('rules.countries');
      const badIab = await call('demand', 'POST', RESOURCES.creatives.api, {
        ...sampleBody('creatives', 5),
        iabCategories: ['IAB99'],
      });
      expect(badIab.json().field).toBe('iabCategories');
      const prebid = await call('demand', 'POST', RESOURCES.tags.api, {
        name: 'pb',
        integration: 'PreBid',
        partner: 'appnexus',
        partnerParams: {},
      });
      expect(prebid.statusCode).toBe(400);
      expect(prebid.json().field).toMatch(/^partnerParams/);
    });
  });

  describe('assigned rows for sub and adv users', () => {
    it('shows a subpublisher only its channels, read-only', async () => {
      const mine = (
        await call('demand', 'POST', RESOURCES.channels.api, {
          ...sampleBody('channels', 11),
          subpublisherId: t.users.sub.id,
        })
      ).json();
      const other = (await call('demand', 'POST', RESOURCES.channels.api, sampleBody('channels', 12))).json();
      const seen = (await call('sub', 'GET', `${RESOURCES.channels.api}/list`)).json().map((i: { id: number }) => i.id);
      expect(seen).toContain(mine.id);
      expect(seen).not.toContain(other.id);
      expect((await call('sub', 'GET', `${RESOURCES.channels.api}/${other.id}`)).statusCode).toBe(404);
      expect(
        (await call('sub', 'PUT', `${RESOURCES.channels.api}/${mine.id}`, sampleBody('channels', 11))).statusCode,
      ).toBe(403);
      expect((await call('sub', 'GET', RESOURCES.tags.api)).statusCode).toBe(403);
    });

    it('shows an advertiser only its campaigns', async () => {
      const mine = (
        await call('demand', 'POST', RESOURCES.campaigns.api, {
          ...sampleBody('campaigns', 13),
          advertiserId: t.users.adv.id,
        })
      ).json();
      const seen: { id: number; advertiserId: number }[] = (
        await call('adv', 'GET', `${RESOURCES.campaigns.api}?pageSize=100`)
      ).json().items;
      expect(seen.map((i) => i.id)).toContain(mine.id);
      // The demo workspace assigns campaigns to other advertisers of the tenant too: the adv user sees none of them.
      expect(seen.every((i) => i.advertiserId === t.users.adv.id)).toBe(true);
      expect((await call('adv', 'POST', RESOURCES.campaigns.api, sampleBody('campaigns', 14))).statusCode).toBe(403);
    });
  });

  describe('admin-only and sdk resources', () => {
    it('lets admins write tooltips and everyone read them', async () => {
      const tip = await call('admin', 'POST', RESOURCES.tooltips.api, sampleBody('tooltips', 1));
      expect(tip.statusCode, tip.body).toBe(201);
      expect((await call('demand', 'GET', `${RESOURCES.tooltips.api}/list`)).json()).toContainEqual(
        expect.objectContaining({ id: tip.json().id, key: 'channels.floorCpm1' }),
      );
      expect((await call('demand', 'POST', RESOURCES.tooltips.api, sampleBody('tooltips', 2))).statusCode).toBe(403);
    });

    it('keeps one live tooltip per field key', async () => {
      const first = await call('admin', 'POST', RESOURCES.tooltips.api, sampleBody('tooltips', 3));
      expect(first.statusCode, first.body).toBe(201);
      const second = await call('admin', 'POST', RESOURCES.tooltips.api, {
        ...sampleBody('tooltips', 3),
        text: 'Another text',
      });
      expect(second.statusCode).toBe(400);
      expect(second.json().errors).toEqual([
        { field: 'key', message: `already has a tooltip (#${first.json().id}): edit that one` },
      ]);
      // Editing the tooltip itself is fine; once archived, its key is free again.
      expect(
        (
          await call('admin', 'PUT', `${RESOURCES.tooltips.api}/${first.json().id}`, {
            ...sampleBody('tooltips', 3),
            text: 'Edited',
          })
        ).statusCode,
      ).toBe(200);
      await call('admin', 'POST', `${RESOURCES.tooltips.api}/${first.json().id}/archive`);
      expect((await call('admin', 'POST', RESOURCES.tooltips.api, sampleBody('tooltips', 3))).statusCode).toBe(201);
    });

    it('gives sdk users their apps with an app key', async () => {
      const app1 = await call('sdk', 'POST', RESOURCES.sdkapps.api, sampleBody('sdkapps', 1));
      expect(app1.statusCode, app1.body).toBe(201);
      expect(app1.json().uid).toMatch(/^[0-9a-f]{16}$/);
      expect((await call('demand', 'GET', RESOURCES.sdkapps.api)).statusCode).toBe(403);
    });

    it('requires admins to name the tenant of a row they create', async () => {
      const res = await call('admin', 'POST', RESOURCES.ivts.api, sampleBody('ivts', 4));
      expect(res.statusCode).toBe(400);
      expect(res.json().field).toBe('tenantId');
      const ok = await call('admin', 'POST', RESOURCES.ivts.api, {
        ...sampleBody('ivts', 4),
        tenantId: t.users.acme.id,
      });
      expect(ok.json().tenantId).toBe(t.users.acme.id);
    });
  });

  describe('activity log', () => {
    it('records who changed what, with before and after', async () => {
      const row = (await call('demand', 'POST', RESOURCES.deals.api, sampleBody('deals', 21))).json();
      await call('demand', 'PUT', `${RESOURCES.deals.api}/${row.id}`, {
        ...sampleBody('deals', 21),
        floorCpm: 20_000_000,
      });
      const log = await call('demand', 'GET', `/api/activity?kind=deals&entityId=${row.id}`);
      expect(log.statusCode, log.body).toBe(200);
      const [update, create] = log.json();
      expect(create).toMatchObject({ action: 'create', userId: t.users.demand.id, kind: 'deals' });
      expect(update).toMatchObject({ action: 'update' });
      expect(update.before.floorCpm).toBe(15_000_000);
      expect(update.after.floorCpm).toBe(20_000_000);
      expect((await call('acme', 'GET', `/api/activity?kind=deals&entityId=${row.id}`)).json()).toEqual([]);
    });

    it('names who changed it, also an admin acting as the user, and pages newest first', async () => {
      const row = (await call('demand', 'POST', RESOURCES.deals.api, sampleBody('deals', 22))).json();
      const switched = await apps.apps.default.inject({
        method: 'GET',
        url: `/api/switch?type=demand&id=${t.users.demand.id}`,
        headers: { cookie: cookies.admin, accept: 'application/json' },
      });
      expect(switched.statusCode, switched.body).toBe(200);
      await call('admin', 'PUT', `${RESOURCES.deals.api}/${row.id}`, {
        ...sampleBody('deals', 22),
        name: 'Renamed by support',
      });
      await apps.apps.default.inject({
        method: 'GET',
        url: `/api/switch?type=admin&id=${t.users.admin.id}`,
        headers: { cookie: cookies.admin, accept: 'application/json' },
      });

      const all = (await call('demand', 'GET', `/api/activity?kind=deals&entityId=${row.id}`)).json();
      expect(all.map((e: { action: string }) => e.action)).toEqual(['update', 'create']);
      expect(all[0]).toMatchObject({
        userName: 'Northwind Media',
        adminName: 'Platform Admin',
        adminId: t.users.admin.id,
      });
      expect(all[1]).toMatchObject({ userName: 'Northwind Media', adminName: null });
      const updates = (await call('demand', 'GET', `/api/activity?kind=deals&entityId=${row.id}&action=update`)).json();
      expect(updates).toHaveLength(1);
      const older = (
        await call('demand', 'GET', `/api/activity?kind=deals&entityId=${row.id}&beforeId=${all[0].id}`)
      ).json();
      expect(older.map((e: { id: number }) => e.id)).toEqual([all[1].id]);
      expect((await call('sub', 'GET', '/api/activity')).statusCode).toBe(403);
    });
  });
});
