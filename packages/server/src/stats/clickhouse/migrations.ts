import { DIMENSION_COLUMNS, METRIC_COLUMNS } from '../hourlyRow.js';
import { ROLLUP_KEY, ROLLUP_TABLE, rollupBackfillSql } from '../rollup.js';

/**
 * Numbered migrations of the ClickHouse stats store (Debian's clickhouse-server 18.16: plain types
 * only, no LowCardinality, DateTime64 or TTL). Never edit one that has shipped: add the next number.
 */
const dimensionType = (c: string) =>
  c === 'hour' ? "DateTime('UTC')" : c.endsWith('_id') && c !== 'deal_id' && c !== 'publisher_id' ? 'UInt32' : 'String';

export const CLICKHOUSE_MIGRATIONS: { name: string; sql: string[] }[] = [
  {
    name: '0001_hourly_stats',
    sql: [
      `CREATE TABLE IF NOT EXISTS hourly_stats (
        ${DIMENSION_COLUMNS.map((c) => `${c} ${dimensionType(c)}`).join(',\n        ')},
        ${METRIC_COLUMNS.map((c) => `${c} Int64`).join(',\n        ')}
      ) ENGINE = MergeTree() PARTITION BY toYYYYMM(hour) ORDER BY (tenant_id, hour, channel_id, tag_id)`,
    ],
  },
  {
    // SummingMergeTree folds rows of one key as it merges; reports still sum, so unmerged parts read right.
    name: '0002_hourly_rollup',
    sql: [
      `CREATE TABLE IF NOT EXISTS ${ROLLUP_TABLE} (
        ${ROLLUP_KEY.map((c) => `${c} ${dimensionType(c)}`).join(',\n        ')},
        ${METRIC_COLUMNS.map((c) => `${c} Int64`).join(',\n        ')}
      ) ENGINE = SummingMergeTree() PARTITION BY toYYYYMM(hour) ORDER BY (tenant_id, hour, subpublisher_id, advertiser_id, channel_id, tag_id)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${ROLLUP_TABLE}_mv TO ${ROLLUP_TABLE} AS SELECT ${ROLLUP_KEY.join(', ')}, ${METRIC_COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', ')} FROM hourly_stats GROUP BY ${ROLLUP_KEY.join(', ')}`,
      rollupBackfillSql(),
    ],
  },
];
