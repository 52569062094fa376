import { z } from 'zod';
import { type Edition, MODES } from './constants.js';
import { RESOURCE_KINDS, RESOURCES, type ResourceKind } from './entities/registry.js';
import { type AuthUser, type UserType } from './schemas/auth.js';

/**
 * What a tenant's mode and the deployment's edition open, decided once for the server (which refuses
 * the rest with 403: server/src/auth/entitlements.ts) and the console (whose menus and route guards
 * follow). Admins see every mode; editions bind everyone.
 *
 * - DSP kinds (campaigns, creatives, suppliers, exchanges, deals) need a tenant with showDsp (the
 *   demand account the user works in: its own, its manager's, or the one that created a sub or adv);
 * - Creative and Publisher Lists exist in the V2V edition, Managers and the User Activity log in
 *   CTVMediaV2V.
 */
export type Feature = ResourceKind | 'activity';

export const EDITION_ONLY: Partial<Record<Feature, readonly Edition[]>> = {
  crelists: ['V2V'],
  publists: ['V2V'],
  managers: ['CTVMediaV2V'],
  activity: ['CTVMediaV2V'],
};

export function editionHas(feature: Feature, edition: Edition): boolean {
  const editions = EDITION_ONLY[feature];
  return editions === undefined || editions.includes(edition);
}

export function needsDsp(feature: Feature): boolean {
  return feature !== 'activity' && RESOURCES[feature].mode === 'dsp';
}

/** Why a user may not use a feature (a sentence for the 403), or null when it may. */
export function entitlementRefusal(
  feature: Feature,
  user: { type: UserType },
  tenantShowsDsp: boolean,
  edition: Edition,
): string | null {
  const label = feature === 'activity' ? 'User Activity' : RESOURCES[feature].plural;
  if (!editionHas(feature, edition))
    return `${label} ${feature === 'activity' ? 'is' : 'are'} not part of this edition (${edition})`;
  if (user.type !== 'admin' && needsDsp(feature) && !tenantShowsDsp)
    return `${label} need the DSP view, which is not enabled for this account`;
  return null;
}

/**
 * The same rule for the signed-in user as the console holds it: the server sends the tenant's flag
 * (`tenantShowDsp`) and the edition (`config.database`) with the user.
 */
export function userEntitlementRefusal(
  feature: Feature,
  user: Pick<AuthUser, 'type' | 'tenantShowDsp' | 'config'>,
): string | null {
  return entitlementRefusal(feature, user, user.tenantShowDsp, user.config.database);
}

/**
 * Who may switch the console between the SSP and DSP views (the spec: an admin, or any user with the
 * showDsp flag): admins, and demand users (the owner and its team members alike) whose tenant has the
 * DSP view. The flag that counts is the tenant's, not the team member's own. Sub, adv and sdk users
 * have no page that changes with the view, so they stay in SSP and are shown no switch. The server
 * refuses a switch with this sentence (PUT /api/ui/mode, GET /api/dashboard?view=dsp) and sends the
 * outcome with the user as its `showDsp` (server/src/auth/authUser.ts), the one flag the console reads.
 */
export function modeSwitchRefusal(user: { type: UserType }, tenantShowsDsp: boolean): string | null {
  if (user.type === 'admin') return null;
  if (user.type !== 'demand') return `This account (${user.type}) works in the SSP view and cannot switch to DSP`;
  if (!tenantShowsDsp) return 'The DSP view is not enabled for this account, so there is nothing to switch to';
  return null;
}

/** The body of PUT /api/ui/mode. */
export const ModeChoice = z.object({
  mode: z.enum(MODES, { error: 'must be ssp or dsp' }),
});
export type ModeChoice = z.infer<typeof ModeChoice>;

/** The page of a feature with a mode or edition rule: every kind's own route, and /log for User Activity. */
export const FEATURE_ROUTES: Readonly<Record<string, Feature>> = Object.fromEntries([
  ...RESOURCE_KINDS.filter((kind) => needsDsp(kind) || EDITION_ONLY[kind]).map(
    (kind) => [RESOURCES[kind].route, kind] as const,
  ),
  ['/log', 'activity'] as const,
]);
