import { type Kysely, type Migration, sql } from 'kysely';
import { type Dialect } from '../db.js';
import { FLAG_TYPE, JSON_TYPE, idColumn, timestamps } from './columns.js';

/**
 * Saved reports and report files: a user's named report request, or
 * a CSV file a long report was written to under DATA_DIR, with the progress of its background run.
 */
export const savedReports = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('saved_reports')
      .$call(idColumn(dialect))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('ivt', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .addColumn('request', JSON_TYPE, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('ready'))
      .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(100))
      .addColumn('error', 'text')
      .addColumn('file_name', 'text')
      .addColumn('archived', FLAG_TYPE, (c) => c.notNull().defaultTo(0))
      .$call(timestamps(dialect))
      .addCheckConstraint('saved_reports_kind_check', sql`kind in ('report', 'file')`)
      .addCheckConstraint('saved_reports_status_check', sql`status in ('ready', 'running', 'failed')`)
      .execute();
    await db.schema.createIndex('saved_reports_user').on('saved_reports').columns(['user_id', 'id']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('saved_reports').execute();
  },
});
