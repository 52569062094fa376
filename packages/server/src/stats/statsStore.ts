import {
  type HourlyRow,
  type HourlyRows,
  type StatsSink,
  DIMENSION_COLUMNS,
  isIdDimension,
  METRIC_COLUMNS,
} from './hourlyRow.js';
import { type SqlDialect } from './reportSql.js';

/**
 * The stats store (docs/architecture.md, "Reports"): the edge appends hourly rows through `write` (StatsSink);
 * reports read through `select` with SQL built by reportSql.ts in the store's dialect. DuckDB under
 * DATA_DIR by default, ClickHouse when CLICKHOUSE_URL is set; both keep numbered migrations.
 */
export interface StatsStore extends StatsSink {
  readonly engine: 'duckdb' | 'clickhouse';
  readonly dialect: SqlDialect;
  /** Run one SELECT; 64-bit sums come back as JS numbers. */
  select(sql: string): Promise<Record<string, unknown>[]>;
  /**
   * Run one SELECT and answer its rows a chunk at a time (a few thousand rows), as the engine reads
   * them: a report file's rows never sit whole in the heap, and the caller can yield between chunks.
   * Stopping early (break) ends the query. Absent, callers chunk what `select` answers.
   */
  selectChunks?(sql: string): AsyncIterable<Record<string, unknown>[]>;
  /**
   * DuckDB: run one SELECT and write its rows, in order, to a Parquet file at `path` (the engine's
   * own threads write it; no row passes through JavaScript). A report file's thread reads it
   * (reportFileThread.ts): the store's file has one owner, so another thread cannot query it.
   */
  exportRows?(sql: string, path: string): Promise<void>;
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
  /** DuckDB's threads; default duckdbThreadsFor(the cores this process may run on). */
  duckdbThreads?: number;
}

export const STATS_TABLE = 'hourly_stats';
const HOUR_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:00:00$/;

/** What a stats column holds: the hour, an id (a whole number >= 0), text, or a metric (a whole number). */
export const HOUR = 0;
export const ID = 1;
export const TEXT = 2;
export const METRIC = 3;
export type ColumnKind = typeof HOUR | typeof ID | typeof TEXT | typeof METRIC;
export const kindOf = (column: string): ColumnKind =>
  column === 'hour'
    ? HOUR
    : (METRIC_COLUMNS as readonly string[]).includes(column)
      ? METRIC
      : isIdDimension(column)
        ? ID
        : TEXT;

/** Whether `v` is a value of a column of `kind`. */
export function fits(kind: ColumnKind, v: unknown): boolean {
  switch (kind) {
    case HOUR:
      return typeof v === 'string' && HOUR_PATTERN.test(v);
    case ID:
      return Number.isSafeInteger(v) && (v as number) >= 0;
    case TEXT:
      return typeof v === 'string';
    default:
      return Number.isSafeInteger(v);
  }
}

/** The error of row `i` whose `column` (of `kind`) holds `v`, a value it does not take. */
export function rowError(i: number, column: string, kind: ColumnKind, v: unknown): Error {
  const rule =
    kind === HOUR
      ? `must be 'YYYY-MM-DD HH:00:00', got ${JSON.stringify(v)}`
      : kind === ID
        ? 'must be a whole number >= 0'
        : kind === TEXT
          ? 'must be text'
          : 'must be a whole number';
  return new Error(`stats row ${i}: ${column} ${rule}`);
}

/** A stats row's columns in the tables' order: the dimensions, then the metrics. */
export const ROW_COLUMNS: readonly (keyof HourlyRow)[] = [...DIMENSION_COLUMNS, ...METRIC_COLUMNS];
const ROW_KINDS: readonly ColumnKind[] = ROW_COLUMNS.map(kindOf);

/** Throws, naming the row and the column, unless `row` (the `i`th of its batch) is a row the stats tables take. */
export function checkRow(row: HourlyRow, i: number): void {
  for (let c = 0; c < ROW_COLUMNS.length; c++) {
    const v = row[ROW_COLUMNS[c]!];
    if (!fits(ROW_KINDS[c]!, v)) throw rowError(i, ROW_COLUMNS[c]!, ROW_KINDS[c]!, v);
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

/** A SELECT's rows a chunk at a time: the store's own chunks, or its whole answer cut in chunks (a store without them). */
export async function* selectInChunks(
  stats: StatsStore,
  sql: string,
  size = 2048,
): AsyncGenerator<Record<string, unknown>[]> {
  if (stats.selectChunks) {
    yield* stats.selectChunks(sql);
    return;
  }
  const all = await stats.select(sql);
  for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size);
}

/** The ClickHouse database a CLICKHOUSE_URL names by its path (`http://host:8123/adplane_eu`); `adplane` when it names none. */
export function clickhouseDatabaseOf(url: string): string {
  return new URL(url).pathname.replace(/^\/+|\/+$/g, '') || 'adplane';
}

export async function openStatsStore(config: StatsStoreConfig): Promise<StatsStore> {
  // the edge's flushes are made into rows, encoded and written on a stats thread (statsThread.ts)
  const { openStatsThread, withFlushThread } = await import('./statsThread.js');
  if (config.clickhouseUrl) {
    const { openClickHouseStore } = await import('./clickhouse/clickhouseStore.js');
    const database = config.clickhouseDatabase ?? clickhouseDatabaseOf(config.clickhouseUrl);
    // the store here has made the database and applied the migrations before the thread opens it
    const store = await openClickHouseStore(config.clickhouseUrl, database);
    return withFlushThread(store, { engine: 'clickhouse', url: config.clickhouseUrl, database });
  }
  // the file's one owner is the thread: every call goes to it
  return openStatsThread({
    engine: 'duckdb',
    dataDir: config.dataDir,
    file: config.duckdbFile ?? 'stats.duckdb',
    threads: config.duckdbThreads,
  });
}
