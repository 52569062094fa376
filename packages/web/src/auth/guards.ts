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
 * A signed-out visitor who fails a guard is sent to /login. A signed-in user who fails one stays
 * signed in and is shown why the page is closed to it (guardRefusal: its account type, or the mode
 * or edition rule in the server's own sentence) with a way back, never the sign-in page.
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

/** The accounts a guard lets in, as a sentence's object. */
const WHO_BY_GUARD: Record<Exclude<Guard, 'public' | 'auth'>, string> = {
  admin: 'admins',
  demand: 'demand accounts (the owner and its team)',
  sdk: 'SDK developers',
  demandOrAdmin: 'demand accounts and admins',
};

const ACCOUNT_NOUNS: Record<UserType, string> = {
  admin: 'an admin',
  demand: 'a demand account',
  sub: 'a subpublisher',
  adv: 'an advertiser',
  sdk: 'an SDK developer',
};

/**
 * Why a signed-in user may not open a page, or null when it may: its account type first (the
 * server's route guard comes first too), then the mode and edition rule of the page's feature in the
 * sentence the server answers its API with (entitlements.ts: "User Activity is not part of this
 * edition (default)").
 */
export function guardRefusal(guard: Guard, user: AuthUser, feature?: Feature): string | null {
  if (guard !== 'public' && guard !== 'auth' && !TYPES_BY_GUARD[guard].includes(user.type)) {
    const actAs =
      user.type === 'admin' && guard === 'demand'
        ? ": an admin opens a tenant's pages by acting as it (Log in as, on the Demands page)"
        : '';
    return `This page is for ${WHO_BY_GUARD[guard]}, and this account is ${ACCOUNT_NOUNS[user.type]}${actAs}`;
  }
  return feature ? userEntitlementRefusal(feature, user) : null;
}

export function passesGuard(guard: Guard, user: AuthUser | null, feature?: Feature): boolean {
  if (guard === 'public') return true;
  return !!user && guardRefusal(guard, user, feature) === null;
}

/** Where a guard sends the visitor: the sign-in page when signed out, else null (a closed page says why in place). */
export function guardRedirect(guard: Guard, user: AuthUser | null): string | null {
  return guard !== 'public' && !user ? LOGIN_PATH : null;
}

/** Whether the signed-in user may use a feature (the server's rule): for pages that offer a feature's rows or actions. */
export function isEntitled(user: AuthUser | null, feature: Feature): boolean {
  return !!user && userEntitlementRefusal(feature, user) === null;
}
