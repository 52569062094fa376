import { type FastifyInstance } from 'fastify';
import { type ReportRequest } from '@adplane/shared';
import { forbidden } from '../../http/errors.js';
import { type User } from '../../store/users.js';
import { statsScopeOf, statsViewerOf, tenantPrices } from '../scope.js';
import { checkRunnable, type ReportContext } from './getReport.js';

/**
 * What a user's report may read: their scope, who they are to the metric rule (visibility.ts), and
 * the prices of the tenants in scope when it asks for the system cost. A request outside the rule is
 * refused here, before anything is read.
 */
export async function reportContextOf(
  app: FastifyInstance,
  user: User,
  request: ReportRequest,
): Promise<ReportContext> {
  const scope = statsScopeOf(user);
  if (!scope) throw forbidden('Reports are not available to this user');
  const viewer = await statsViewerOf(app.store.db, user);
  checkRunnable(request, viewer);
  return {
    stats: app.stats,
    db: app.store.db,
    scope,
    prices: request.metrics.includes('systemCost') ? await tenantPrices(app.store.db, scope.tenantId) : new Map(),
    viewer,
  };
}
