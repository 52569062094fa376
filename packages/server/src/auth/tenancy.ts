import { SUPER_ADMIN_UID } from '@adplane/shared';
import { type User } from '../store/users.js';

/**
 * The tenant (demand account id) whose rows a user may see; null means every tenant (admins).
 * A demand account is its own tenant; a managed demand user works in its manager's tenant; sub, adv
 * and sdk users belong to the tenant that created them.
 */
export function tenantIdOf(user: Pick<User, 'id' | 'type' | 'managerId' | 'tenantId'>): number | null {
  switch (user.type) {
    case 'admin':
      return null;
    case 'demand':
      return user.managerId ?? user.id;
    default:
      if (user.tenantId === null) throw new Error(`User ${user.id} (${user.type}) belongs to no tenant`);
      return user.tenantId;
  }
}

export function isSuperAdmin(user: Pick<User, 'type' | 'uid'>): boolean {
  return user.type === 'admin' && user.uid === SUPER_ADMIN_UID;
}
