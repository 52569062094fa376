import { type FastifyInstance } from 'fastify';
import { ReportFileInput, ReportRequest } from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { forbidden, parseInput } from '../http/errors.js';
import { checkRunnable, getReport } from '../stats/queries/getReport.js';
import { reportContextOf } from '../stats/queries/reportContext.js';
import { writeReportFile } from '../stats/reportFiles.js';
import { statsScopeOf } from '../stats/scope.js';
import { createSavedReport } from '../store/savedReports.js';
import { type User } from '../store/users.js';

/** A report the caller could not run, refused before it is kept (a file runs later in the background, a saved report later). */
export function requireRunnableReport(user: User, report: ReportRequest): void {
  checkRunnable(report, user.type === 'admin', 'request.');
}

/**
 * Running reports (spec section 7, POST /api/rrun): rows then the totals row last, scoped to what the
 * user may see. A long report goes to a file instead (POST /api/rfile): it runs in the background and
 * lands in the bell as a CSV.
 */
export async function reportRoutes(app: FastifyInstance): Promise<void> {
  const running = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...running]);
  });

  app.post('/api/rrun', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    if (!statsScopeOf(user)) throw forbidden('Reports are not available to this user');
    const report = parseInput(ReportRequest, request.body);
    return getReport(await reportContextOf(app, user, report), report);
  });

  app.post('/api/rfile', { config: { guard: 'auth' } }, async (request, reply) => {
    const { user } = requireAuth(request);
    if (!statsScopeOf(user)) throw forbidden('Reports are not available to this user');
    const input = parseInput(ReportFileInput, request.body);
    requireRunnableReport(user, input.request);
    const ctx = await reportContextOf(app, user, input.request);
    const saved = await createSavedReport(app.store.db, {
      userId: user.id, tenantId: user.type === 'admin' ? null : tenantIdOf(user), name: input.name, kind: 'file', ivt: false, request: input.request, running: true,
    });
    const job = writeReportFile(app, saved.id, ctx, input.request).finally(() => running.delete(job));
    running.add(job);
    const { userId: _u, fileName: _f, ...answer } = saved;
    return reply.code(202).send(answer);
  });
}
