import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBConnection, DuckDBInstance, DuckDBTimestampValue } from '@duckdb/node-api';
import { DIMENSION_COLUMNS, type HourlyRow, METRIC_COLUMNS } from '../hourlyRow.js';
import { duckdbDialect } from '../reportSql.js';
import { checkBatch, STATS_TABLE, type StatsStore } from '../statsStore.js';
import { DUCKDB_MIGRATIONS } from './migrations.js';

const ID_COLUMNS = new Set<string>(DIMENSION_COLUMNS.filter((c) => c.endsWith('_id') && c !== 'deal_id' && c !== 'publisher_id'));

/** JS numbers for DuckDB's 64/128-bit sums and decimals; sums of micro-dollars stay below 2^53. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  return value;
}

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
  const reader = await DuckDBConnection.create(instance);

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

  async function append(rows: readonly HourlyRow[]): Promise<void> {
    await writer.run('BEGIN TRANSACTION');
    try {
      const appender = await writer.createAppender(STATS_TABLE);
      for (const row of rows) {
        for (const c of DIMENSION_COLUMNS) {
          if (c === 'hour') appender.appendTimestamp(new DuckDBTimestampValue(hourMicros(row.hour)));
          else if (ID_COLUMNS.has(c)) appender.appendInteger(row[c] as number);
          else appender.appendVarchar(row[c] as string);
        }
        for (const c of METRIC_COLUMNS) appender.appendBigInt(BigInt(row[c]));
        appender.endRow();
      }
      appender.closeSync();
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
      const result = await reader.runAndReadAll(sql);
      return result.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])));
    },
    async migrations() {
      return (await reader.runAndReadAll('SELECT name FROM stats_migrations ORDER BY name')).getRowObjectsJS().map((r) => String(r.name));
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      writer.closeSync();
      reader.closeSync();
      instance.closeSync();
    },
  };
}
