import { type FastifyInstance } from 'fastify';
import { RESOURCES, ReportRequest, RowStatsQuery } from '@adplane/shared';
import { requireEntitled } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { forbidden, parseInput } from '../http/errors.js';
import { accessTo } from '../resources/access.js';
import { getRowStats } from '../stats/queries/getRowStats.js';
import { reportContextOf } from '../stats/queries/reportContext.js';
import { statsScopeOf } from '../stats/scope.js';

/**
 * The numbers beside a list's rows (GET /api/rowStats?kind=channels&period=today&ids=1,2,3), loaded
 * by the console after the rows. Scoped like POST /api/rrun (a sub sees its channels' numbers, an adv
 * its own), and only for a kind of rows the user may list in its mode and edition.
 */
export async function rowStatsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/rowStats', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    const scope = statsScopeOf(user);
    if (!scope) throw forbidden('Numbers are not available to this user');
    const query = parseInput(RowStatsQuery, request.query);
    const def = RESOURCES[query.kind];
    if (accessTo(def, user).level === 'none') throw forbidden(`${def.plural} are not open to you`);
    await requireEntitled(app, user, query.kind);
    const probe = ReportRequest.parse({ startDate: '2000-01-01', endDate: '2000-01-01', metrics: ['imps'] });
    const ctx = await reportContextOf(app, user, probe);
    return getRowStats(ctx, app.store.db, {
      ...query,
      timezone: user.timezone,
      tenantId: scope.tenantId,
      now: app.clock.now(),
    });
  });
}
