import { type Kysely, type Migration, sql } from 'kysely';
import { type Dialect } from '../db.js';
import { ENTITY_TABLES } from '../entityTables.js';
import { FLAG_TYPE, JSON_TYPE, idColumn, jsonFieldExpression, timestampType, timestamps } from './columns.js';

const TABLE = ENTITY_TABLES.supplydeals;
/** The JSON fields its list page sorts by (the kind's `sortable`). */
const SORT_FIELDS = ['dealId', 'floorCpm'];

/**
 * Supply deals (the SSP's deals for buyers): one entity table of the shape `0002_inventory` gives
 * every kind, with the list indexes of `0003_list_indexes` and the `(updated_at)` index of
 * `0010_updated_at_indexes` (the edge's snapshot reads the kind). On a fresh store 0002 and 0003 made
 * the table and its list indexes already (they loop over every entity table): each step is `ifNotExists`.
 */
export const supplyDeals = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable(TABLE)
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
    const index = (suffix: string) => db.schema.createIndex(`${TABLE}_${suffix}`).ifNotExists().on(TABLE);
    await index('uid_unique').unique().column('uid').execute();
    await index('tenant_list').columns(['tenant_id', 'archived', 'status', 'name']).execute();
    await index('tenant_sub').columns(['tenant_id', 'sub_id']).execute();
    await index('tenant_adv').columns(['tenant_id', 'adv_id']).execute();
    await index('tenant_name').columns(['tenant_id', 'archived', 'name', 'id']).execute();
    await index('tenant_recent').columns(['tenant_id', 'archived', 'id']).execute();
    await index('tenant_updated').columns(['tenant_id', 'archived', 'updated_at', 'id']).execute();
    for (const field of SORT_FIELDS)
      await index(`tenant_${field.toLowerCase()}`)
        .columns(['tenant_id', 'archived'])
        .expression(sql.raw(jsonFieldExpression(dialect, field)))
        .column('id')
        .execute();
    await index('updated_at').column('updated_at').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable(TABLE).ifExists().execute();
  },
});
