import { type Kysely, type Migration, sql } from 'kysely';
import { type Dialect } from '../db.js';
import {
  FLAG_TYPE,
  JSON_TYPE,
  MONEY_TYPE,
  idColumn,
  percentType,
  timestampColumn,
  timestampType,
  timestamps,
} from './columns.js';

/** Accounts and sign-in: users of every type, sessions, app config, UI settings, the activity log. */
export const foundation = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('users')
      .$call(idColumn(dialect))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('email', 'text')
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('uid', 'text')
      .addColumn('token', 'text')
      .addColumn('domain', 'text')
      .addColumn('tenant_id', 'integer', (c) => c.references('users.id'))
      .addColumn('manager_id', 'integer', (c) => c.references('users.id'))
      .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('timezone', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('show_dsp', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('show_postbid_pix', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('show_postbid_wh', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('show_check_ivt', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('show_system_cost', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('tag_params', JSON_TYPE)
      .addColumn('profile', JSON_TYPE, (c) => c.notNull().defaultTo('{}'))
      .addColumn('contacts', JSON_TYPE, (c) => c.notNull().defaultTo('[]'))
      .addColumn('sellers_json', JSON_TYPE)
      .addColumn('price_req', MONEY_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('price_imp', MONEY_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('price_postbid', MONEY_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('price_dsp', percentType(dialect), (c) => c.notNull().defaultTo(0))
      .$call(timestamps(dialect))
      .addCheckConstraint('users_type_check', sql`type in ('admin', 'demand', 'sub', 'adv', 'sdk')`)
      .addCheckConstraint('users_status_check', sql`status in (0, 1)`)
      .addCheckConstraint('users_timezone_check', sql`timezone between -12 and 12`)
      .execute();
    // Sign-in names and e-mails are unique whatever their case; NULL e-mails do not collide.
    await db.schema
      .createIndex('users_username_unique')
      .on('users')
      .unique()
      .expression(sql`lower(username)`)
      .execute();
    await db.schema.createIndex('users_email_unique').on('users').unique().expression(sql`lower(email)`).execute();
    await db.schema.createIndex('users_uid_unique').on('users').unique().column('uid').execute();
    await db.schema.createIndex('users_token_unique').on('users').unique().column('token').execute();
    await db.schema.createIndex('users_tenant').on('users').columns(['tenant_id', 'type']).execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('admin_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('ip', 'text')
      .addColumn('user_agent', 'text')
      .$call(timestampColumn(dialect, 'created_at'))
      .addColumn('expires_at', timestampType(dialect), (c) => c.notNull())
      .$call(timestampColumn(dialect, 'last_seen_at'))
      .execute();
    await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
    await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();

    await db.schema
      .createTable('app_config')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', JSON_TYPE, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('ui_settings')
      .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('tabs', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .execute();

    // No foreign keys: the trail outlives the accounts and rows it describes.
    await db.schema
      .createTable('activity_log')
      .$call(idColumn(dialect))
      .addColumn('tenant_id', 'integer')
      .addColumn('user_id', 'integer')
      .addColumn('admin_id', 'integer')
      .addColumn('entity_kind', 'text', (c) => c.notNull())
      .addColumn('entity_id', 'integer')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('before', JSON_TYPE)
      .addColumn('after', JSON_TYPE)
      .$call(timestampColumn(dialect, 'at'))
      .execute();
    await db.schema.createIndex('activity_log_tenant_at').on('activity_log').columns(['tenant_id', 'at']).execute();
  },

  async down(db: Kysely<unknown>) {
    for (const table of ['activity_log', 'ui_settings', 'app_config', 'sessions', 'users']) {
      await db.schema.dropTable(table).execute();
    }
  },
});
