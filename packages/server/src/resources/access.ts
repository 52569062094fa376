import { type ResourceDef } from '@adplane/shared';
import { tenantIdOf } from '../auth/tenancy.js';
import { type EntityScope } from '../store/entities.js';
import { type User } from '../store/users.js';

/**
 * What a user may do with a kind of resource, and which rows it sees. Admins see every tenant; a
 * demand user (or its team member) manages its own tenant; sub and adv users only read the rows
 * assigned to them; sdk users manage their SDK apps. Anything else is refused with 403.
 */
type AccessLevel = 'none' | 'read' | 'write';

export interface Access {
  level: AccessLevel;
  scope: EntityScope;
}

const NONE: Access = { level: 'none', scope: { tenantId: -1 } };

export function accessTo(def: ResourceDef, user: User): Access {
  if (def.audience === 'admin') {
    // Admin-managed, global rows (tooltips) are help text every signed-in user reads.
    return {
      level: user.type === 'admin' ? 'write' : def.kind === 'tooltips' ? 'read' : 'none',
      scope: { tenantId: null },
    };
  }
  if (user.type === 'admin') return { level: 'write', scope: { tenantId: null } };
  const tenantId = tenantIdOf(user);
  if (def.audience === 'sdk') return user.type === 'sdk' ? { level: 'write', scope: { tenantId } } : NONE;
  switch (user.type) {
    case 'demand':
      // Team members are managed by the account owner only.
      if (def.kind === 'managers' && user.managerId !== null) return NONE;
      return { level: 'write', scope: { tenantId } };
    case 'sub':
      return def.assignedTo?.sub ? { level: 'read', scope: { tenantId, subId: user.id } } : NONE;
    case 'adv':
      return def.assignedTo?.adv ? { level: 'read', scope: { tenantId, advId: user.id } } : NONE;
    default:
      return NONE;
  }
}
