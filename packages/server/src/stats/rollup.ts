import { DIMENSION_BY_ID, type DimensionId, METRIC_BY_ID, type ReportRequest } from '@adplane/shared';
import { demandCountingOf } from './demandCounting.js';
import { METRIC_COLUMNS } from './hourlyRow.js';
import { type StatsScope } from './reportSql.js';

/**
 * The hourly rollup: the same sums keyed by the few columns the dashboard, finance-free reports by
 * time, channel, tag, subpublisher and advertiser need. It is much smaller than the full row (no geo,
 * device, domain...), so those reports read it instead: the query builder picks it whenever every
 * column a report touches is in it. DuckDB's store adds to it in the write's transaction; ClickHouse
 * fills it with a materialised view.
 */
export const ROLLUP_TABLE = 'hourly_rollup';
export const ROLLUP_KEY = ['hour', 'tenant_id', 'subpublisher_id', 'advertiser_id', 'channel_id', 'tag_id'] as const;

const ROLLUP_COLUMNS = new Set<string>(ROLLUP_KEY);

/**
 * SQL that sums the full table into the rollup (migrations' backfill, benchmarks after bulk loads).
 * A migration passes the columns the tables had at its number.
 */
export function rollupBackfillSql(columns: readonly string[] = METRIC_COLUMNS): string {
  const keys = ROLLUP_KEY.join(', ');
  return `INSERT INTO ${ROLLUP_TABLE} (${keys}, ${columns.join(', ')}) SELECT ${keys}, ${columns.map((c) => `sum(${c})`).join(', ')} FROM hourly_stats GROUP BY ${keys}`;
}

/** ClickHouse's materialised view that fills the rollup from every insert into the full table, over `columns`. */
export function rollupViewSql(columns: readonly string[]): string {
  const keys = ROLLUP_KEY.join(', ');
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${ROLLUP_TABLE}_mv TO ${ROLLUP_TABLE} AS SELECT ${keys}, ${columns.map((c) => `sum(${c}) AS ${c}`).join(', ')} FROM hourly_stats GROUP BY ${keys}`;
}

/** Whether a report can read the rollup: every dimension, filter and scope column is in it, and no metric needs more. */
export function rollupAnswers(request: ReportRequest, scope: StatsScope): boolean {
  void scope; // tenant, subpublisher and advertiser scoping are all rollup columns
  const inRollup = (id: DimensionId) => ROLLUP_COLUMNS.has(DIMENSION_BY_ID[id].column);
  if (!request.dimensions.every(inRollup)) return false;
  if (!Object.keys(request.filters).every((id) => inRollup(id as DimensionId))) return false;
  // A report of demand tells the rows of requests apart by their campaign and ad exchange, which the
  // rollup does not keep, unless a filter keeps only real demand (demandCounting.ts).
  if (demandCountingOf(request).noDemandRow) return false;
  // The system cost splits DSP revenue by campaign, which the rollup does not keep.
  return request.metrics.every((id) => METRIC_BY_ID[id].compute.kind !== 'systemCost');
}
