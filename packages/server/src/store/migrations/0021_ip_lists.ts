import { type CreateIndexBuilder, type Kysely, type Migration } from 'kysely';
import { type Dialect } from '../db.js';
import { ENTITY_TABLES } from '../entityTables.js';
import { FLAG_TYPE, JSON_TYPE, idColumn, timestampType, timestamps } from './columns.js';

/**
 * IP lists (a list kind: the addresses and CIDR ranges a targeting includes or excludes): their
 * table, of every entity table's shape (0002_inventory.ts), with the list pages' indexes
 * (0003_list_indexes.ts) and the `(updated_at)` the snapshot's rebuilds read by
 * (0010_updated_at_indexes.ts). A store made since the kind exists got the table and its list
 * indexes from 0002 and 0003, which make one for every entity kind: each step here is "if not exists".
 */
export const ipLists = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    const table = ENTITY_TABLES.iplists;
    await db.schema
      .createTable(table)
      .ifNotExists()
      .$call(idColumn(dialect))
      .addColumn('tenant_id', 'integer', (c) => c.references('users.id'))
      .addColumn('uid', 'text')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('archived', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('archived_at', timestampType(dialect))
      .addColumn('sub_id', 'integer', (c) => c.references('users.id'))
      .addColumn('adv_id', 'integer', (c) => c.references('users.id'))
      .addColumn('data', JSON_TYPE, (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_by', 'integer')
      .addColumn('updated_by', 'integer')
      .$call(timestamps(dialect))
      .execute();
    const index = (name: string, columns: string[], unique = false): Promise<void> => {
      let made: CreateIndexBuilder = db.schema.createIndex(`${table}_${name}`).ifNotExists().on(table).columns(columns);
      if (unique) made = made.unique();
      return made.execute();
    };
    await index('uid_unique', ['uid'], true);
    await index('tenant_list', ['tenant_id', 'archived', 'status', 'name']);
    await index('tenant_sub', ['tenant_id', 'sub_id']);
    await index('tenant_adv', ['tenant_id', 'adv_id']);
    await index('tenant_name', ['tenant_id', 'archived', 'name', 'id']);
    await index('tenant_recent', ['tenant_id', 'archived', 'id']);
    await index('tenant_updated', ['tenant_id', 'archived', 'updated_at', 'id']);
    await index('updated_at', ['updated_at']);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable(ENTITY_TABLES.iplists).ifExists().execute();
  },
});
