import { type Kysely, type Migration } from 'kysely';
import { type Dialect } from '../db.js';
import { FLAG_TYPE, idColumn, timestampColumn, timestampType } from './columns.js';

/**
 * API keys: a user's keys for `Authorization: Bearer <key>` on /api (docs/security.md, "API keys").
 * The key itself is never stored: `secret_hash` is the sha256 (hex) of the whole key, unique, which is
 * what a request's key is looked up by; `prefix` is its first characters, shown so people can tell
 * their keys apart. `tenant_id` is the owner's tenant when the key was made (null for an admin).
 */
export const apiKeys = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('api_keys')
      .$call(idColumn(dialect))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('read_only', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .$call(timestampColumn(dialect, 'created_at'))
      .addColumn('last_used_at', timestampType(dialect))
      .addColumn('revoked_at', timestampType(dialect))
      .execute();
    await db.schema.createIndex('api_keys_user').on('api_keys').columns(['user_id', 'id']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('api_keys').execute();
  },
});
