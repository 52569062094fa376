import { DEMAND_PRICE_FIELDS } from './kinds/accounts.js';

/**
 * The one decision of what an admin other than the super admin may do with demand accounts (the
 * tenants): read them, impersonate their users, edit their name, company, domain, time zone and
 * feature switches. What touches money, access or the account's existence is the super admin's:
 * creating, archiving, restoring and deleting an account, its prices, enabling or disabling it, its
 * password and its sign-in names (user name and e-mail: changing one hands over the sign-in).
 * The server refuses the rest with 403 (server/src/auth/adminRights.ts); the console greys it out.
 */
export type SuperAdminAction = 'create' | 'archive' | 'restore' | 'delete';

export const SUPER_ADMIN_FIELDS = [...DEMAND_PRICE_FIELDS, 'status', 'password', 'username', 'email'] as const;
export type SuperAdminField = (typeof SUPER_ADMIN_FIELDS)[number];

export const SUPER_ADMIN_ONLY_MESSAGE: Record<SuperAdminAction | 'fields', string> = {
  create: 'Only the super admin can create demand accounts',
  archive: 'Only the super admin can archive or restore demand accounts',
  restore: 'Only the super admin can archive or restore demand accounts',
  delete: 'Only the super admin can delete demand accounts',
  fields: 'Only the super admin changes prices, status, password and sign-in names of demand accounts',
};
