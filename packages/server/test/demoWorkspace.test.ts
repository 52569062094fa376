import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needsDsp, RESOURCE_KINDS, RESOURCES, type ResourceKind, type SkipSink } from '@adplane/shared';
import { ENTITY_TABLES, isEntityKind } from '../src/store/entityTables.js';
import { buildEditionApps, type EditionApps, forEachStore, login } from './helpers.js';

/**
 * The demo workspace (src/store/seed.ts + seedInventory.ts) as each demo user sees it through the API:
 * every list populated for the tenant, nothing of another tenant, only assigned rows for sub and adv
 * users, and every row valid under its kind's schema when read back.
 */
type Row = Record<string, unknown> & { id: number; name: string; tenantId: number | null };

/** Kinds a demand user of the tenant manages (everything but the admin's and the SDK user's). */
const TENANT_KINDS = RESOURCE_KINDS.filter((k) => RESOURCES[k].audience === 'tenant');
const TENANT_ENTITY_KINDS = TENANT_KINDS.filter((k) => RESOURCES[k].storage === 'entity');

/** Who reads every row of a kind in the check that re-validates them (acme has no DSP view: not its DSP kinds). */
const READERS: Record<ResourceKind, string[]> = Object.fromEntries(
  RESOURCE_KINDS.map((k) => [
    k,
    RESOURCES[k].audience === 'admin'
      ? ['admin']
      : RESOURCES[k].audience === 'sdk'
        ? ['sdk']
        : needsDsp(k)
          ? ['demand']
          : ['demand', 'acme'],
  ]),
) as Record<ResourceKind, string[]>;

/**
 * Fields of a kind's schema that the API never returns, each for a stated reason: an account's
 * password is write-only (the schema's '' means "keep the old one").
 */
const WRITE_ONLY: Partial<Record<ResourceKind, string[]>> = {
  subs: ['password'],
  advs: ['password'],
  managers: ['password'],
  demands: ['password'],
};

/** The columns a typed row adds to the kind's document. */
const HEAD = ['id', 'tenantId', 'uid', 'name', 'status', 'archived'];

forEachStore((t) => {
  // Each kind read where its edition opens it (Creative and Publisher Lists: V2V; Managers, User Activity: CTVMediaV2V).
  let apps: EditionApps;
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    apps = await buildEditionApps(t.store);
    for (const u of ['admin', 'demand', 'manager', 'acme', 'sub', 'adv', 'sdk', 'lakeside', 'summit'])
      cookies[u] = await login(apps.apps.default, u);
  });
  afterAll(() => apps.close());

  const get = async (who: string, url: string) => {
    const response = await apps.for(url).inject({ method: 'GET', url, headers: { cookie: cookies[who] } });
    return { status: response.statusCode, body: response.json() as unknown, text: response.body };
  };
  /** Every row of a list page (100 at a time), active and paused. */
  const page = async (who: string, kind: ResourceKind, query = ''): Promise<{ total: number; items: Row[] }> => {
    const r = await get(who, `${RESOURCES[kind].api}?pageSize=100${query}`);
    expect(r.status, `${who} ${kind}: ${r.text}`).toBe(200);
    return r.body as { total: number; items: Row[] };
  };
  const sharedList = async (who: string, kind: ResourceKind): Promise<Row[]> => {
    const r = await get(who, `${RESOURCES[kind].api}/list`);
    expect(r.status, `${who} ${kind}: ${r.text}`).toBe(200);
    return r.body as Row[];
  };

  describe('the demand user', () => {
    it.each(TENANT_KINDS)('finds %s populated, in its own tenant', async (kind) => {
      const { total, items } = await page('demand', kind);
      expect(total, kind).toBeGreaterThan(0);
      expect(
        items.every((r) => r.tenantId === t.users.demand.id),
        kind,
      ).toBe(true);
      expect((await sharedList('demand', kind)).length).toBe(total);
    });

    it('finds the inventory the brief promises, with readable names', async () => {
      const counts: Partial<Record<ResourceKind, number>> = {
        // the edge demo (store/seedEdgeDemo.ts) adds 2 targetings, a creative list, a tag, 2 channels, a creative and a campaign
        targetings: 6,
        applists: 2,
        publists: 1,
        crelists: 2,
        ivts: 2,
        tags: 6,
        channels: 7,
        sups: 3,
        adexchanges: 2,
        deals: 2,
        creatives: 5,
        campaigns: 4,
        subs: 3,
        advs: 3,
        managers: 1,
      };
      for (const [kind, n] of Object.entries(counts) as [ResourceKind, number][]) {
        const { total, items } = await page('demand', kind);
        expect(total, kind).toBe(n);
        for (const row of items)
          expect(row.name, `${kind} ${row.id}`).toMatch(/^(?!.*\b(test|sample|lorem|foo|untitled)\b)[A-Z].{5,}$/i);
      }
      const tags = (await page('demand', 'tags')).items;
      expect(tags.map((r) => r.integration).sort()).toEqual(['PreBid', 'PreBid', 'RTB', 'VAST', 'VAST', 'VAST']);
      expect(
        tags
          .filter((r) => r.integration === 'PreBid')
          .map((r) => r.partner)
          .sort(),
      ).toEqual(['appnexusP', 'pubmaticP']);
      const channels = (await page('demand', 'channels')).items;
      expect(new Set(channels.map((r) => r.environment))).toEqual(new Set(['ctv', 'app', 'web']));
      expect(new Set(channels.map((r) => r.integration))).toEqual(new Set(['VAST', 'RTB', 'PreBid']));
      expect(channels.some((r) => r.targetingId !== null && (r.ivtIds as number[]).length > 0)).toBe(true);
      const ivts = (await page('demand', 'ivts')).items;
      expect(ivts.map((r) => r.stage).sort()).toEqual(['postbid', 'prebid']);
    });

    it('also sees the admin tooltips, read-only', async () => {
      const keys = (await page('demand', 'tooltips')).items.map((r) => r.key);
      expect(keys).toEqual(
        expect.arrayContaining([
          'channels.floorCpm',
          'channels.payout',
          'tags.timeoutMs',
          'tags.priority',
          'campaigns.pacing',
        ]),
      );
    });

    it('reads the seed in the activity log, as created by Northwind Media', async () => {
      const r = await get('demand', '/api/activity?kind=channels&limit=500');
      expect(r.status).toBe(200);
      const entries = r.body as { action: string; userId: number; entityId: number }[];
      expect(entries.filter((e) => e.action === 'create')).toHaveLength(7);
      expect(entries.every((e) => e.userId === t.users.demand.id)).toBe(true);
    });

    it('cannot archive a tag its channels still use: the seed recorded the references', async () => {
      const tag = (await page('demand', 'tags', '&search=Beacon')).items[0];
      const usage = await get('demand', `${RESOURCES.tags.api}/${tag.id}/usage`);
      expect((usage.body as { kind: string }[]).filter((u) => u.kind === 'channels')).toHaveLength(2);
      const archive = await apps.for(RESOURCES.tags.api).inject({
        method: 'POST',
        url: `${RESOURCES.tags.api}/${tag.id}/archive`,
        payload: {},
        headers: { cookie: cookies.demand },
      });
      expect(archive.statusCode).toBe(409);
    });
  });

  describe('tenant isolation', () => {
    it('shows acme only its own channels, tags and targeting', async () => {
      const own: Partial<Record<ResourceKind, number>> = { channels: 2, tags: 2, targetings: 1 };
      for (const kind of TENANT_ENTITY_KINDS) {
        if (needsDsp(kind)) {
          // acme has no DSP view: its DSP kinds are refused outright (the mode rule: security/entitlements.test.ts).
          expect((await get('acme', RESOURCES[kind].api)).status, kind).toBe(403);
          continue;
        }
        const { total, items } = await page('acme', kind);
        expect(total, kind).toBe(own[kind] ?? 0);
        expect(
          items.every((r) => r.tenantId === t.users.acme.id),
          kind,
        ).toBe(true);
        const theirs = new Set((await sharedList('demand', kind)).map((r) => r.id));
        expect(
          (await sharedList('acme', kind)).filter((r) => theirs.has(r.id)),
          kind,
        ).toEqual([]);
      }
      for (const kind of ['subs', 'advs', 'managers'] as const) expect((await page('acme', kind)).total, kind).toBe(0);
      const northwindChannel = (await page('demand', 'channels')).items[0];
      expect((await get('acme', `${RESOURCES.channels.api}/${northwindChannel.id}`)).status).toBe(404);
    });

    it('shows the sub user only the channels assigned to it', async () => {
      const { total, items } = await page('sub', 'channels');
      expect(total).toBe(2);
      expect(items.every((r) => r.subpublisherId === t.users.sub.id)).toBe(true);
      expect(items.map((r) => r.name).every((n) => n.startsWith('Harbor Video'))).toBe(true);
      const names = (await get('sub', '/api/demand/channelNames/list')).body as Row[];
      expect(names.map((r) => r.id).sort()).toEqual(items.map((r) => r.id).sort());
      // Another subpublisher of the same tenant sees its own channel, not Harbor Video's.
      const lakeside = await page('lakeside', 'channels');
      expect(lakeside.total).toBe(1);
      expect(lakeside.items[0].name).toMatch(/^Lakeside Streaming/);
      for (const kind of ['tags', 'campaigns', 'creatives', 'targetings'] as const) {
        expect((await get('sub', RESOURCES[kind].api)).status, kind).toBe(403);
      }
    });

    it('shows the adv user only its campaigns, creatives and tags', async () => {
      for (const kind of ['campaigns', 'creatives', 'tags'] as const) {
        const { total, items } = await page('adv', kind);
        expect(total, kind).toBe(1);
        expect(items[0].advertiserId, kind).toBe(t.users.adv.id);
        expect(items[0].name, kind).toMatch(/^Blue Fin Foods/);
        const others = (await page('demand', kind)).items.filter((r) => r.advertiserId !== t.users.adv.id);
        expect(others.length, kind).toBeGreaterThan(0);
        expect((await get('adv', `${RESOURCES[kind].api}/${others[0].id}`)).status, kind).toBe(404);
      }
      const summit = await page('summit', 'campaigns');
      expect(summit.items.map((r) => r.name)).toEqual(['Summit Outdoor - Trail Season video (EU)']);
      for (const kind of ['channels', 'sups', 'deals'] as const)
        expect((await get('adv', RESOURCES[kind].api)).status, kind).toBe(403);
    });

    it('gives the sdk user its two apps, with app keys', async () => {
      const { total, items } = await page('sdk', 'sdkapps');
      expect(total).toBe(2);
      for (const sdkApp of items) expect(sdkApp.uid).toMatch(/^[0-9a-f]{16}$/);
      expect((await get('demand', RESOURCES.sdkapps.api)).status).toBe(403);
    });
  });

  describe('every seeded row, read back', () => {
    it.each(RESOURCE_KINDS)('%s passes its schema and is returned in normal form', async (kind) => {
      const def = RESOURCES[kind];
      let seen = 0;
      for (const who of READERS[kind]) {
        for (const item of await sharedList(who, kind)) {
          const read = await get(who, `${def.api}/${item.id}`);
          expect(read.status, read.text).toBe(200);
          const dto = read.body as Record<string, unknown>;
          const parsed = def.schema.safeParse(dto);
          expect(parsed.success, `${kind} ${item.id} ${item.name}: ${parsed.error?.message}`).toBe(true);
          // Normal form: every field the schema yields is in the answer, with the value the schema
          // gives it (none filled in by a default the API did not show), but the write-only ones.
          const value = parsed.data as Record<string, unknown>;
          const writeOnly = WRITE_ONLY[kind] ?? [];
          const fields = Object.keys(value).filter((f) => !writeOnly.includes(f));
          expect(fields.length, kind).toBeGreaterThan(1);
          for (const field of fields) {
            expect(Object.hasOwn(dto, field), `${kind} ${item.id}: ${field} missing from the answer`).toBe(true);
            expect(dto[field], `${kind} ${item.id} ${field}`).toEqual(value[field]);
          }
          for (const field of writeOnly) expect(dto, `${kind} ${item.id}`).not.toHaveProperty(field);
          seen++;
        }
      }
      expect(seen, kind).toBeGreaterThan(0);
    });

    it.each(RESOURCE_KINDS.filter(isEntityKind))(
      "%s: the kind's typed parser reads every stored row back as stored",
      async (kind) => {
        const def = RESOURCES[kind];
        const rows = await t.store.db
          .withTables<
            Record<
              string,
              {
                id: number;
                tenant_id: number | null;
                uid: string | null;
                name: string;
                status: number;
                archived: number;
                data: string;
              }
            >
          >()
          .selectFrom(ENTITY_TABLES[kind])
          .selectAll()
          .execute();
        expect(rows.length, kind).toBeGreaterThan(0);
        const sink: SkipSink = { skipped: [] };
        for (const r of rows) {
          const data = JSON.parse(r.data) as Record<string, unknown>;
          const typed = def.parseRow!(
            {
              id: r.id,
              tenantId: r.tenant_id,
              uid: r.uid,
              name: r.name,
              status: r.status,
              archived: r.archived === 1,
              data,
            },
            sink,
          );
          expect(typed, `${kind} ${r.id}: ${JSON.stringify(sink.skipped)}`).not.toBeNull();
          expect(typed).toMatchObject({
            id: r.id,
            tenantId: r.tenant_id,
            uid: r.uid,
            name: r.name,
            status: r.status,
            archived: r.archived === 1,
          });
          const fields = Object.fromEntries(
            Object.entries(typed!).filter(([f]) => !HEAD.includes(f) || f === def.nameFrom),
          );
          expect(fields, `${kind} ${r.id}`).toEqual(data);
        }
        expect(sink.skipped).toEqual([]);
      },
    );
  });
});
