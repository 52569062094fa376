import { type Edition } from './constants.js';
import { RESOURCES, type ResourceKind } from './entities/registry.js';
import { type UserType } from './schemas/auth.js';

/**
 * What a tenant's mode and the deployment's edition open, decided once for the server (which refuses
 * the rest with 403: server/src/auth/entitlements.ts) and the console (whose menus and route guards
 * follow). Admins see every mode; editions bind everyone.
 *
 * - DSP kinds (campaigns, creatives, suppliers, exchanges, deals) need a tenant with showDsp;
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
export function entitlementRefusal(feature: Feature, user: { type: UserType }, tenantShowsDsp: boolean, edition: Edition): string | null {
  const label = feature === 'activity' ? 'User Activity' : RESOURCES[feature].plural;
  if (!editionHas(feature, edition)) return `${label} are not part of this edition (${edition})`;
  if (user.type !== 'admin' && needsDsp(feature) && !tenantShowsDsp) return `${label} need the DSP view, which is not enabled for this account`;
  return null;
}
