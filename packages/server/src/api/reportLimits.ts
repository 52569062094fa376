import { type FastifyInstance } from 'fastify';
import { type SavedReport } from '@adplane/shared';
import { HttpError } from '../http/errors.js';
import { closeReportFileThread } from '../stats/reportFiles.js';
import { LineFull, type WorkLine } from '../stats/reportQueue.js';
import { updateSavedReport } from '../store/savedReports.js';

const files = (n: number) => `${n} report file${n === 1 ? '' : 's'}`;

/** A 429 that says what is in line and what to do (docs/reports.md, "Limits"). */
export function lineFullAnswer(error: LineFull, what: 'file' | 'run'): HttpError {
  if (what === 'run') {
    return error.reason === 'user'
      ? new HttpError(
          429,
          `You have ${error.running + error.waiting} reports running or waiting: wait for them to finish, then run this one again.`,
          undefined,
          { 'retry-after': '5' },
        )
      : new HttpError(429, 'The server is running as many reports as it can: try again in a few seconds.', undefined, {
          'retry-after': '5',
        });
  }
  return error.reason === 'user'
    ? new HttpError(
        429,
        `You have ${files(error.running + error.waiting)} in line (${error.running} being written, ${error.waiting} waiting): wait for one to finish, or delete a waiting one in the bell, then try again.`,
      )
    : new HttpError(429, `${files(error.waiting)} are waiting on this server: try again in a few minutes.`, undefined, {
        'retry-after': '60',
      });
}

/** Refuses (429) a file the user has no room for in line, before anything is kept. */
export function requireFileRoom(line: WorkLine, userId: number): void {
  const mine = line.countOf(userId);
  if (mine.running + mine.waiting >= line.limits.perUser)
    throw lineFullAnswer(new LineFull('user', mine.running, mine.waiting), 'file');
}

/** A file's place in line as the API answers it: 'waiting' with the files ahead of it while it waits. */
export function withLineState<T extends Pick<SavedReport, 'id' | 'file' | 'status'>>(line: WorkLine, report: T): T {
  if (!report.file || report.status !== 'running') return report;
  const at = line.stateOf(report.id);
  return at?.state === 'waiting' ? { ...report, status: 'waiting', ahead: at.ahead } : report;
}

/**
 * On close: the files still waiting never start here; each is marked failed, saying so, and the
 * files being written are finished first; then the report-file thread ends.
 */
export function closeFileLine(app: FastifyInstance): void {
  app.addHook('onClose', async () => {
    const dropped = await app.reportLines.files.close();
    await closeReportFileThread(app);
    for (const id of dropped) {
      await updateSavedReport(app.store.db, id, {
        status: 'failed',
        error: 'The server stopped before this file was written: run it again.',
      }).catch(() => undefined);
    }
  });
}
