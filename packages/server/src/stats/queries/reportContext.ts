import { type FastifyInstance } from 'fastify';
import { type ReportRequest } from '@adplane/shared';
import { badField, forbidden } from '../../http/errors.js';
import { type User } from '../../store/users.js';
import { maySeeSystemCost, statsScopeOf, tenantPrices } from '../scope.js';
import { type ReportContext } from './getReport.js';

/** What a user's report may read: their scope, the prices of the tenants in it, and whether it may show the system cost. */
export async function reportContextOf(app: FastifyInstance, user: User, request: ReportRequest): Promise<ReportContext> {
  const scope = statsScopeOf(user);
  if (!scope) throw forbidden('Reports are not available to this user');
  const wantsCost = request.metrics.includes('systemCost');
  if (wantsCost && !maySeeSystemCost(user)) {
    throw badField(`metrics.${request.metrics.indexOf('systemCost')}`, 'systemCost is shown only to admins and users with showSystemCost');
  }
  return {
    stats: app.stats,
    db: app.store.db,
    scope,
    prices: wantsCost ? await tenantPrices(app.store.db, scope.tenantId) : new Map(),
    isAdmin: user.type === 'admin',
  };
}
