import { METRIC_COLUMNS } from './hourlyRow.js';

/**
 * The rollup's table (rollup.ts says which reports read it), apart from the reports' catalogue so
 * that the stats thread (statsThreadWorker.ts), which writes it, loads none of it.
 *
 * The hourly rollup: the same sums keyed by the few columns the dashboard, finance-free reports by
 * time, channel, tag, subpublisher and advertiser need. It is much smaller than the full row (no geo,
 * device, domain...), so those reports read it instead: the query builder picks it whenever every
 * column a report touches is in it. DuckDB's store adds to it in the write's transaction; ClickHouse
 * fills it with a materialised view.
 */
export const ROLLUP_TABLE = 'hourly_rollup';
/** The rollup's key as migration 0002 made it; 0006 added the A/B arm (a channel's, so a report by channel and arm reads the rollup). */
export const ROLLUP_KEY_0002 = [
  'hour',
  'tenant_id',
  'subpublisher_id',
  'advertiser_id',
  'channel_id',
  'tag_id',
] as const;
export const ROLLUP_KEY = [...ROLLUP_KEY_0002, 'arm'] as const;

/**
 * SQL that sums the full table into the rollup (migrations' backfill, benchmarks after bulk loads).
 * A migration passes the columns and the key the tables had at its number.
 */
export function rollupBackfillSql(
  columns: readonly string[] = METRIC_COLUMNS,
  key: readonly string[] = ROLLUP_KEY,
): string {
  const keys = key.join(', ');
  return `INSERT INTO ${ROLLUP_TABLE} (${keys}, ${columns.join(', ')}) SELECT ${keys}, ${columns.map((c) => `sum(${c})`).join(', ')} FROM hourly_stats GROUP BY ${keys}`;
}

/** ClickHouse's materialised view that fills the rollup from every insert into the full table, over `columns` by `key`. */
export function rollupViewSql(columns: readonly string[], key: readonly string[] = ROLLUP_KEY): string {
  const keys = key.join(', ');
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${ROLLUP_TABLE}_mv TO ${ROLLUP_TABLE} AS SELECT ${keys}, ${columns.map((c) => `sum(${c}) AS ${c}`).join(', ')} FROM hourly_stats GROUP BY ${keys}`;
}
