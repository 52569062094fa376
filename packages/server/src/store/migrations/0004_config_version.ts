import { type Kysely, type Migration } from 'kysely';
import { type Dialect } from '../db.js';
import { MONEY_TYPE } from './columns.js';

/**
 * One row counting config writes. Every write to what the edge serves bumps it in the same
 * transaction (through `recordActivity`), so the edge's snapshot watches one number instead of
 * every table: a version it has not compiled yet means "rebuild".
 */
export const configVersion = (_dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('config_version')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('version', MONEY_TYPE, (c) => c.notNull().defaultTo(0))
      .execute();
    await db
      .insertInto('config_version' as never)
      .values({ id: 1, version: 0 } as never)
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('config_version').execute();
  },
});
