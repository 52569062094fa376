import { mkdirSync, mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { isIdDimension, METRIC_COLUMNS } from '../hourlyRow.js';
import { ROLLUP_KEY, ROLLUP_TABLE } from '../rollupTable.js';
import { coalescedWrites } from '../coalescedWrites.js';
import { STATS_TABLE, type StatsStore } from '../statsStore.js';
import { batchCsv, CSV_COLUMNS } from './csvBatch.js';
import { DUCKDB_MIGRATIONS } from './migrations.js';

/** JS numbers for DuckDB's 64/128-bit sums and decimals; sums of micro-dollars stay below 2^53. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  return value;
}

const plainRow = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)]));

/**
 * DuckDB's threads in a process that may run on `cores` cores: one fewer than the cores, so that a
 * report's query (which takes every thread DuckDB has) leaves the event loop's core room to serve the
 * edge. On 2 cores with report files beside VAST, one thread was as good or better for VAST's tail
 * and wrote the files sooner (bench/reportFiles.bench.ts; docs/performance.md, "Report files beside
 * the edge").
 */
const duckdbThreadsFor = (cores: number): number => Math.max(1, cores - 1);

const READERS = 3;

/**
 * The embedded stats store: one DuckDB file under DATA_DIR. Writes go in as CSV text in a transaction
 * (a batch lands whole or not at all), one at a time, batches written meanwhile joined into the next;
 * reads use their own connections. Without the dialect the reports' SQL is built in (duckdbStore.ts
 * adds it): the stats thread that opens the file (statsThreadWorker.ts) loads none of the reports' code.
 */
export async function openDuckDbFile(
  dataDir: string,
  file: string,
  threads = duckdbThreadsFor(availableParallelism()),
): Promise<Omit<StatsStore, 'dialect'>> {
  let path = ':memory:';
  if (file !== ':memory:') {
    mkdirSync(dataDir, { recursive: true });
    path = join(dataDir, file);
  }
  // DuckDB sizes its thread pool by the machine's cores; a process allowed fewer (an edge pinned to
  // one core, a container's CPU set) would run that many threads on what it has, each waiting on the
  // others: a batch's insert cost twice the CPU on one core with two threads. The threads follow the
  // cores the process may run on, one fewer (duckdbThreadsFor). With one thread, its
  // work runs on whichever of libuv's threads calls it, so its allocator is told to hand memory back
  // after any task that peaked past 16 MB (its default, 128 MB, let resident memory grow ~60 MB in
  // the edge bench). docs/performance.md, the edge section.
  const instance = await DuckDBInstance.create(path, { threads: String(threads), allocator_flush_threshold: '16MB' });
  const writer = await DuckDBConnection.create(instance);
  // A few read connections taken in turn: one connection runs one query at a time.
  const readers = await Promise.all(Array.from({ length: READERS }, () => DuckDBConnection.create(instance)));
  let nextReader = 0;
  const reader = () => readers[nextReader++ % readers.length];

  await writer.run(
    'CREATE TABLE IF NOT EXISTS stats_migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp)',
  );
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

  // A batch goes to DuckDB as a CSV file that an INSERT ... SELECT FROM read_csv reads: DuckDB parses
  // and stores it on its own threads, so the event loop (serving ads) only builds the text and writes
  // the file. The appender this replaced ran its flush on the event loop: 45-100 ms per batch.
  const incoming =
    path === ':memory:' ? mkdtempSync(join(tmpdir(), 'adplane-stats-')) : join(dataDir, 'stats-incoming');
  mkdirSync(incoming, { recursive: true });
  const csvColumns = `{${CSV_COLUMNS.map((c) => `'${c}': '${c === 'hour' ? 'TIMESTAMP' : isIdDimension(c) ? 'INTEGER' : (METRIC_COLUMNS as readonly string[]).includes(c) ? 'BIGINT' : 'VARCHAR'}'`).join(', ')}}`;
  let fileNo = 0;

  /** Writes CSV text of whole rows (batchCsv) in one transaction: the stored rows and the rollup. */
  async function append(csv: Buffer): Promise<void> {
    const file = join(incoming, `batch-${process.pid}-${++fileNo}.csv`);
    await writeFile(file, csv);
    const source = `read_csv('${file.replaceAll("'", "''")}', header = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, auto_detect = false, columns = ${csvColumns})`;
    const keys = ROLLUP_KEY.join(', ');
    try {
      await writer.run('BEGIN TRANSACTION');
      try {
        await writer.run(`INSERT INTO ${STATS_TABLE} (${CSV_COLUMNS.join(', ')}) SELECT * FROM ${source}`);
        await writer.run(
          `INSERT INTO ${ROLLUP_TABLE} (${keys}, ${METRIC_COLUMNS.join(', ')}) SELECT ${keys}, ${METRIC_COLUMNS.map((c) => `sum(${c})`).join(', ')} FROM ${source} GROUP BY ${keys}`,
        );
        await writer.run('COMMIT');
      } catch (error) {
        await writer.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      await rm(file, { force: true });
    }
  }

  // batches written while one is stored wait and go together (coalescedWrites.ts), in turn with exec
  // a batch waits as bytes outside V8's heap: while DuckDB stores the one before, a waiting batch
  // would otherwise outlive the young generation and fill the old one (docs/performance.md)
  const appendCsv = coalescedWrites<Buffer>((parts) =>
    serial(() => append(parts.length === 1 ? parts[0]! : Buffer.concat(parts))),
  );

  /** A batch already encoded (batchCsv), from this process or a worker's. */
  const writeCsv = (csv: string): Promise<void> => (csv ? appendCsv(Buffer.from(csv, 'utf8')) : Promise.resolve());

  let closed = false;
  return {
    engine: 'duckdb',
    write(rows) {
      // the text is made now, on the caller's turn, each row checked as it is read (a bad batch
      // writes nothing): a batch is encoded once, whichever write carries it. Not an async
      // function: its frame would keep the rows alive until the write lands.
      let csv: string;
      try {
        csv = batchCsv(rows);
      } catch (error) {
        return Promise.reject(error);
      }
      return writeCsv(csv);
    },
    writeCsv,
    async select(sql) {
      const result = await reader().runAndReadAll(sql);
      return result.getRowObjectsJS().map(plainRow);
    },
    async *selectChunks(sql) {
      // a connection of its own: a streamed result holds its connection until it is read, and a
      // reader's next query would end it
      const connection = await DuckDBConnection.create(instance);
      try {
        const result = await connection.stream(sql);
        for await (const rows of result.yieldRowObjectJs()) yield rows.map(plainRow);
      } finally {
        connection.closeSync();
      }
    },
    async exportRows(sql, file) {
      // a connection of its own, as selectChunks: a long export holds no reader the console's reports wait on
      const connection = await DuckDBConnection.create(instance);
      try {
        await connection.run(`COPY (${sql}) TO '${file.replaceAll("'", "''")}' (FORMAT parquet)`);
      } finally {
        connection.closeSync();
      }
    },
    async exec(sql) {
      await serial(() => writer.run(sql));
    },
    async migrations() {
      return (await reader().runAndReadAll('SELECT name FROM stats_migrations ORDER BY name'))
        .getRowObjectsJS()
        .map((r) => String(r.name));
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      writer.closeSync();
      for (const r of readers) r.closeSync();
      instance.closeSync();
      if (path === ':memory:') await rm(incoming, { recursive: true, force: true });
    },
  };
}
