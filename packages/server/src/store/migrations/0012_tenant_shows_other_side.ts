import { type Kysely, type Migration } from 'kysely';
import { type Dialect } from '../db.js';
import { FLAG_TYPE } from './columns.js';

/**
 * The tenant's choice of what each side of its trade may name in reports (docs/reports.md, "Who sees
 * which numbers"), on the demand account's row: `show_demand_to_subs` lets its subpublishers break
 * down and filter by the demand their traffic was sold to, `show_supply_to_advs` its advertisers by
 * the supply they bought. Both off until the tenant turns them on, so no one sees more than before.
 */
export const tenantShowsOtherSide = (_dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('users')
      .addColumn('show_demand_to_subs', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('users')
      .addColumn('show_supply_to_advs', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('users').dropColumn('show_supply_to_advs').execute();
    await db.schema.alterTable('users').dropColumn('show_demand_to_subs').execute();
  },
});
