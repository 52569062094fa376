import { type Kysely, type Migration, sql } from 'kysely';
import { type Dialect } from '../db.js';
import { FLAG_TYPE, idColumn, JSON_TYPE, percentType, timestamps, timestampType } from './columns.js';

/**
 * Alerts (docs/alerts.md): a tenant's rules over report metrics, with the next check each is due
 * (claimed by one process at a time), and the episodes they open and close with the numbers that
 * fired them. At most one episode of a rule and subject is open: a partial unique index holds it.
 */
export const alerts = (dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('alert_rules')
      .$call(idColumn(dialect))
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('builtin', 'text')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('enabled', FLAG_TYPE, (c) => c.notNull().defaultTo(1))
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('scope_kind', 'text', (c) => c.notNull())
      .addColumn('scope_id', 'integer')
      .addColumn('condition', JSON_TYPE, (c) => c.notNull())
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('every_minutes', 'integer', (c) => c.notNull())
      .addColumn('min_volume', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('notify', JSON_TYPE, (c) => c.notNull())
      .addColumn('next_check_at', timestampType(dialect), (c) => c.notNull())
      .addColumn('last_check_at', timestampType(dialect))
      .$call(timestamps(dialect))
      .addCheckConstraint('alert_rules_period_check', sql`period in ('hour', 'day')`)
      .execute();
    await db.schema
      .createIndex('alert_rules_builtin')
      .unique()
      .on('alert_rules')
      .columns(['tenant_id', 'builtin'])
      .execute();
    await db.schema.createIndex('alert_rules_due').on('alert_rules').columns(['enabled', 'next_check_at']).execute();
    await db.schema
      .createTable('alert_episodes')
      .$call(idColumn(dialect))
      .addColumn('rule_id', 'integer', (c) => c.notNull().references('alert_rules.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('subject_kind', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'integer', (c) => c.notNull())
      .addColumn('subject_name', 'text', (c) => c.notNull())
      .addColumn('fired_at', timestampType(dialect), (c) => c.notNull())
      .addColumn('cleared_at', timestampType(dialect))
      .addColumn('value', percentType(dialect), (c) => c.notNull())
      .addColumn('threshold', percentType(dialect), (c) => c.notNull())
      .addColumn('comparison', percentType(dialect))
      .addColumn('clear_value', percentType(dialect))
      .addColumn('detail', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('alert_episodes_open')
      .unique()
      .on('alert_episodes')
      .columns(['rule_id', 'subject_id'])
      .where(sql.ref('cleared_at'), 'is', null)
      .execute();
    await db.schema.createIndex('alert_episodes_tenant').on('alert_episodes').columns(['tenant_id', 'id']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('alert_episodes').execute();
    await db.schema.dropTable('alert_rules').execute();
  },
});
