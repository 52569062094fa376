import { z } from 'zod';
import { newPasswordField } from '../schemas/passwordPolicy.js';
import { SubSellerEntry } from '../schemas/profile.js';
import { domainName, micros, name, optionalText, percent, Status, wholeBetween } from '../entities/common.js';
import { defineKind } from './kindDef.js';

/**
 * Accounts are users: demand accounts (tenants, admin only), subpublishers (sub), advertisers (adv),
 * managers (team members, CTVMediaV2V) and SDK users. They sign in, so they carry a username, an
 * e-mail and a password (required on create, optional on update: empty keeps the old one).
 */
const username = z
  .string({ error: 'is required' })
  .trim()
  .min(3, 'must be at least 3 characters')
  .max(64, 'must be at most 64 characters')
  // No `@`: a user name can then never be someone's e-mail, which is a sign-in name too.
  .regex(/^[A-Za-z0-9._-]+$/, 'may hold letters, digits and . _ - only (no @: the e-mail is a separate sign-in)');
const email = z.union([z.literal(''), z.email('must be an e-mail address')]).default('');
const password = newPasswordField;

const AccountBase = {
  name,
  username,
  email,
  password,
  status: Status.default(1),
  companyName: optionalText(100),
};

const SubpublisherInput = z.object({
  ...AccountBase,
  domain: domainName.default(''),
  sellersJson: SubSellerEntry.default({ type: 'INTERMEDIARY', name: '', id: '', status: 0, confidential: 0 }),
});
type SubpublisherInput = z.input<typeof SubpublisherInput>;

const AdvertiserInput = z.object({ ...AccountBase, domain: domainName.default('') });
type AdvertiserInput = z.input<typeof AdvertiserInput>;

const ManagerInput = z.object({ ...AccountBase });
type ManagerInput = z.input<typeof ManagerInput>;

const DemandAccountInput = z.object({
  ...AccountBase,
  domain: domainName.default(''),
  timezone: wholeBetween(-12, 12, 'hours').default(0),
  priceReq: micros.default(0),
  priceImp: micros.default(0),
  priceDsp: percent.default(0),
  pricePostbid: micros.default(0),
  showDsp: z.boolean().default(false),
  showPostbidPix: z.boolean().default(false),
  showPostbidWh: z.boolean().default(false),
  showCheckIVT: z.boolean().default(false),
  showSystemCost: z.boolean().default(false),
  /**
   * The tenant's choice of what each side of its trade may name in reports (stats/visibility.ts):
   * its subpublishers the demand their traffic was sold to (tags, partners, advertisers, campaigns,
   * creatives, deals, marketplaces), its advertisers the supply they bought (channels,
   * subpublishers, suppliers, ad exchanges, publisher ids). Names only: never the other side's money.
   */
  showDemandToSubs: z.boolean().default(false),
  showSupplyToAdvs: z.boolean().default(false),
  /** Every user of the tenant signs in with a second step (TOTP or a recovery code), enrolling at sign-in if need be. */
  requireTwoFactor: z.boolean().default(false),
});
type DemandAccountInput = z.input<typeof DemandAccountInput>;

/** The price fields only the super admin may change. */
export const DEMAND_PRICE_FIELDS = ['priceReq', 'priceImp', 'priceDsp', 'pricePostbid'] as const;

export const subsKind = defineKind({
  kind: 'subs',
  label: 'Subpublisher',
  plural: 'Subpublishers',
  route: '/subpublishers',
  api: '/api/demand/subs',
  mode: 'ssp',
  storage: 'account',
  accountType: 'sub',
  audience: 'tenant',
  uid: false,
  schema: SubpublisherInput,
  refs: [],
});
export const advsKind = defineKind({
  kind: 'advs',
  label: 'Advertiser',
  plural: 'Advertisers',
  route: '/advertisers',
  api: '/api/demand/advs',
  mode: 'both',
  storage: 'account',
  accountType: 'adv',
  audience: 'tenant',
  uid: false,
  schema: AdvertiserInput,
  refs: [],
});
export const managersKind = defineKind({
  kind: 'managers',
  label: 'Manager',
  plural: 'Managers',
  route: '/managers',
  api: '/api/demand/managers',
  mode: 'both',
  storage: 'account',
  accountType: 'demand',
  audience: 'tenant',
  uid: false,
  schema: ManagerInput,
  refs: [],
});
export const demandsKind = defineKind({
  kind: 'demands',
  label: 'Demand',
  plural: 'Demands',
  route: '/demands',
  api: '/api/demands',
  mode: 'both',
  storage: 'account',
  accountType: 'demand',
  audience: 'admin',
  uid: true,
  schema: DemandAccountInput,
  refs: [],
});

/**
 * POST /api/users: an admin makes a platform user, with the same sign-in rules as every account:
 * an admin (the super admin only; it belongs to no tenant) or an SDK user, who belongs to a demand
 * account (tenant) and works only with that tenant's SDK apps.
 */
const PLATFORM_USER_TYPES = ['admin', 'sdk'] as const;
export const PlatformUserInput = z
  .object({
    ...AccountBase,
    type: z.enum(PLATFORM_USER_TYPES, { error: "must be 'admin' or 'sdk'" }),
    tenantId: z.number({ error: 'must be a demand account id' }).int().positive().nullable().default(null),
  })
  .superRefine((v, ctx) => {
    if (v.type === 'sdk' && v.tenantId === null)
      ctx.addIssue({
        code: 'custom',
        path: ['tenantId'],
        message: 'is required: the demand account the SDK user belongs to',
      });
    if (v.type === 'admin' && v.tenantId !== null)
      ctx.addIssue({ code: 'custom', path: ['tenantId'], message: 'must be empty: an admin belongs to no tenant' });
  });
export type PlatformUserInput = z.input<typeof PlatformUserInput>;

/** An admin or SDK user as GET /api/users lists it. */
export interface PlatformUser {
  id: number;
  type: (typeof PLATFORM_USER_TYPES)[number];
  name: string;
  username: string;
  email: string;
  status: number;
  /** SDK users: their demand account; admins: null. */
  tenantId: number | null;
  /** Admins: 'super' marks the super admin. */
  uid: string | null;
  createdAt: string;
}
