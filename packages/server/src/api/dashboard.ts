import { type FastifyInstance } from 'fastify';
import { type DashboardTop, FinanceQuery, ReportRequest, type UserType } from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { forbidden, parseInput } from '../http/errors.js';
import { getDashboard } from '../stats/queries/getDashboard.js';
import { getFinance } from '../stats/queries/getFinance.js';
import { reportContextOf } from '../stats/queries/reportContext.js';
import { statsScopeOf } from '../stats/scope.js';

/** Each role's top lists: a subpublisher sees its channels, an advertiser its campaigns' delivery and its tags. */
const DASHBOARD_TOPS_OF: Partial<Record<UserType, DashboardTop[]>> = { sub: ['channel'], adv: ['campaign', 'tag'] };

/** The dashboard (every user with stats, in their scope and time zone) and the admins' finance report. */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/dashboard', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    if (!statsScopeOf(user)) throw forbidden('The dashboard has no numbers for this user');
    const probe = ReportRequest.parse({ startDate: '2000-01-01', endDate: '2000-01-01', metrics: ['imps'] });
    return getDashboard(await reportContextOf(app, user, probe), user.timezone, Date.now(), DASHBOARD_TOPS_OF[user.type] ?? ['channel', 'tag']);
  });

  app.get('/api/finance', { config: { guard: 'admin' } }, async (request) => {
    const { month } = parseInput(FinanceQuery, request.query);
    return getFinance(app.stats, app.store.db, month);
  });
}
