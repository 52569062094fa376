import { DIMENSION_COLUMNS, METRIC_COLUMNS_0001, METRIC_COLUMNS_0003, METRIC_COLUMNS_0004 } from '../hourlyRow.js';
import { ROLLUP_KEY, ROLLUP_TABLE, rollupBackfillSql, rollupViewSql } from '../rollup.js';

/**
 * Numbered migrations of the ClickHouse stats store (Debian's clickhouse-server 18.16: plain types
 * only, no LowCardinality, DateTime64 or TTL). Never edit one that has shipped: add the next number.
 *
 * ClickHouse has no transactions: a step may say `unless` (a SELECT that answers a row when the step
 * is already done), so a migration stopped half-way runs again cleanly. 18.16 knows no
 * `ADD COLUMN IF NOT EXISTS`, hence the check against system.columns.
 */
export type ClickHouseStep = string | { sql: string; unless: string };
const dimensionType = (c: string) =>
  c === 'hour' ? "DateTime('UTC')" : c.endsWith('_id') && c !== 'deal_id' && c !== 'publisher_id' ? 'UInt32' : 'String';

const hasColumn = (table: string, column: string) =>
  `SELECT 1 FROM system.columns WHERE database = currentDatabase() AND table = '${table}' AND name = '${column}'`;

export const CLICKHOUSE_MIGRATIONS: { name: string; sql: ClickHouseStep[] }[] = [
  {
    name: '0001_hourly_stats',
    sql: [
      `CREATE TABLE IF NOT EXISTS hourly_stats (
        ${DIMENSION_COLUMNS.map((c) => `${c} ${dimensionType(c)}`).join(',\n        ')},
        ${METRIC_COLUMNS_0001.map((c) => `${c} Int64`).join(',\n        ')}
      ) ENGINE = MergeTree() PARTITION BY toYYYYMM(hour) ORDER BY (tenant_id, hour, channel_id, tag_id)`,
    ],
  },
  {
    // SummingMergeTree folds rows of one key as it merges; reports still sum, so unmerged parts read right.
    name: '0002_hourly_rollup',
    sql: [
      `CREATE TABLE IF NOT EXISTS ${ROLLUP_TABLE} (
        ${ROLLUP_KEY.map((c) => `${c} ${dimensionType(c)}`).join(',\n        ')},
        ${METRIC_COLUMNS_0001.map((c) => `${c} Int64`).join(',\n        ')}
      ) ENGINE = SummingMergeTree() PARTITION BY toYYYYMM(hour) ORDER BY (tenant_id, hour, subpublisher_id, advertiser_id, channel_id, tag_id)`,
      rollupViewSql(METRIC_COLUMNS_0001),
      rollupBackfillSql(METRIC_COLUMNS_0001),
    ],
  },
  {
    // A demand tag's requests and opportunities (docs/ad-server.md, Counters); rows stored before read 0.
    // The materialised view names its columns, so it is made again over the new list (18.16 cannot
    // change a view's query). The store applies migrations at open, before it writes.
    name: '0003_source_reqs_opps',
    sql: [
      ...['hourly_stats', ROLLUP_TABLE].flatMap((table) =>
        METRIC_COLUMNS_0003.map((c) => ({
          sql: `ALTER TABLE ${table} ADD COLUMN ${c} Int64`,
          unless: hasColumn(table, c),
        })),
      ),
      `DROP TABLE IF EXISTS ${ROLLUP_TABLE}_mv`,
      rollupViewSql([...METRIC_COLUMNS_0001, ...METRIC_COLUMNS_0003]),
    ],
  },
  {
    // Post-bid pixels' verdicts (docs/traffic-quality.md, Post-bid pixels): rows stored before read 0;
    // the rollup's view is made again over the longer list, as 0003 did.
    name: '0004_postbid_ivt',
    sql: [
      ...['hourly_stats', ROLLUP_TABLE].flatMap((table) =>
        METRIC_COLUMNS_0004.map((c) => ({
          sql: `ALTER TABLE ${table} ADD COLUMN ${c} Int64`,
          unless: hasColumn(table, c),
        })),
      ),
      `DROP TABLE IF EXISTS ${ROLLUP_TABLE}_mv`,
      rollupViewSql([...METRIC_COLUMNS_0001, ...METRIC_COLUMNS_0003, ...METRIC_COLUMNS_0004]),
    ],
  },
];
