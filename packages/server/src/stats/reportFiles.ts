import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { type FastifyInstance } from 'fastify';
import { type ReportRequest, reportCsvHeader, reportCsvLine } from '@adplane/shared';
import { updateSavedReport } from '../store/savedReports.js';
import { getReport, type ReportContext } from './queries/getReport.js';

/** The most rows a report file holds. */
export const REPORT_FILE_MAX_ROWS = 1_000_000;

export const reportFilesDir = (dataDir: string) => join(dataDir, 'report-files');
export const reportFilePath = (dataDir: string, fileName: string) => join(reportFilesDir(dataDir), fileName);

const days = (start: string, end: string): string[] => {
  const out: string[] = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
};

/** Lines of CSV made between two turns of the event loop. */
const LINES_A_TURN = 256;

/** Lets the event loop serve what waits (edge requests) between two stretches of a file's work. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The error a cancelled file's work stops with (its saved report was deleted). */
class Cancelled extends Error {}

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
export async function writeReportFile(app: FastifyInstance, id: number, ctx: ReportContext, request: ReportRequest, signal?: AbortSignal): Promise<void> {
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
    const write = async (line: string) => {
      if (!file.write(`${line}\n`)) await once(file, 'drain');
    };
    await write(reportCsvHeader(request.dimensions, request.metrics));
    const byTime = request.dimensions.some((d) => d === 'date' || d === 'hour');
    const inDateOrder = byTime && (!request.sort || ((request.sort.by === 'date' || request.sort.by === 'hour') && request.sort.order === 'asc'));
    const chunks = inDateOrder ? days(request.startDate, request.endDate) : [null];
    // The request's own limit (the rows on screen) holds in its file too; without one, a file goes up to its own maximum.
    const maxRows = request.limit && request.limit > 0 ? Math.min(request.limit, REPORT_FILE_MAX_ROWS) : REPORT_FILE_MAX_ROWS;
    let written = 0;
    for (const [i, day] of chunks.entries()) {
      const part = day ? { ...request, startDate: day, endDate: day } : request;
      // Each part without totals: the file's totals come last, from the whole range.
      await getReport(ctx, part, {
        limit: maxRows - written,
        totals: false,
        onRows: async (rows) => {
          for (let at = 0; at < rows.length; at += LINES_A_TURN) {
            check();
            for (const row of rows.slice(at, at + LINES_A_TURN)) await write(reportCsvLine(request.dimensions, request.metrics, row));
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
    await updateSavedReport(db, id, { status: 'failed', error: (error as Error).message.slice(0, 500) }).catch(() => undefined);
  }
}
