import {
  DIMENSION_COLUMNS_0001,
  type HourlyDimensions,
  METRIC_COLUMNS_0001,
  METRIC_COLUMNS_0003,
  METRIC_COLUMNS_0004,
  METRIC_COLUMNS_0007,
} from '../hourlyRow.js';
import { ROLLUP_KEY, ROLLUP_KEY_0002, ROLLUP_TABLE, rollupBackfillSql, rollupViewSql } from '../rollup.js';

/**
 * Numbered migrations of the ClickHouse stats store. Never edit one that has shipped: add the next
 * number. The SQL keeps to what Debian's clickhouse-server 18.16 accepts (no DateTime64, TTL or
 * `IF NOT EXISTS` on columns); what a newer server adds is asked for by the migration that needs it
 * (`needs`), and the table's types follow the server (`ClickHouseServer`).
 *
 * ClickHouse has no transactions: a step may say `unless` (a SELECT that answers a row when the step
 * is already done), so a migration stopped half-way runs again cleanly. 18.16 knows no
 * `ADD COLUMN IF NOT EXISTS`, hence the check against system.columns.
 */
type ClickHouseStep = string | { sql: string; unless: string; settings?: Readonly<Record<string, string | number>> };

export interface ClickHouseMigration {
  name: string;
  sql: ClickHouseStep[];
  /**
   * A capability of the server the migration needs. On a server without it the migration is neither
   * run nor recorded: it runs at the first start on a server that has it (an upgraded ClickHouse).
   */
  needs?: 'lowCardinality';
}

/** What the server at hand can do, read from its version (`SELECT version()`). */
export interface ClickHouseServer {
  readonly version: string;
  /**
   * `LowCardinality(String)` columns: from 19.3 (February 2019). 18.x has the type only behind the
   * experimental setting allow_experimental_low_cardinality_type (off by default; 18.16 refuses a
   * table with such a column without it), which a store must not depend on.
   */
  readonly lowCardinality: boolean;
}

export function clickHouseServerOf(version: string): ClickHouseServer {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  return { version, lowCardinality: major > 19 || (major === 19 && minor >= 3) };
}

/**
 * The text dimensions stored as `LowCardinality(String)` where the server has it: each holds a few
 * to a few thousand distinct values (device and OS names, ISO countries and subdivision codes, the
 * edge's integration names, VAST error codes and no-fill reasons, Prebid partner codes, marketplace
 * names and the deals a tenant negotiated), where a dictionary per part makes them smaller on disk
 * and lets GROUP BY and filters work on its numbers. The others stay String: `app_bundle`, `domain`
 * and `publisher_id` come from the traffic and have millions of values, past which ClickHouse's
 * dictionaries cost more than they save (its documentation puts the bound at about 100,000).
 * Migration 0005 converts these; the A/B arm (two values), added by 0006, is made with the type.
 */
const LOW_CARDINALITY_COLUMNS = [
  'partner',
  'deal_id',
  'marketplace_name',
  'country',
  'region',
  'us_state',
  'device',
  'os',
  'browser',
  'integration',
  'vast_error',
  'nofill_reason',
] as const satisfies readonly (keyof HourlyDimensions)[];
const LOW_CARDINALITY: ReadonlySet<string> = new Set<string>([...LOW_CARDINALITY_COLUMNS, 'arm']);

/** The ClickHouse type of a dimension column on `server`. */
function dimensionType(column: string, server: ClickHouseServer): string {
  if (column === 'hour') return "DateTime('UTC')";
  if (column.endsWith('_id') && column !== 'deal_id' && column !== 'publisher_id') return 'UInt32';
  return server.lowCardinality && LOW_CARDINALITY.has(column) ? 'LowCardinality(String)' : 'String';
}

const hasColumn = (table: string, column: string) =>
  `SELECT 1 FROM system.columns WHERE database = currentDatabase() AND table = '${table}' AND name = '${column}'`;

/** The store's migrations on `server`: a new database is created with the types the server has. */
export function clickHouseMigrations(server: ClickHouseServer): ClickHouseMigration[] {
  const typeOf = (c: string) => dimensionType(c, server);
  return [
    {
      name: '0001_hourly_stats',
      sql: [
        `CREATE TABLE IF NOT EXISTS hourly_stats (
          ${DIMENSION_COLUMNS_0001.map((c) => `${c} ${typeOf(c)}`).join(',\n        ')},
          ${METRIC_COLUMNS_0001.map((c) => `${c} Int64`).join(',\n        ')}
        ) ENGINE = MergeTree() PARTITION BY toYYYYMM(hour) ORDER BY (tenant_id, hour, channel_id, tag_id)`,
      ],
    },
    {
      // SummingMergeTree folds rows of one key as it merges; reports still sum, so unmerged parts read right.
      name: '0002_hourly_rollup',
      sql: [
        `CREATE TABLE IF NOT EXISTS ${ROLLUP_TABLE} (
          ${ROLLUP_KEY_0002.map((c) => `${c} ${typeOf(c)}`).join(',\n        ')},
          ${METRIC_COLUMNS_0001.map((c) => `${c} Int64`).join(',\n        ')}
        ) ENGINE = SummingMergeTree() PARTITION BY toYYYYMM(hour) ORDER BY (tenant_id, hour, subpublisher_id, advertiser_id, channel_id, tag_id)`,
        rollupViewSql(METRIC_COLUMNS_0001, ROLLUP_KEY_0002),
        rollupBackfillSql(METRIC_COLUMNS_0001, ROLLUP_KEY_0002),
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
        rollupViewSql([...METRIC_COLUMNS_0001, ...METRIC_COLUMNS_0003], ROLLUP_KEY_0002),
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
        rollupViewSql([...METRIC_COLUMNS_0001, ...METRIC_COLUMNS_0003, ...METRIC_COLUMNS_0004], ROLLUP_KEY_0002),
      ],
    },
    {
      // Text dimensions of few values as LowCardinality(String) (LOW_CARDINALITY_COLUMNS), on a
      // database made with plain String (by 0001 on a server without the type, or before it). One
      // ALTER converts them all. Not waiting for it (replication_alter_partitions_sync = 0, the name
      // every server from 19.3 knows; alter_sync in newer ones) lets the start go on while the server
      // rewrites the parts in the background (system.mutations): a part not yet rewritten is read
      // through the new type, so every answer stays the same meanwhile.
      name: '0005_low_cardinality',
      needs: 'lowCardinality',
      sql: [
        {
          sql: `ALTER TABLE hourly_stats ${LOW_CARDINALITY_COLUMNS.map((c) => `MODIFY COLUMN ${c} LowCardinality(String)`).join(', ')}`,
          unless: `SELECT n FROM (SELECT count() AS n FROM system.columns WHERE database = currentDatabase() AND table = 'hourly_stats' AND type = 'LowCardinality(String)' AND name IN (${LOW_CARDINALITY_COLUMNS.map((c) => `'${c}'`).join(', ')})) WHERE n = ${LOW_CARDINALITY_COLUMNS.length}`,
          settings: { replication_alter_partitions_sync: 0 },
        },
      ],
    },
    {
      // The A/B arm that served a request (docs/reports.md, Dimensions): rows stored before read ''
      // (no arm). The rollup keeps it in its key: a SummingMergeTree folds rows of one sorting key,
      // so the arm joins the sorting key in the same ALTER that adds it (the one change of a sorting
      // key ClickHouse allows); its view is made again by the longer key.
      name: '0006_arm',
      sql: [
        { sql: `ALTER TABLE hourly_stats ADD COLUMN arm ${typeOf('arm')}`, unless: hasColumn('hourly_stats', 'arm') },
        {
          sql: `ALTER TABLE ${ROLLUP_TABLE} ADD COLUMN arm ${typeOf('arm')}, MODIFY ORDER BY (tenant_id, hour, subpublisher_id, advertiser_id, channel_id, tag_id, arm)`,
          unless: hasColumn(ROLLUP_TABLE, 'arm'),
        },
        `DROP TABLE IF EXISTS ${ROLLUP_TABLE}_mv`,
        rollupViewSql([...METRIC_COLUMNS_0001, ...METRIC_COLUMNS_0003, ...METRIC_COLUMNS_0004], ROLLUP_KEY),
      ],
    },
    {
      // Supply deals' requests (docs/reports.md, Requests and fill by scope): rows stored before read
      // 0; the rollup's view is made again over the longer list, as 0003 did.
      name: '0007_deal_reqs',
      sql: [
        ...['hourly_stats', ROLLUP_TABLE].flatMap((table) =>
          METRIC_COLUMNS_0007.map((c) => ({
            sql: `ALTER TABLE ${table} ADD COLUMN ${c} Int64`,
            unless: hasColumn(table, c),
          })),
        ),
        `DROP TABLE IF EXISTS ${ROLLUP_TABLE}_mv`,
        rollupViewSql([...METRIC_COLUMNS_0001, ...METRIC_COLUMNS_0003, ...METRIC_COLUMNS_0004, ...METRIC_COLUMNS_0007]),
      ],
    },
  ];
}

/** A server without LowCardinality (Debian's 18.16): its tables have plain String columns. */
export const PLAIN_SERVER = clickHouseServerOf('18.16.1');
