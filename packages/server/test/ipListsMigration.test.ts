import { RESOURCES } from '@adplane/shared';
import { type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENTITY_TABLES } from '../src/store/entityTables.js';
import { ipLists } from '../src/store/migrations/0021_ip_lists.js';
import { migrateToLatest } from '../src/store/migrations/index.js';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

/**
 * Migration 0021 gives a store made before IP lists existed their table and indexes; on a store made
 * since (whose 0002 and 0003 made them with every entity kind's) it changes nothing. Either way IP
 * lists are then written and listed through the API.
 */
forEachStore((t) => {
  describe('IP lists on an older store', () => {
    // (an app built after migrating: slower than most tests on a loaded machine)
    it('adds the table to a store that has none, and lists written after it are read back', {
      timeout: 90_000,
    }, async () => {
      const db = t.store.db as unknown as Kysely<unknown>;
      // the store as it was before the kind: no table, the migration not yet run
      await db.schema.dropTable(ENTITY_TABLES.iplists).execute();
      await t.store.db
        .withTables<{ kysely_migration: { name: string } }>()
        .deleteFrom('kysely_migration')
        .where('name', '=', '0021_ip_lists')
        .execute();
      expect(await migrateToLatest(t.store)).toContain('0021_ip_lists');
      // run again on the store it made: nothing to do, nothing fails
      await ipLists(t.store.dialect).up(db);

      const app = await buildTestApp(t.store);
      try {
        const cookie = await login(app, 'demand');
        const api = RESOURCES.iplists.api;
        const created = await as(app, cookie, {
          method: 'POST',
          url: api,
          payload: { name: 'Partner servers', items: ['192.0.2.0/24', '2001:DB8::1'] },
        });
        expect(created.statusCode, created.body).toBe(201);
        const list = await as(app, cookie, { method: 'GET', url: `${api}?search=Partner` });
        expect(list.json().items).toEqual([
          expect.objectContaining({ name: 'Partner servers', items: ['192.0.2.0/24', '2001:db8::1'] }),
        ]);
        const rows = await t.store.db
          .withTables<Record<string, { name: string }>>()
          .selectFrom(ENTITY_TABLES.iplists)
          .select('name')
          .execute();
        expect(rows.map((r) => r.name)).toEqual(['Partner servers']);
      } finally {
        await app.close();
      }
    });
  });
});
