import { describe, expect, it } from 'vitest';
import { USER_TYPES, type UserType } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import { GUARDS, guardRedirect, LOGIN_PATH, passesGuard, type Guard } from './guards.js';

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
      expect(guardRedirect(guard, user)).toBe(passes ? null : LOGIN_PATH);
    },
  );

  it('lets a signed-out visitor through the public guard only', () => {
    for (const guard of GUARDS) {
      expect(passesGuard(guard, null)).toBe(guard === 'public');
      expect(guardRedirect(guard, null)).toBe(guard === 'public' ? null : '/login');
    }
  });

  it('treats a managed demand user and an impersonated user by their type', () => {
    expect(passesGuard('demand', makeUser('demand', { managerId: 5, adminId: 1 }))).toBe(true);
    expect(passesGuard('admin', makeUser('demand', { adminId: 1 }))).toBe(false);
  });
});
