import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { type Kysely } from 'kysely';
import { entitlementRefusal, type Feature, needsDsp } from '@adplane/shared';
import { forbidden } from '../http/errors.js';
import { type Database } from '../store/schema.js';
import { findUserById, type User } from '../store/users.js';
import { tenantIdOf } from './tenancy.js';

/**
 * Mode and edition on the server (packages/shared entitlements.ts is the rule): every route of a kind
 * (api/resources.ts, api/accounts.ts) and of User Activity (api/activity.ts) has
 * `preHandler: entitled(app, feature)`, so that a tenant without showDsp cannot reach DSP kinds by URL
 * or API, nor anyone a feature of another edition. The console's route guards and shared lists
 * apply the same rule to the signed-in user (`tenantShowDsp`, `config.database`).
 */
/** Whether the demand account a user works in has the DSP view (admins: always); sent to the console as `tenantShowDsp`. */
export async function tenantShowsDsp(db: Kysely<Database>, user: User): Promise<boolean> {
  if (user.type === 'admin') return true;
  const tenantId = tenantIdOf(user);
  if (tenantId === null || tenantId === user.id) return user.showDsp;
  return (await findUserById(db, tenantId))?.showDsp ?? false;
}

/**
 * What a sub or adv user's tenant chose to show it of the other side of the trade (docs/reports.md,
 * "Who sees which numbers"): a subpublisher the demand its traffic was sold to, an advertiser the
 * supply it bought. Read from the tenant's row each time, so a change holds from the next request.
 * Both false for everyone else, whom the choice does not concern.
 */
export async function tenantShowsOtherSide(
  db: Kysely<Database>,
  user: User,
): Promise<{ tenantShowDemandToSubs: boolean; tenantShowSupplyToAdvs: boolean }> {
  const tenant =
    (user.type === 'sub' || user.type === 'adv') && user.tenantId !== null
      ? await findUserById(db, user.tenantId)
      : null;
  return {
    tenantShowDemandToSubs: tenant?.showDemandToSubs ?? false,
    tenantShowSupplyToAdvs: tenant?.showSupplyToAdvs ?? false,
  };
}

export async function requireEntitled(app: FastifyInstance, user: User, feature: Feature): Promise<void> {
  const showsDsp = needsDsp(feature) ? await tenantShowsDsp(app.store.db, user) : true;
  const refusal = entitlementRefusal(feature, user, showsDsp, app.settings.edition);
  if (refusal) throw forbidden(refusal);
}

/** A route's preHandler refusing callers not entitled to `feature` (signed-out callers meet the guard first). */
export function entitled(app: FastifyInstance, feature: Feature) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.auth) await requireEntitled(app, request.auth.user, feature);
  };
}
