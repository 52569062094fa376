import { type Kysely, type Migration } from 'kysely';
import { type Dialect } from '../db.js';
import { FLAG_TYPE, idColumn, timestampType } from './columns.js';

/**
 * Two-factor sign-in (docs/security.md, "Two-factor sign-in"): one row per account that has begun or
 * finished enrolment (`two_factor`: the TOTP secret encrypted, `enabled_at` null until the account
 * confirmed a code, `last_time_step` the newest TOTP step accepted, so a code is never taken twice),
 * its recovery codes (`recovery_codes`: sha256 of each, `used_at` once spent), and the tenant's
 * requirement on the demand account's row (`require_two_factor`).
 */
export const twoFactor = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('two_factor')
      .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('secret_enc', 'text', (c) => c.notNull())
      .addColumn('enabled_at', timestampType(dialect))
      .addColumn('last_time_step', 'bigint')
      .addColumn('created_at', timestampType(dialect), (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('recovery_codes')
      .$call(idColumn(dialect))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('used_at', timestampType(dialect))
      .execute();
    await db.schema.createIndex('recovery_codes_user').on('recovery_codes').columns(['user_id', 'digest']).execute();
    await db.schema
      .alterTable('users')
      .addColumn('require_two_factor', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('users').dropColumn('require_two_factor').execute();
    await db.schema.dropTable('recovery_codes').execute();
    await db.schema.dropTable('two_factor').execute();
  },
});
