import { type AuthUser, type Feature, type UserType, userEntitlementRefusal } from '@adplane/shared';

/**
 * Route guards as pure functions. Which route uses which guard is chosen in routes.tsx.
 *
 * - public: anyone (the sign-in page).
 * - auth: any signed-in user.
 * - admin: type admin only.
 * - demand: type demand only.
 * - sdk: type sdk only.
 * - demandOrAdmin: type demand or admin; for /applists, which both the demand Targeting menu and the
 *   admin Targeting menu (SSP mode) link to.
 *
 * A route of a feature with a mode or edition rule (DSP kinds, edition-only pages: FEATURE_ROUTES of
 * packages/shared) also needs what the server needs to answer it: the shared entitlement rule, with
 * the tenant's DSP flag and the edition the server sent with the user.
 *
 * Anyone who fails a guard is sent to /login, signed in or not.
 */
export const GUARDS = ['public', 'auth', 'admin', 'demand', 'sdk', 'demandOrAdmin'] as const;
export type Guard = (typeof GUARDS)[number];

export const LOGIN_PATH = '/login';

const TYPES_BY_GUARD: Record<Exclude<Guard, 'public' | 'auth'>, readonly UserType[]> = {
  admin: ['admin'],
  demand: ['demand'],
  sdk: ['sdk'],
  demandOrAdmin: ['demand', 'admin'],
};

export function passesGuard(guard: Guard, user: AuthUser | null, feature?: Feature): boolean {
  if (guard === 'public') return true;
  if (!user) return false;
  if (feature && userEntitlementRefusal(feature, user) !== null) return false;
  if (guard === 'auth') return true;
  return TYPES_BY_GUARD[guard].includes(user.type);
}

/** Where a guard sends the visitor: null to stay, else the sign-in page. */
export function guardRedirect(guard: Guard, user: AuthUser | null, feature?: Feature): string | null {
  return passesGuard(guard, user, feature) ? null : LOGIN_PATH;
}

/** Whether the signed-in user may use a feature (the server's rule): for pages that offer a feature's rows or actions. */
export function isEntitled(user: AuthUser | null, feature: Feature): boolean {
  return !!user && userEntitlementRefusal(feature, user) === null;
}
