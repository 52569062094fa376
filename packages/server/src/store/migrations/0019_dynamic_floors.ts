import { type Kysely, type Migration } from 'kysely';
import { type Dialect } from '../db.js';
import { JSON_TYPE, timestampType } from './columns.js';

/**
 * Dynamic floors (docs/ad-server.md, "Dynamic floors"): one row per channel whose floor follows its
 * clearing prices, holding the floor table the api role last computed for it (`floors`, with what it
 * was computed for and when), when the next computation is due (`next_run_at`), and until when a
 * computation under way holds it (`leased_until`: of several api processes, the one that set it).
 */
export const dynamicFloors = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('dynamic_floors')
      .addColumn('channel_id', 'integer', (c) => c.primaryKey().references('supply_channels.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('computed_for', JSON_TYPE)
      .addColumn('floors', JSON_TYPE)
      .addColumn('computed_at', timestampType(dialect))
      .addColumn('next_run_at', timestampType(dialect), (c) => c.notNull())
      .addColumn('leased_until', timestampType(dialect))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('dynamic_floors').execute();
  },
});
