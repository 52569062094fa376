import { type Kysely } from 'kysely';
import { type AuthUser, modeSwitchRefusal, type TagMacro, vast2Macros, vastMacros } from '@adplane/shared';
import { type Settings } from '../settings.js';
import { type Database } from '../store/schema.js';
import { findUserInTenant, type User } from '../store/users.js';
import { tenantShowsDsp, tenantShowsOtherSide } from './entitlements.js';
import { isSuperAdmin, tenantIdOf } from './tenancy.js';

type Db = Kysely<Database>;

/**
 * Custom tag parameters that the user's tags carry: the user's own plus those of its tenant account
 * (a managed demand user or a sub works with the tenant's tags).
 */
async function tagParamsForTags(db: Db, user: User): Promise<string[]> {
  const own = user.tagParams ?? [];
  const tenantId = user.type === 'admin' ? null : tenantIdOf(user);
  if (tenantId === null || tenantId === user.id) return own;
  const tenant = await findUserInTenant(db, tenantId, tenantId);
  return [...new Set([...(tenant?.tagParams ?? []), ...own])];
}

export async function tagMacrosFor(db: Db, user: User): Promise<{ vastParams: TagMacro[]; vast2Params: TagMacro[] }> {
  const params = await tagParamsForTags(db, user);
  return { vastParams: vastMacros(params), vast2Params: vast2Macros(params) };
}

/** The signed-in user as the console sees it. */
function buildAuthUser(
  user: User,
  settings: Pick<Settings, 'publicHost' | 'landingUrl' | 'edition' | 'insightHubUrl'>,
  extra: {
    adminId: number | null;
    tenantShowDsp: boolean;
    tenantShowDemandToSubs?: boolean;
    tenantShowSupplyToAdvs?: boolean;
    vastParams: TagMacro[];
    vast2Params: TagMacro[];
  },
): AuthUser {
  const authUser: AuthUser = {
    id: user.id,
    type: user.type,
    name: user.name,
    managerId: user.managerId,
    timezone: user.timezone,
    tagParams: user.tagParams?.length ? user.tagParams : null,
    // who may switch views, by the rule PUT /api/ui/mode enforces (a team member's own row has no flag)
    showDsp: modeSwitchRefusal(user, extra.tenantShowDsp) === null,
    tenantShowDsp: extra.tenantShowDsp,
    showPostbidPix: user.showPostbidPix,
    showPostbidWh: user.showPostbidWh,
    showCheckIVT: user.showCheckIVT,
    showSystemCost: user.showSystemCost,
    tenantShowDemandToSubs: extra.tenantShowDemandToSubs ?? false,
    tenantShowSupplyToAdvs: extra.tenantShowSupplyToAdvs ?? false,
    vastParams: extra.vastParams,
    vast2Params: extra.vast2Params,
    config: {
      host: settings.publicHost,
      landing: settings.landingUrl,
      database: settings.edition,
      insightHub: settings.insightHubUrl,
    },
  };
  if (user.type === 'admin') {
    authUser.uid = user.uid ?? '';
    authUser.disabled = !isSuperAdmin(user);
  }
  if (extra.adminId !== null) authUser.adminId = extra.adminId;
  return authUser;
}

export async function loadAuthUser(
  db: Db,
  settings: Pick<Settings, 'publicHost' | 'landingUrl' | 'edition' | 'insightHubUrl'>,
  user: User,
  adminId: number | null,
): Promise<AuthUser> {
  return buildAuthUser(user, settings, {
    adminId,
    tenantShowDsp: await tenantShowsDsp(db, user),
    ...(await tenantShowsOtherSide(db, user)),
    ...(await tagMacrosFor(db, user)),
  });
}
