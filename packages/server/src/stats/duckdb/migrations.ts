import {
  DIMENSION_COLUMNS_0001,
  METRIC_COLUMNS_0001,
  METRIC_COLUMNS_0003,
  METRIC_COLUMNS_0004,
  METRIC_COLUMNS_0007,
} from '../hourlyRow.js';
import { ROLLUP_KEY_0002, ROLLUP_TABLE, rollupBackfillSql } from '../rollupTable.js';

/**
 * Numbered migrations of the DuckDB stats store, applied in order at open. Never edit one that has
 * shipped: add the next number. The ClickHouse store has its own list under the same numbers.
 */
const dimensionType = (c: string) =>
  c === 'hour'
    ? 'TIMESTAMP NOT NULL'
    : c.endsWith('_id') && c !== 'deal_id' && c !== 'publisher_id'
      ? 'INTEGER NOT NULL'
      : "VARCHAR NOT NULL DEFAULT ''";

export const DUCKDB_MIGRATIONS: { name: string; sql: string[] }[] = [
  {
    name: '0001_hourly_stats',
    sql: [
      `CREATE TABLE hourly_stats (
        ${DIMENSION_COLUMNS_0001.map((c) => `${c} ${dimensionType(c)}`).join(',\n        ')},
        ${METRIC_COLUMNS_0001.map((c) => `${c} BIGINT NOT NULL DEFAULT 0`).join(',\n        ')}
      )`,
    ],
  },
  {
    name: '0002_hourly_rollup',
    sql: [
      `CREATE TABLE ${ROLLUP_TABLE} (
        ${ROLLUP_KEY_0002.map((c) => `${c} ${dimensionType(c)}`).join(',\n        ')},
        ${METRIC_COLUMNS_0001.map((c) => `${c} BIGINT NOT NULL DEFAULT 0`).join(',\n        ')}
      )`,
      rollupBackfillSql(METRIC_COLUMNS_0001, ROLLUP_KEY_0002),
    ],
  },
  {
    // A demand tag's requests and opportunities (docs/ad-server.md, Counters); rows stored before read 0.
    // DuckDB adds a column with a default, then makes it NOT NULL like the others.
    name: '0003_source_reqs_opps',
    sql: ['hourly_stats', ROLLUP_TABLE].flatMap((table) =>
      METRIC_COLUMNS_0003.flatMap((c) => [
        `ALTER TABLE ${table} ADD COLUMN ${c} BIGINT DEFAULT 0`,
        `ALTER TABLE ${table} ALTER COLUMN ${c} SET NOT NULL`,
      ]),
    ),
  },
  {
    // Post-bid pixels' verdicts (docs/traffic-quality.md, Post-bid pixels): rows stored before read 0.
    name: '0004_postbid_ivt',
    sql: ['hourly_stats', ROLLUP_TABLE].flatMap((table) =>
      METRIC_COLUMNS_0004.flatMap((c) => [
        `ALTER TABLE ${table} ADD COLUMN ${c} BIGINT DEFAULT 0`,
        `ALTER TABLE ${table} ALTER COLUMN ${c} SET NOT NULL`,
      ]),
    ),
  },
  {
    // The A/B arm that served a request (docs/reports.md, Dimensions), on the full rows and in the
    // rollup's key: rows stored before read '' (no arm), as a channel without a split's do.
    name: '0006_arm',
    sql: ['hourly_stats', ROLLUP_TABLE].flatMap((table) => [
      `ALTER TABLE ${table} ADD COLUMN arm VARCHAR DEFAULT ''`,
      `ALTER TABLE ${table} ALTER COLUMN arm SET NOT NULL`,
    ]),
  },
  {
    // Supply deals' requests (docs/reports.md, Requests and fill by scope): rows stored before read 0.
    name: '0007_deal_reqs',
    sql: ['hourly_stats', ROLLUP_TABLE].flatMap((table) =>
      METRIC_COLUMNS_0007.flatMap((c) => [
        `ALTER TABLE ${table} ADD COLUMN ${c} BIGINT DEFAULT 0`,
        `ALTER TABLE ${table} ALTER COLUMN ${c} SET NOT NULL`,
      ]),
    ),
  },
];
