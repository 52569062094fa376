import { z } from 'zod';
import type { Edition } from '../constants.js';

export const USER_TYPES = ['admin', 'demand', 'sub', 'adv', 'sdk'] as const;
export type UserType = (typeof USER_TYPES)[number];

export const LoginBody = z.object({
  username: z.string().trim().min(1, 'is required').max(255),
  password: z.string().min(1, 'is required').max(1024),
});
export type LoginBody = z.infer<typeof LoginBody>;

/** A query-string macro that a tenant's tags carry (`w={{width}}`). */
export interface TagMacro {
  param: string;
  macro: string;
  description: string;
}

interface AppConfigPublic {
  /** Public host for tag URLs. */
  host: string;
  /** Where the logo links; '' when none is set. */
  landing: string;
  database: Edition;
  /** The V2V edition's Insight Hub (analytics) link; '' or absent when the deployment has none. */
  insightHub?: string;
}

/** The signed-in user as the console sees it. */
export interface AuthUser {
  id: number;
  type: UserType;
  name: string;
  managerId: number | null;
  timezone: number;
  tagParams: string[] | null;
  /**
   * May switch the console between the SSP and DSP views: the effective flag, decided by the rule the
   * server enforces on PUT /api/ui/mode (entitlements.ts, modeSwitchRefusal): true for admins and for
   * demand users, owner or team member, whose tenant has the DSP view; false for everyone else. Not the
   * account's own stored flag (a team member has none of its own).
   */
  showDsp: boolean;
  /**
   * Whether the user's tenant (its demand account) has the DSP view; always true for admins. What
   * the server's mode rule reads (entitlements.ts): DSP kinds are refused when it is false.
   */
  tenantShowDsp: boolean;
  showPostbidPix: boolean;
  showPostbidWh: boolean;
  showCheckIVT: boolean;
  showSystemCost: boolean;
  /**
   * What the user's tenant chose to show each side of its trade of the other (false for admins):
   * its subpublishers the demand their traffic was sold to, its advertisers the supply they bought.
   * The report rule reads them (stats/visibility.ts), so the console's pickers offer those names.
   */
  tenantShowDemandToSubs: boolean;
  tenantShowSupplyToAdvs: boolean;
  vastParams: TagMacro[];
  vast2Params: TagMacro[];
  config: AppConfigPublic;
  /** Admins only: 'super' marks the super admin. */
  uid?: string;
  /** Admins other than the super admin are disabled for creating, deleting and re-pricing accounts. */
  disabled?: boolean;
  /** Set while an admin is impersonating this user: the admin's id, for the link back. */
  adminId?: number;
}

export const SwitchQuery = z.object({
  type: z.enum(USER_TYPES),
  id: z.coerce.number().int().positive(),
});
