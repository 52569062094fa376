/**
 * The report-file thread (started by reportFileThread.ts): it turns a file's rows into CSV lines and
 * writes them, so that none of that work (reading the engine's chunks into objects, the metrics, the
 * CSV text, the collector's work on them) runs on the thread that serves the edge.
 *
 * Rows come from a Parquet file the stats store wrote (DuckDB: the store's file has one owner, the
 * serving thread's instance, which exports a file's rows with its own threads), read here by an
 * in-memory DuckDB of the thread's own (ClickHouse's files are made on the serving thread, a chunk of
 * rows at a time: the query's work is the ClickHouse server's).
 * Entity names are asked of the serving thread (it holds the config store), once per id a file.
 *
 * The thread runs at the lowest priority (Linux applies it to the calling thread only): on a busy
 * core the kernel runs the serving thread first and this one with what is left.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { constants, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import {
  DIMENSION_BY_ID,
  type DimensionId,
  nameField,
  NO_DEMAND_ID,
  NO_DEMAND_NAME,
  type ReportRequest,
  type ReportRow,
  reportCsvHeader,
  reportCsvLine,
} from '@adplane/shared';
import { reportRowOf } from './queries/reportRow.js';
import { type FromThread, type RowSource, type ToThread } from './reportFileProtocol.js';

const port = parentPort!;

if (process.platform === 'linux') {
  try {
    setPriority(0, constants.priority.PRIORITY_LOW);
  } catch {
    // a system that refuses it: the thread runs at the process's priority
  }
}

/** The error a cancelled job's work stops with. */
class Cancelled extends Error {}

interface Job {
  request: ReportRequest;
  file: WriteStream;
  /** Whether the serving thread names entity ids (it has a config store). */
  named: boolean;
  /** Names known for each entity dimension ('' for id 0, `#id` for an id without one). */
  names: Map<DimensionId, Map<number, string>>;
  cancelled: boolean;
}

const jobs = new Map<number, Job>();
const send = (message: FromThread) => port.postMessage(message);

let nextAsk = 0;
const asked = new Map<number, (names: [number, string][]) => void>();

function askNames(job: number, dimension: DimensionId, ids: number[]): Promise<[number, string][]> {
  const ask = nextAsk++;
  return new Promise((resolve) => {
    asked.set(ask, resolve);
    send({ t: 'names', job, ask, dimension, ids });
  });
}

/** Entity dimensions' names beside their ids (`<id>_name`), as getReport's addNames writes them. */
async function addNames(jobId: number, job: Job, rows: ReportRow[]): Promise<void> {
  for (const id of job.request.dimensions) {
    if (!DIMENSION_BY_ID[id].entityKind) continue;
    let known = job.names.get(id);
    if (!known)
      job.names.set(
        id,
        (known = new Map([
          [0, ''],
          [NO_DEMAND_ID, NO_DEMAND_NAME],
        ])),
      );
    const unknown = [...new Set(rows.map((r) => r[id] as number))].filter((v) => !known.has(v));
    if (unknown.length) {
      const named = new Map(await askNames(jobId, id, unknown));
      for (const v of unknown) known.set(v, named.get(v) ?? `#${String(v)}`);
    }
    for (const r of rows) r[nameField(id)] = known.get(r[id] as number)!;
  }
}

let duckdb: Promise<DuckDBInstance> | null = null;
/** The thread's own DuckDB, in memory, one thread: it only reads the Parquet files the store wrote. */
const duckdbInstance = () => (duckdb ??= DuckDBInstance.create(':memory:', { threads: '1' }));

/** JS numbers for 64-bit integers, as the store's own reads answer them. */
const plainRow = (row: Record<string, unknown>): Record<string, unknown> => {
  for (const k in row) if (typeof row[k] === 'bigint') row[k] = Number(row[k]);
  return row;
};

async function* chunksOf(source: RowSource): AsyncGenerator<Record<string, unknown>[]> {
  // a connection a file: a streamed result holds its connection until it is read, and another
  // file's query on it would end this one's
  const connection = await DuckDBConnection.create(await duckdbInstance());
  try {
    const result = await connection.stream(`SELECT * FROM read_parquet('${source.parquet.replaceAll("'", "''")}')`);
    for await (const rows of result.yieldRowObjectJs()) yield rows.map(plainRow);
  } finally {
    connection.closeSync();
  }
}

async function write(job: Job, text: string): Promise<void> {
  if (job.cancelled) throw new Cancelled();
  if (!job.file.write(text)) await once(job.file, 'drain');
}

/** Writes the rows of `source` (in order, already limited by its query); answers how many. */
async function writeRows(jobId: number, job: Job, source: RowSource): Promise<number> {
  let written = 0;
  for await (const raw of chunksOf(source)) {
    if (job.cancelled) throw new Cancelled();
    const rows = raw.map((r) => reportRowOf(job.request, r));
    if (job.named) await addNames(jobId, job, rows);
    let text = '';
    for (const row of rows) text += `${reportCsvLine(job.request.dimensions, job.request.metrics, row)}\n`;
    await write(job, text);
    written += rows.length;
  }
  return written;
}

async function answer(message: Extract<ToThread, { t: 'call' }>): Promise<unknown> {
  const { job: jobId, op } = message;
  if (op.kind === 'open') {
    const file = createWriteStream(op.path);
    const job: Job = { request: op.request, file, named: op.named, names: new Map(), cancelled: false };
    jobs.set(jobId, job);
    // an error of the file (disk full) fails the job's next write, not the thread
    file.on('error', () => undefined);
    await write(job, `${reportCsvHeader(op.request.dimensions, op.request.metrics)}\n`);
    return null;
  }
  const job = jobs.get(jobId);
  if (!job) throw new Error(`report file job ${jobId} is not open`);
  if (op.kind === 'rows') return writeRows(jobId, job, op.source);
  if (op.totals) await write(job, `${reportCsvLine(job.request.dimensions, job.request.metrics, op.totals)}\n`);
  job.file.end();
  await once(job.file, 'finish');
  jobs.delete(jobId);
  return null;
}

port.on('message', (message: ToThread) => {
  if (message.t === 'names') {
    asked.get(message.ask)?.(message.names);
    asked.delete(message.ask);
  } else if (message.t === 'cancel') {
    const job = jobs.get(message.job);
    jobs.delete(message.job);
    if (job) {
      job.cancelled = true;
      job.file.destroy();
    }
  } else {
    answer(message).then(
      (value) => send({ t: 'reply', id: message.id, ok: true, value }),
      (error: unknown) => {
        if (!(error instanceof Cancelled)) {
          jobs.get(message.job)?.file.destroy();
          jobs.delete(message.job);
        }
        send({
          t: 'reply',
          id: message.id,
          ok: false,
          error: (error as Error).message,
          cancelled: error instanceof Cancelled,
        });
      },
    );
  }
});
