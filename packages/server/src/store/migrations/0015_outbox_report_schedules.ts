import { type Kysely, type Migration, sql } from 'kysely';
import { type Dialect } from '../db.js';
import { FLAG_TYPE, JSON_TYPE, idColumn, timestampType } from './columns.js';

/**
 * The outbox of outgoing notifications (one row per e-mail or webhook call, with its attempts and
 * the time of the next), and the schedules of saved reports (when each runs next, how the last run went).
 */
export const outboxReportSchedules = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    const ts = timestampType(dialect);
    await db.schema
      .createTable('deliveries')
      .$call(idColumn(dialect))
      .addColumn('tenant_id', 'integer')
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('target', JSON_TYPE, (c) => c.notNull())
      .addColumn('payload', JSON_TYPE, (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_attempts', 'integer', (c) => c.notNull())
      .addColumn('next_at', ts, (c) => c.notNull())
      .addColumn('claim_token', 'text')
      .addColumn('claimed_until', ts)
      .addColumn('last_error', 'text')
      .addColumn('created_at', ts, (c) => c.notNull())
      .addColumn('sent_at', ts)
      .addCheckConstraint('deliveries_kind_check', sql`kind in ('email', 'webhook')`)
      .addCheckConstraint('deliveries_status_check', sql`status in ('pending', 'sending', 'sent', 'failed')`)
      .execute();
    await db.schema.createIndex('deliveries_due').on('deliveries').columns(['status', 'next_at']).execute();
    await db.schema.createIndex('deliveries_source').on('deliveries').columns(['source', 'id']).execute();
    await db.schema
      .createTable('report_schedules')
      .$call(idColumn(dialect))
      .addColumn('saved_report_id', 'integer', (c) => c.notNull().references('saved_reports.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer')
      .addColumn('frequency', 'text', (c) => c.notNull())
      .addColumn('hour', 'integer', (c) => c.notNull())
      .addColumn('weekday', 'integer')
      .addColumn('month_day', 'integer')
      .addColumn('time_zone', 'text', (c) => c.notNull())
      .addColumn('formats', JSON_TYPE, (c) => c.notNull())
      .addColumn('emails', JSON_TYPE, (c) => c.notNull())
      .addColumn('webhook_url', 'text')
      .addColumn('enabled', FLAG_TYPE, (c) => c.notNull().defaultTo(1))
      .addColumn('next_run_at', ts, (c) => c.notNull())
      .addColumn('last_run_at', ts)
      .addColumn('last_outcome', 'text')
      .addColumn('last_error', 'text')
      .addColumn('last_file_id', 'integer')
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', ts, (c) => c.notNull())
      .addColumn('updated_at', ts, (c) => c.notNull())
      .addCheckConstraint('report_schedules_frequency_check', sql`frequency in ('daily', 'weekly', 'monthly')`)
      .execute();
    await db.schema
      .createIndex('report_schedules_report')
      .on('report_schedules')
      .columns(['saved_report_id', 'id'])
      .execute();
    await db.schema
      .createIndex('report_schedules_due')
      .on('report_schedules')
      .columns(['enabled', 'next_run_at'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('report_schedules').execute();
    await db.schema.dropTable('deliveries').execute();
  },
});
