import { DIMENSION_COLUMNS, METRIC_COLUMNS } from '../hourlyRow.js';

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
];
