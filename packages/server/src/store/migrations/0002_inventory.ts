import { type Kysely, type Migration } from 'kysely';
import { type Dialect } from '../db.js';
import { ENTITY_TABLES } from '../entityTables.js';
import { FLAG_TYPE, JSON_TYPE, idColumn, timestampType, timestamps } from './columns.js';

/**
 * Inventory, demand and targeting: one table per kind with the same shape. What every list needs
 * (tenant, public uid, name, status, archive, the sub or adv user a row is assigned to) are columns
 * with indexes; the rest of the typed document (validated by the kind's zod schema in
 * packages/shared) is JSON. `entity_refs` records every reference between rows so that a referenced
 * row cannot be deleted silently and "used by" is one indexed lookup.
 */
export const inventory = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    for (const table of Object.values(ENTITY_TABLES)) {
      await db.schema
        .createTable(table)
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
      await db.schema.createIndex(`${table}_uid_unique`).on(table).unique().column('uid').execute();
      await db.schema
        .createIndex(`${table}_tenant_list`)
        .on(table)
        .columns(['tenant_id', 'archived', 'status', 'name'])
        .execute();
      await db.schema.createIndex(`${table}_tenant_sub`).on(table).columns(['tenant_id', 'sub_id']).execute();
      await db.schema.createIndex(`${table}_tenant_adv`).on(table).columns(['tenant_id', 'adv_id']).execute();
    }
    await db.schema
      .createTable('entity_refs')
      .addColumn('from_kind', 'text', (c) => c.notNull())
      .addColumn('from_id', 'integer', (c) => c.notNull())
      .addColumn('field', 'text', (c) => c.notNull())
      .addColumn('to_kind', 'text', (c) => c.notNull())
      .addColumn('to_id', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('entity_refs_pk', ['from_kind', 'from_id', 'field', 'to_kind', 'to_id'])
      .execute();
    await db.schema.createIndex('entity_refs_to').on('entity_refs').columns(['to_kind', 'to_id']).execute();
    // Accounts (subpublishers, advertisers, managers, demand accounts) are archived like any row.
    await db.schema
      .alterTable('users')
      .addColumn('archived', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('users').dropColumn('archived').execute();
    await db.schema.dropTable('entity_refs').ifExists().execute();
    for (const table of Object.values(ENTITY_TABLES)) await db.schema.dropTable(table).ifExists().execute();
  },
});
