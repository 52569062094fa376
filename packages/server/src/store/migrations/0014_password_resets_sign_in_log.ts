import { type Kysely, type Migration, sql } from 'kysely';
import { type Dialect } from '../db.js';
import { idColumn, timestampType } from './columns.js';

/**
 * Password resets by an e-mailed link (one row per link, the token kept as its sha256) and the
 * sign-in log (one row per sign-in attempt or password event of an account, kept 90 days).
 */
export const passwordResetsSignInLog = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('password_resets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('ip', 'text')
      .addColumn('created_at', timestampType(dialect), (c) => c.notNull())
      .addColumn('expires_at', timestampType(dialect), (c) => c.notNull())
      .addColumn('used_at', timestampType(dialect))
      .execute();
    await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
    await db.schema
      .createTable('sign_in_log')
      .$call(idColumn(dialect))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('at', timestampType(dialect), (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addCheckConstraint(
        'sign_in_log_outcome_check',
        sql`outcome in ('success', 'failure', 'password_changed', 'password_reset')`,
      )
      .execute();
    await db.schema.createIndex('sign_in_log_user_at').on('sign_in_log').columns(['user_id', 'at']).execute();
    await db.schema.createIndex('sign_in_log_at').on('sign_in_log').column('at').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('sign_in_log').execute();
    await db.schema.dropTable('password_resets').execute();
  },
});
