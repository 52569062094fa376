import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { type FastifyInstance } from 'fastify';
import { DIMENSION_BY_ID, type ReportRequest, reportCsvHeader, reportCsvLine } from '@adplane/shared';
import { updateSavedReport } from '../store/savedReports.js';
import { entityNames } from './queries/entityNames.js';
import { getReport, reportRowsQuery, type ReportContext } from './queries/getReport.js';
import { type RowSource } from './reportFileProtocol.js';
import { JobCancelled, ReportFileThread } from './reportFileThread.js';

/** The most rows a report file holds. */
const REPORT_FILE_MAX_ROWS = 1_000_000;

export const reportFilesDir = (dataDir: string) => join(dataDir, 'report-files');
export const reportFilePath = (dataDir: string, fileName: string) => join(reportFilesDir(dataDir), fileName);

const days = (start: string, end: string): string[] => {
  const out: string[] = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
};

/** Lines of CSV made between two turns of the event loop. */
const LINES_A_TURN = 256;

/** Lets the event loop serve what waits (edge requests) between two stretches of a file's work. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The error a cancelled file's work stops with (its saved report was deleted). */
class Cancelled extends Error {}

/** The parts a file's rows are read in: a day at a time for a report by date or hour in date order, else one. */
function partsOf(request: ReportRequest): (ReportRequest | null)[] {
  const byTime = request.dimensions.some((d) => d === 'date' || d === 'hour');
  const inDateOrder =
    byTime &&
    (!request.sort || ((request.sort.by === 'date' || request.sort.by === 'hour') && request.sort.order === 'asc'));
  return inDateOrder
    ? days(request.startDate, request.endDate).map((day) => ({ ...request, startDate: day, endDate: day }))
    : [null];
}

/** The request's own limit (the rows on screen) holds in its file too; without one, a file goes up to its own maximum. */
const maxRowsOf = (request: ReportRequest) =>
  request.limit && request.limit > 0 ? Math.min(request.limit, REPORT_FILE_MAX_ROWS) : REPORT_FILE_MAX_ROWS;

const threads = new WeakMap<FastifyInstance, ReportFileThread>();

/** Ends the app's report-file thread, if it has one (after the line finished the files being written). */
export async function closeReportFileThread(app: FastifyInstance): Promise<void> {
  await threads.get(app)?.close();
  threads.delete(app);
}

/** Where the thread reads a part's rows: a Parquet file the store writes (DuckDB); null when the store offers none. */
function rowSourceOf(ctx: ReportContext): ((sql: string, path: string) => Promise<RowSource>) | null {
  const stats = ctx.stats;
  if (stats.exportRows) {
    const exportRows = stats.exportRows.bind(stats);
    return async (sql, path) => {
      await exportRows(sql, path);
      return { parquet: path };
    };
  }
  // ClickHouse's rows come to the serving thread a chunk at a time (writeOnLoop): the query's work is
  // the ClickHouse server's, and the lines are made 256 a turn
  return null;
}

/**
 * Write a long report to a CSV file under DATA_DIR in the background, recording progress on the saved
 * report row. A report by date or hour (in date order) runs a day at a time, so progress is real and
 * memory stays flat; any other runs as one query. The totals row is last, as on screen.
 *
 * Rows come from the engine a chunk (about 2,000 rows) at a time and each chunk's lines are written
 * before the next is read, with a turn of the event loop every 256 lines: the edge's requests in the
 * same process wait at most that stretch's work, never a whole answer's. `signal` stops it between two
 * chunks (the file was deleted); it then removes what it wrote and leaves the row alone.
 */
export async function writeReportFile(
  app: FastifyInstance,
  id: number,
  ctx: ReportContext,
  request: ReportRequest,
  signal?: AbortSignal,
): Promise<void> {
  const source = app.settings.reportFilesThread ? rowSourceOf(ctx) : null;
  if (source) return writeInThread(app, id, ctx, request, source, signal);
  return writeOnLoop(app, id, ctx, request, signal);
}

/**
 * The file made by the report-file thread (reportFileThread.ts): the store answers each part's rows
 * as a Parquet file (DuckDB, on its own threads) or the thread reads them from ClickHouse itself, and
 * the thread makes and writes the CSV. This thread only runs the queries, names entity ids the
 * thread has not seen, writes the totals' one row and records progress. A deleted file stops at the
 * thread's next chunk.
 */
async function writeInThread(
  app: FastifyInstance,
  id: number,
  ctx: ReportContext,
  request: ReportRequest,
  source: (sql: string, path: string) => Promise<RowSource>,
  signal?: AbortSignal,
): Promise<void> {
  const db = app.store.db;
  const fileName = `report-${id}.csv`;
  const path = reportFilePath(app.settings.dataDir, fileName);
  // a file of its own for each part: the thread's DuckDB may keep what it read of a path (its file
  // cache), so a part written where the one before was would be read as stale, damaged blocks
  const partPath = (i: number) => `${path}.part${i}.parquet`;
  let part = partPath(0);
  let thread = threads.get(app);
  if (!thread) threads.set(app, (thread = new ReportFileThread()));
  const names = ctx.db;
  const job = thread.job(
    names ? (dimension, ids) => entityNames(names, DIMENSION_BY_ID[dimension].entityKind!, ids) : null,
  );
  let ended = false;
  const check = () => {
    if (signal?.aborted) throw new Cancelled();
  };
  try {
    check();
    mkdirSync(reportFilesDir(app.settings.dataDir), { recursive: true });
    await job.open(path, request);
    const parts = partsOf(request);
    const maxRows = maxRowsOf(request);
    let written = 0;
    for (const [i, partRequest] of parts.entries()) {
      const sql = reportRowsQuery(ctx, partRequest ?? request, maxRows - written);
      part = partPath(i);
      if (sql) {
        try {
          written += await job.rows(await source(sql, part), signal);
        } finally {
          await rm(part, { force: true });
        }
      }
      check();
      await updateSavedReport(db, id, { progress: Math.floor(((i + 1) / parts.length) * 95) });
      if (written >= maxRows) break;
    }
    const totals = (await getReport({ ...ctx }, { ...request, dimensions: [] })).at(-1);
    check();
    await job.close(totals ?? null);
    await updateSavedReport(db, id, { status: 'ready', progress: 100, fileName });
  } catch (error) {
    // the thread drops the file's stream before the file is removed
    job.end(true);
    ended = true;
    await rm(part, { force: true }).catch(() => undefined);
    await rm(path, { force: true }).catch(() => undefined);
    if (error instanceof Cancelled || error instanceof JobCancelled) return;
    app.log.error({ err: error, reportId: id }, 'report file failed');
    await updateSavedReport(db, id, { status: 'failed', error: (error as Error).message.slice(0, 500) }).catch(
      () => undefined,
    );
  } finally {
    if (!ended) job.end(false);
  }
}

/** The file made on this thread, 256 lines a turn (ADPLANE_REPORT_FILES_THREAD=0, or a store with neither Parquet export nor ClickHouse). */
async function writeOnLoop(
  app: FastifyInstance,
  id: number,
  ctx: ReportContext,
  request: ReportRequest,
  signal?: AbortSignal,
): Promise<void> {
  const db = app.store.db;
  const fileName = `report-${id}.csv`;
  const path = reportFilePath(app.settings.dataDir, fileName);
  let stream: WriteStream | undefined;
  const check = () => {
    if (signal?.aborted) throw new Cancelled();
  };
  try {
    check();
    mkdirSync(reportFilesDir(app.settings.dataDir), { recursive: true });
    const file = createWriteStream(path);
    stream = file;
    // A write still under way when the file is dropped (the report deleted, the disk full) ends in an
    // 'error' on the stream; the next write or the wait for 'drain' fails the job, never the process.
    file.on('error', () => undefined);
    const write = async (line: string) => {
      if (file.errored) throw file.errored;
      if (!file.write(`${line}\n`)) await once(file, 'drain');
    };
    await write(reportCsvHeader(request.dimensions, request.metrics));
    const chunks = partsOf(request);
    const maxRows = maxRowsOf(request);
    let written = 0;
    for (const [i, day] of chunks.entries()) {
      const part = day ?? request;
      // Each part without totals: the file's totals come last, from the whole range.
      await getReport(ctx, part, {
        limit: maxRows - written,
        totals: false,
        onRows: async (rows) => {
          for (let at = 0; at < rows.length; at += LINES_A_TURN) {
            check();
            for (const row of rows.slice(at, at + LINES_A_TURN))
              await write(reportCsvLine(request.dimensions, request.metrics, row));
            await turn();
          }
          written += rows.length;
        },
      });
      check();
      await updateSavedReport(db, id, { progress: Math.floor(((i + 1) / chunks.length) * 95) });
      if (written >= maxRows) break;
    }
    const totals = (await getReport({ ...ctx }, { ...request, dimensions: [] })).at(-1);
    check();
    if (totals) await write(reportCsvLine(request.dimensions, request.metrics, totals));
    file.end();
    await once(file, 'finish');
    await updateSavedReport(db, id, { status: 'ready', progress: 100, fileName });
  } catch (error) {
    stream?.destroy();
    await rm(path, { force: true }).catch(() => undefined);
    if (error instanceof Cancelled) return;
    app.log.error({ err: error, reportId: id }, 'report file failed');
    await updateSavedReport(db, id, { status: 'failed', error: (error as Error).message.slice(0, 500) }).catch(
      () => undefined,
    );
  }
}
