import {
  SUPER_ADMIN_FIELDS,
  SUPER_ADMIN_ONLY_MESSAGE,
  type SuperAdminAction,
  type SuperAdminField,
} from '@adplane/shared';
import { forbidden } from '../http/errors.js';
import { type User } from '../store/users.js';
import { isSuperAdmin } from './tenancy.js';

/**
 * Enforces packages/shared adminRights.ts, the one decision of what a non-super admin may do with
 * demand accounts. The account service calls these for every create, archive, restore, delete and
 * update of a demand account.
 */
export function requireDemandAction(user: User, action: SuperAdminAction): void {
  if (!isSuperAdmin(user)) throw forbidden(SUPER_ADMIN_ONLY_MESSAGE[action]);
}

const norm = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : (v ?? ''));

/**
 * The reserved fields an update would change: `next` is the parsed body, `before` the stored account.
 * A non-empty password is always a change.
 */
function reservedChanges(before: Record<string, unknown>, next: Record<string, unknown>): SuperAdminField[] {
  return SUPER_ADMIN_FIELDS.filter((field) =>
    field === 'password'
      ? Boolean(next.password)
      : next[field] !== undefined && norm(next[field]) !== norm(before[field]),
  );
}

export function requireDemandUpdate(user: User, before: Record<string, unknown>, next: Record<string, unknown>): void {
  if (isSuperAdmin(user)) return;
  const changed = reservedChanges(before, next);
  if (changed.length) throw forbidden(`${SUPER_ADMIN_ONLY_MESSAGE.fields} (${changed.join(', ')})`);
}
