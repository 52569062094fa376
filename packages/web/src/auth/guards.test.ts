import { describe, expect, it } from 'vitest';
import { USER_TYPES, type UserType } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import { GUARDS, guardRedirect, guardRefusal, LOGIN_PATH, passesGuard, type Guard } from './guards.js';

const EXPECTED: Record<Guard, readonly UserType[]> = {
  public: USER_TYPES,
  auth: USER_TYPES,
  admin: ['admin'],
  demand: ['demand'],
  sdk: ['sdk'],
  demandOrAdmin: ['demand', 'admin'],
};

describe('route guards', () => {
  it.each(GUARDS.flatMap((guard) => USER_TYPES.map((type) => ({ guard, type }))))(
    '$guard guard and a $type user',
    ({ guard, type }) => {
      const user = makeUser(type);
      const passes = EXPECTED[guard].includes(type);
      expect(passesGuard(guard, user)).toBe(passes);
      // signed in: never the sign-in page; a page closed to the user says why instead
      expect(guardRedirect(guard, user)).toBeNull();
      if (guard !== 'public') expect(guardRefusal(guard, user) === null).toBe(passes);
    },
  );

  it('lets a signed-out visitor through the public guard only', () => {
    for (const guard of GUARDS) {
      expect(passesGuard(guard, null)).toBe(guard === 'public');
      expect(guardRedirect(guard, null)).toBe(guard === 'public' ? null : LOGIN_PATH);
    }
  });

  it('treats a managed demand user and an impersonated user by their type', () => {
    expect(passesGuard('demand', makeUser('demand', { managerId: 5, adminId: 1 }))).toBe(true);
    expect(passesGuard('admin', makeUser('demand', { adminId: 1 }))).toBe(false);
  });

  it("says why a page is closed: the account type, or the server's sentence for the mode or edition", () => {
    expect(guardRefusal('demandOrAdmin', makeUser('admin'), 'activity')).toBe(
      'User Activity is not part of this edition (default)',
    );
    expect(guardRefusal('demandOrAdmin', makeUser('admin', {}, 'CTVMediaV2V'), 'activity')).toBeNull();
    expect(guardRefusal('demand', makeUser('demand'), 'campaigns')).toBe(
      'Campaigns need the DSP view, which is not enabled for this account',
    );
    expect(guardRefusal('demand', makeUser('admin'))).toBe(
      "This page is for demand accounts (the owner and its team), and this account is an admin: an admin opens a tenant's pages by acting as it (Log in as, on the Demands page)",
    );
    expect(guardRefusal('admin', makeUser('sub'))).toBe('This page is for admins, and this account is a subpublisher');
    expect(guardRefusal('auth', makeUser('sdk'))).toBeNull();
  });
});
