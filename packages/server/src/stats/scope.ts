import { type Kysely } from 'kysely';
import { type StatsViewer, type SystemPrices } from '@adplane/shared';
import { tenantShowsOtherSide } from '../auth/entitlements.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { type Database } from '../store/schema.js';
import { type User } from '../store/users.js';
import { type StatsScope } from './reportSql.js';

/**
 * What a user's reports cover (docs/reports.md): admins every tenant, a demand user (or its team member) its
 * tenant, a sub user the rows of its channels, an adv user its own rows. sdk users see no stats.
 */
export function statsScopeOf(user: User): StatsScope | null {
  switch (user.type) {
    case 'admin':
      return { tenantId: null };
    case 'demand':
      return { tenantId: tenantIdOf(user) };
    case 'sub':
      return { tenantId: tenantIdOf(user), subpublisherId: user.id };
    case 'adv':
      return { tenantId: tenantIdOf(user), advertiserId: user.id };
    default:
      return null;
  }
}

/**
 * The user as the metric rule reads it (visibility.ts: which metrics and dimensions, and what its
 * revenue is), with its tenant's choice of what a sub or adv user may name of the other side.
 */
export async function statsViewerOf(db: Kysely<Database>, user: User): Promise<StatsViewer> {
  return { type: user.type, showSystemCost: user.showSystemCost, ...(await tenantShowsOtherSide(db, user)) };
}

/** Each tenant's prices, for the system cost: every tenant for admins, else the one in scope. */
export async function tenantPrices(db: Kysely<Database>, tenantId: number | null): Promise<Map<number, SystemPrices>> {
  let query = db
    .selectFrom('users')
    .select(['id', 'price_req', 'price_imp', 'price_postbid', 'price_dsp'])
    .where('type', '=', 'demand')
    .where('manager_id', 'is', null);
  if (tenantId !== null) query = query.where('id', '=', tenantId);
  const rows = await query.execute();
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        priceReq: Number(r.price_req),
        priceImp: Number(r.price_imp),
        pricePostbid: Number(r.price_postbid),
        priceDsp: Number(r.price_dsp),
      },
    ]),
  );
}
