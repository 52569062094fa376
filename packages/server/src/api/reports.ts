import { type FastifyInstance } from 'fastify';
import { ReportFileInput, ReportRequest, withPresetDates } from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { forbidden, parseInput } from '../http/errors.js';
import { checkRunnable, getReport } from '../stats/queries/getReport.js';
import { reportContextOf } from '../stats/queries/reportContext.js';
import { writeReportFile } from '../stats/reportFiles.js';
import { statsScopeOf, statsViewerOf } from '../stats/scope.js';
import { LineFull, type LineState } from '../stats/reportQueue.js';
import { createSavedReport, deleteSavedReport } from '../store/savedReports.js';
import { closeFileLine, lineFullAnswer, requireFileRoom } from './reportLimits.js';
import { type Store } from '../store/db.js';
import { type User } from '../store/users.js';

type Db = Store['db'];

/** A report the caller could not run, refused before it is kept (a file runs later in the background, a saved report later). */
export async function requireRunnableReport(db: Db, user: User, report: ReportRequest): Promise<void> {
  checkRunnable(report, await statsViewerOf(db, user), 'request.');
}

/**
 * Running reports (POST /api/rrun): rows then the totals row last, scoped to what the
 * user may see. A long report goes to a file instead (POST /api/rfile): it runs in the background and
 * lands in the bell as a CSV.
 */
export async function reportRoutes(app: FastifyInstance): Promise<void> {
  closeFileLine(app);

  app.post('/api/rrun', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    if (!statsScopeOf(user)) throw forbidden('Reports are not available to this user');
    // a rolling report (datePreset) covers its preset's days as of the server's clock, whatever dates it carries
    const report = withPresetDates(parseInput(ReportRequest, request.body), app.clock.now());
    const ctx = await reportContextOf(app, user, report);
    return app.reportLines.runs
      .run(user.id, () => getReport(ctx, report))
      .catch((error: unknown) => {
        throw error instanceof LineFull ? lineFullAnswer(error, 'run') : error;
      });
  });

  app.post('/api/rfile', { config: { guard: 'auth' } }, async (request, reply) => {
    const { user } = requireAuth(request);
    if (!statsScopeOf(user)) throw forbidden('Reports are not available to this user');
    const parsed = parseInput(ReportFileInput, request.body);
    // a file holds the numbers of the day it is written: a rolling report's preset is fixed to its range now
    const { datePreset: _rolling, ...fixed } = withPresetDates(parsed.request, app.clock.now());
    const input = { ...parsed, request: fixed };
    await requireRunnableReport(app.store.db, user, input.request);
    const ctx = await reportContextOf(app, user, input.request);
    requireFileRoom(app.reportLines.files, user.id);
    const saved = await createSavedReport(app.store.db, {
      userId: user.id,
      tenantId: user.type === 'admin' ? null : tenantIdOf(user),
      name: input.name,
      kind: 'file',
      ivt: false,
      request: input.request,
      running: true,
    });
    let at: LineState;
    try {
      at = app.reportLines.files.add(user.id, saved.id, (signal) =>
        writeReportFile(app, saved.id, ctx, input.request, signal),
      );
    } catch (error) {
      // another request of the user's took the last place meanwhile
      await deleteSavedReport(app.store.db, saved.id);
      throw error instanceof LineFull ? lineFullAnswer(error, 'file') : error;
    }
    const { userId: _u, fileName: _f, ...answer } = saved;
    return reply.code(202).send(at.state === 'waiting' ? { ...answer, status: 'waiting', ahead: at.ahead } : answer);
  });
}
