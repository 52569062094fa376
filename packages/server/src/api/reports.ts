import { type FastifyInstance } from 'fastify';
import { DIMENSION_BY_ID, type DimensionId, ReportFileInput, ReportRequest } from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { badField, forbidden, parseInput } from '../http/errors.js';
import { getReport } from '../stats/queries/getReport.js';
import { reportContextOf } from '../stats/queries/reportContext.js';
import { writeReportFile } from '../stats/reportFiles.js';
import { statsScopeOf } from '../stats/scope.js';
import { createSavedReport } from '../store/savedReports.js';
import { type User } from '../store/users.js';

/**
 * What getReport refuses when it runs (admin-only dimensions and filters, entity filters that are not
 * ids), checked before a report is kept: a file runs in the background and a saved report runs later,
 * so without this the caller would get 202 or 201 for a report that can only fail. `at` is where the
 * request sits in the body (`request.`).
 */
export function requireRunnableReport(user: User, report: ReportRequest, at = 'request.'): void {
  const isAdmin = user.type === 'admin';
  for (const [i, id] of report.dimensions.entries()) {
    if (DIMENSION_BY_ID[id].adminOnly && !isAdmin) throw badField(`${at}dimensions.${i}`, `'${id}' is for admins only`);
  }
  for (const [id, values] of Object.entries(report.filters)) {
    const def = DIMENSION_BY_ID[id as DimensionId];
    if (def.adminOnly && !isAdmin) throw badField(`${at}filters.${id}`, 'is for admins only');
    if (def.type === 'entity' && values.some((v) => !Number.isSafeInteger(Number(v)) || Number(v) < 0)) throw badField(`${at}filters.${id}`, 'must be a list of ids');
  }
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
