import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIGINT, DuckDBConnection, DuckDBDataChunk, DuckDBInstance, DuckDBTimestampValue, type DuckDBType, type DuckDBValue, INTEGER, TIMESTAMP, VARCHAR } from '@duckdb/node-api';
import { DIMENSION_COLUMNS, type HourlyRow, METRIC_COLUMNS } from '../hourlyRow.js';
import { duckdbDialect } from '../reportSql.js';
import { ROLLUP_KEY, ROLLUP_TABLE, rollupRows } from '../rollup.js';
import { checkBatch, STATS_TABLE, type StatsStore } from '../statsStore.js';
import { DUCKDB_MIGRATIONS } from './migrations.js';

const ID_COLUMNS = new Set<string>(DIMENSION_COLUMNS.filter((c) => c.endsWith('_id') && c !== 'deal_id' && c !== 'publisher_id'));

/** JS numbers for DuckDB's 64/128-bit sums and decimals; sums of micro-dollars stay below 2^53. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  return value;
}

const READERS = 3;

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;

const hourMicros = (hour: string) => BigInt(Date.parse(`${hour.replace(' ', 'T')}Z`)) * 1000n;

/**
 * The embedded stats store: one DuckDB file under DATA_DIR. Writes go through DuckDB's appender in a
 * transaction (a batch lands whole or not at all), one at a time; reads use their own connection.
 */
export async function openDuckDbStore(dataDir: string, file: string): Promise<StatsStore> {
  let path = ':memory:';
  if (file !== ':memory:') {
    mkdirSync(dataDir, { recursive: true });
    path = join(dataDir, file);
  }
  const instance = await DuckDBInstance.create(path);
  const writer = await DuckDBConnection.create(instance);
  // A few read connections taken in turn: one connection runs one query at a time.
  const readers = await Promise.all(Array.from({ length: READERS }, () => DuckDBConnection.create(instance)));
  let nextReader = 0;
  const reader = () => readers[nextReader++ % readers.length];

  await writer.run('CREATE TABLE IF NOT EXISTS stats_migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp)');
  const appliedRows = (await writer.runAndReadAll('SELECT name FROM stats_migrations ORDER BY name')).getRowObjectsJS();
  const applied = new Set(appliedRows.map((r) => String(r.name)));
  for (const m of DUCKDB_MIGRATIONS) {
    if (applied.has(m.name)) continue;
    await writer.run('BEGIN TRANSACTION');
    try {
      for (const statement of m.sql) await writer.run(statement);
      await writer.run(`INSERT INTO stats_migrations (name) VALUES ('${m.name}')`);
      await writer.run('COMMIT');
    } catch (error) {
      await writer.run('ROLLBACK');
      throw new Error(`Stats migration ${m.name} (DuckDB) failed: ${(error as Error).message}`, { cause: error });
    }
  }

  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  // Column types in table order; rows go in as column vectors (data chunks), far fewer native calls
  // than appending value by value.
  const types: DuckDBType[] = [
    ...DIMENSION_COLUMNS.map((c) => (c === 'hour' ? TIMESTAMP : ID_COLUMNS.has(c) ? INTEGER : VARCHAR)),
    ...METRIC_COLUMNS.map(() => BIGINT),
  ];
  const hourValues = new Map<string, DuckDBTimestampValue>();
  const hourValue = (hour: string) => {
    let v = hourValues.get(hour);
    if (!v) {
      if (hourValues.size > 10_000) hourValues.clear();
      v = new DuckDBTimestampValue(hourMicros(hour));
      hourValues.set(hour, v);
    }
    return v;
  };

  const rollupTypes: DuckDBType[] = [TIMESTAMP, ...ROLLUP_KEY.slice(1).map(() => INTEGER), ...METRIC_COLUMNS.map(() => BIGINT)];

  async function appendTo(table: string, keys: readonly string[], columnTypes: DuckDBType[], rows: readonly HourlyRow[]): Promise<void> {
    const appender = await writer.createAppender(table);
    for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
      const slice = rows.slice(start, start + CHUNK_ROWS);
      const columns: DuckDBValue[][] = [
        ...keys.map((c) => (c === 'hour' ? slice.map((r) => hourValue(r.hour)) : slice.map((r) => r[c as keyof HourlyRow] as DuckDBValue))),
        ...METRIC_COLUMNS.map((c) => slice.map((r) => BigInt(r[c]))),
      ];
      const chunk = DuckDBDataChunk.create(columnTypes, slice.length);
      chunk.setColumns(columns);
      appender.appendDataChunk(chunk);
      // Appending runs on the event loop: let requests in between chunks (the edge writes here
      // every few seconds; a whole batch at once would hold its requests for tens of ms).
      if (start + CHUNK_ROWS < rows.length) await new Promise((resolve) => setImmediate(resolve));
    }
    appender.closeSync();
  }

  async function append(rows: readonly HourlyRow[]): Promise<void> {
    await writer.run('BEGIN TRANSACTION');
    try {
      await appendTo(STATS_TABLE, DIMENSION_COLUMNS, types, rows);
      await appendTo(ROLLUP_TABLE, ROLLUP_KEY, rollupTypes, rollupRows(rows));
      await writer.run('COMMIT');
    } catch (error) {
      await writer.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  let closed = false;
  return {
    engine: 'duckdb',
    dialect: duckdbDialect,
    async write(rows) {
      checkBatch(rows);
      if (rows.length === 0) return;
      await serial(() => append(rows));
    },
    async select(sql) {
      const result = await reader().runAndReadAll(sql);
      return result.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])));
    },
    async exec(sql) {
      await serial(() => writer.run(sql));
    },
    async migrations() {
      return (await reader().runAndReadAll('SELECT name FROM stats_migrations ORDER BY name')).getRowObjectsJS().map((r) => String(r.name));
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      writer.closeSync();
      for (const r of readers) r.closeSync();
      instance.closeSync();
    },
  };
}
