import { type HourlyRow, type HourlyRows, type StatsSink, DIMENSION_COLUMNS, isIdDimension, METRIC_COLUMNS } from './hourlyRow.js';
import { type SqlDialect } from './reportSql.js';

/**
 * The stats store (DESIGN.md, stats plane): the edge appends hourly rows through `write` (StatsSink);
 * reports read through `select` with SQL built by reportSql.ts in the store's dialect. DuckDB under
 * DATA_DIR by default, ClickHouse when CLICKHOUSE_URL is set; both keep numbered migrations.
 */
export interface StatsStore extends StatsSink {
  readonly engine: 'duckdb' | 'clickhouse';
  readonly dialect: SqlDialect;
  /** Run one SELECT; 64-bit sums come back as JS numbers. */
  select(sql: string): Promise<Record<string, unknown>[]>;
  /** Run one statement that answers no rows (maintenance, benchmarks' bulk generation). */
  exec(sql: string): Promise<void>;
  /** Names of the applied migrations, in order. */
  migrations(): Promise<string[]>;
  /** DuckDB: writes a batch a worker already encoded (duckdb/csvBatch.ts batchCsv), as `write` does its rows. */
  writeCsv?(csv: string): Promise<void>;
  close(): Promise<void>;
}

export interface StatsStoreConfig {
  dataDir: string;
  clickhouseUrl: string | null;
  /** ClickHouse database (created when missing); tests use one per file. Default 'adplane'. */
  clickhouseDatabase?: string;
  /** DuckDB file name under dataDir; default 'stats.duckdb'. ':memory:' keeps it in memory. */
  duckdbFile?: string;
}

export const STATS_TABLE = 'hourly_stats';
export const HOUR_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:00:00$/;

/** Throws, naming the row and the column, unless `row` (the `i`th of its batch) is a row the stats tables take. */
export function checkRow(row: HourlyRow, i: number): void {
  if (typeof row.hour !== 'string' || !HOUR_PATTERN.test(row.hour)) throw new Error(`stats row ${i}: hour must be 'YYYY-MM-DD HH:00:00', got ${JSON.stringify(row.hour)}`);
  for (const c of DIMENSION_COLUMNS) {
    if (c === 'hour') continue;
    const v = row[c];
    if (isIdDimension(c)) {
      if (!Number.isSafeInteger(v) || (v as number) < 0) throw new Error(`stats row ${i}: ${c} must be a whole number >= 0`);
    } else if (typeof v !== 'string') throw new Error(`stats row ${i}: ${c} must be text`);
  }
  for (const c of METRIC_COLUMNS) {
    if (!Number.isSafeInteger(row[c])) throw new Error(`stats row ${i}: ${c} must be a whole number`);
  }
}

/**
 * The edge's rows are checked whole before any is written, so a bad batch writes nothing; answers
 * them as an array (a store that keeps the rows while it writes takes this copy, not the batch).
 */
export function checkBatch(rows: HourlyRows): HourlyRow[] {
  const list = Array.from(rows);
  for (let i = 0; i < list.length; i++) checkRow(list[i]!, i);
  return list;
}

export async function openStatsStore(config: StatsStoreConfig): Promise<StatsStore> {
  if (config.clickhouseUrl) {
    const { openClickHouseStore } = await import('./clickhouse/clickhouseStore.js');
    return openClickHouseStore(config.clickhouseUrl, config.clickhouseDatabase ?? 'adplane');
  }
  const { openDuckDbStore } = await import('./duckdb/duckdbStore.js');
  return openDuckDbStore(config.dataDir, config.duckdbFile ?? 'stats.duckdb');
}
