import { beforeAll, expect, it } from 'vitest';
import { ListQuery, RESOURCES } from '@adplane/shared';
import { ENTITY_TABLES, type EntityKind, isEntityKind } from '../src/store/entityTables.js';
import {
  type EntityRow,
  type EntityWrite,
  getEntity,
  insertEntities,
  listEntities,
  referrersTo,
} from '../src/store/entities.js';
import { createUser } from '../src/store/users.js';
import { forEachStore } from './helpers.js';

/**
 * The list-page query of the entity repository (paging, sorts on columns and JSON fields, ties) and
 * the bulk insert the benchmark and imports use, on both engines.
 */
const ROWS = 1_234; // three INSERT chunks, the last one partial

const write = (i: number, tagIds: number[] = []): EntityWrite => ({
  // Every name twice, so that ties are broken by id.
  name: `Channel ${String(Math.floor(i / 2)).padStart(4, '0')}`,
  status: i % 3 === 0 ? 0 : 1,
  subId: null,
  advId: null,
  // 9, 10, 11... sort as numbers, not as text.
  data: {
    floorCpm: ((i * 7_919) % 50) * 1_000_000 + 9,
    integration: ['VAST', 'RTB', 'PreBid'][i % 3],
    demand: tagIds.map((tagId) => ({ tagId, priority: 1 })),
  },
  refs: tagIds.map((id) => ({ field: 'demand', kind: 'tags', id })),
});

forEachStore(
  (t) => {
    let tenantId: number;
    let ids: number[];
    let tagIds: number[];

    beforeAll(async () => {
      const tenant = await createUser(t.store.db, {
        type: 'demand',
        username: 'lists-tenant',
        passwordHash: 'x',
        name: 'Lists Tenant',
      });
      tenantId = tenant.id;
      await t.store.db.transaction().execute(async (trx) => {
        tagIds = await insertEntities(trx, 'tags', tenantId, [write(0), write(1)], { uid: true, userId: tenantId });
        ids = await insertEntities(
          trx,
          'channels',
          tenantId,
          Array.from({ length: ROWS }, (_, i) => write(i, i % 10 === 0 ? tagIds : [])),
          { uid: true, userId: tenantId },
        );
      });
    });

    const page = (q: Record<string, unknown>) =>
      listEntities(
        t.store.db,
        t.store.dialect,
        'channels',
        { tenantId },
        ListQuery.parse({ pageSize: 100, ...q }),
        RESOURCES.channels.sortable,
      );
    const all = async (q: Record<string, unknown>): Promise<EntityRow[]> => {
      const out: EntityRow[] = [];
      for (let p = 1; ; p++) {
        const { items, total } = await page({ ...q, page: p });
        out.push(...items);
        if (out.length >= total || items.length === 0) return out;
      }
    };

    it('bulk-inserts rows in order, with their uids and references', async () => {
      expect(ids).toHaveLength(ROWS);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      for (const i of [0, 499, 500, 1_000, ROWS - 1]) {
        const row = await getEntity(t.store.db, 'channels', { tenantId }, ids[i]);
        expect(row).toMatchObject({
          name: write(i).name,
          status: write(i).status,
          tenantId,
          data: write(i, i % 10 === 0 ? tagIds : []).data,
        });
        expect(row?.uid).toMatch(/^[0-9a-f]{16}$/);
      }
      expect((await referrersTo(t.store.db, 'tags', tagIds[0])).length).toBe(Math.ceil(ROWS / 10));
    });

    it('pages by name in both directions, ties by id in the same direction, every row once', async () => {
      const asc = await all({ sort: 'name', order: 'asc' });
      expect(asc).toHaveLength(ROWS);
      const key = (r: EntityRow) => [r.name, r.id] as const;
      for (let i = 1; i < asc.length; i++) {
        const [a, b] = [key(asc[i - 1]), key(asc[i])];
        expect(a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]), `${a} before ${b}`).toBe(true);
      }
      const desc = await all({ sort: 'name', order: 'desc' });
      expect(desc.map((r) => r.id)).toEqual(asc.map((r) => r.id).reverse());
    });

    it('sorts by a JSON number as a number, deep pages included', async () => {
      const rows = await all({ sort: 'floorCpm', order: 'desc' });
      expect(rows).toHaveLength(ROWS);
      const floors = rows.map((r) => r.data.floorCpm as number);
      expect(floors).toEqual([...floors].sort((a, b) => b - a));
      const deep = await page({ sort: 'floorCpm', order: 'desc', page: 10, pageSize: 20 });
      expect(deep.items.map((r) => r.id)).toEqual(rows.slice(180, 200).map((r) => r.id));
    });

    it('defaults to newest first and combines status, search and paging', async () => {
      const first = await page({ pageSize: 10 });
      expect(first.items.map((r) => r.id)).toEqual([...ids].reverse().slice(0, 10));
      const paused = await all({ status: 'paused', sort: 'name', order: 'asc' });
      expect(paused).toHaveLength(Math.ceil(ROWS / 3));
      expect(paused.every((r) => r.status === 0)).toBe(true);
      const found = await page({ search: 'channel 010', sort: 'name', order: 'asc', pageSize: 10 });
      expect(found.total).toBe(20);
      expect(found.items.map((r) => r.name)).toEqual([...Array(10)].map((_, i) => `Channel 010${Math.floor(i / 2)}`));
      // A public id or a row id finds that row; a search for 100% or _ matches those characters only.
      const row = (await getEntity(t.store.db, 'channels', { tenantId }, ids[700]))!;
      expect((await page({ search: row.uid })).items.map((r) => r.id)).toEqual([row.id]);
      expect((await all({ search: String(ids[5]) })).map((r) => r.id)).toContain(ids[5]);
      expect((await page({ search: '100%' })).total).toBe(0);
      expect((await page({ search: 'Channel_0' })).total).toBe(0);
    });

    it('has an index for every JSON field a list page sorts by', async () => {
      const names = new Set(
        t.store.dialect === 'sqlite'
          ? (
              await t.store.db
                .selectFrom('sqlite_master' as never)
                .select('name' as never)
                .where('type' as never, '=', 'index' as never)
                .execute()
            ).map((r) => (r as { name: string }).name)
          : (
              await t.store.db
                .selectFrom('pg_indexes' as never)
                .select('indexname' as never)
                .where('schemaname' as never, '=', t.store.pgSchema as never)
                .execute()
            ).map((r) => (r as { indexname: string }).indexname),
      );
      const columns = new Set(['id', 'name', 'status', 'uid', 'createdAt', 'updatedAt']);
      for (const def of Object.values(RESOURCES)) {
        if (!isEntityKind(def.kind)) continue;
        const table = ENTITY_TABLES[def.kind as EntityKind];
        expect(names.has(`${table}_tenant_name`), table).toBe(true);
        for (const field of (def.sortable ?? []).filter((f) => !columns.has(f))) {
          expect(
            names.has(`${table}_tenant_${field.toLowerCase()}`),
            `${table}: index on ${field} (add it in a new migration)`,
          ).toBe(true);
        }
      }
    });
  },
  { seed: false },
);
