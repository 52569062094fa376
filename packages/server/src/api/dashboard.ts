import { type FastifyInstance } from 'fastify';
import { DashboardQuery, dashboardTopsFor, FinanceQuery, modeSwitchRefusal, ReportRequest } from '@adplane/shared';
import { tenantShowsDsp } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { forbidden, parseInput } from '../http/errors.js';
import { getDashboard } from '../stats/queries/getDashboard.js';
import { getFinance } from '../stats/queries/getFinance.js';
import { reportContextOf } from '../stats/queries/reportContext.js';
import { statsScopeOf } from '../stats/scope.js';

/**
 * The dashboard (every user with stats, in their scope and time zone, with the top lists of its role
 * in the console's view: GET /api/dashboard?view=ssp|dsp) and the admins' finance report. The DSP
 * view is asked only by whom the console may show it: the rule of the SSP | DSP switch
 * (modeSwitchRefusal, as PUT /api/ui/mode) refuses the others with 403.
 */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/dashboard', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    if (!statsScopeOf(user)) throw forbidden('The dashboard has no numbers for this user');
    const { view } = parseInput(DashboardQuery, request.query);
    if (view === 'dsp') {
      const refusal = modeSwitchRefusal(user, await tenantShowsDsp(app.store.db, user));
      if (refusal) throw forbidden(refusal);
    }
    const probe = ReportRequest.parse({ startDate: '2000-01-01', endDate: '2000-01-01', metrics: ['imps'] });
    return getDashboard(
      await reportContextOf(app, user, probe),
      user.timezone,
      app.clock.now(),
      dashboardTopsFor(user.type, view),
    );
  });

  app.get('/api/finance', { config: { guard: 'admin' } }, async (request) => {
    const { month } = parseInput(FinanceQuery, request.query);
    return getFinance(app.stats, app.store.db, month, app.clock.now());
  });
}
