import { z } from 'zod';
import { COMPANY_NAME_MAX } from '../constants.js';
import { FloorRules } from '../edge/floorRules.js';
import { flag, requiredText, timezone, trimmed } from './common.js';

export const CONTACT_TYPES = ['general', 'billing', 'technical'] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];

const email = z.union([z.literal(''), z.email('must be an e-mail address')]);

export const Contact = z.object({
  type: z.enum(CONTACT_TYPES),
  firstName: trimmed(100).default(''),
  lastName: trimmed(100).default(''),
  position: trimmed(100).default(''),
  contactPhone: trimmed(50).default(''),
  mobilePhone: trimmed(50).default(''),
  contactEmail: z.string().trim().max(255).pipe(email).default(''),
  personalEmail: z.string().trim().max(255).pipe(email).default(''),
});
export type Contact = z.infer<typeof Contact>;

function emptyContact(type: ContactType): Contact {
  return {
    type,
    firstName: '',
    lastName: '',
    position: '',
    contactPhone: '',
    mobilePhone: '',
    contactEmail: '',
    personalEmail: '',
  };
}

/** One contact of each type, in order; missing ones are added, so the form always shows every type. */
export function completeContacts(contacts: readonly Partial<Contact>[] | null | undefined): Contact[] {
  return CONTACT_TYPES.map((type) => ({ ...emptyContact(type), ...(contacts ?? []).find((c) => c.type === type) }));
}

/** Copy the general contact into billing and technical (the apply-to-all action). */
export function applyGeneralContactToAll(contacts: readonly Contact[]): Contact[] {
  const general = contacts.find((c) => c.type === 'general') ?? emptyContact('general');
  return CONTACT_TYPES.map((type) => ({ ...general, type }));
}

/** A demand account's sellers.json entries. */
export const DemandSellerEntry = z.object({
  id: requiredText(100),
  domain: requiredText(255),
  name: requiredText(255),
});
export type DemandSellerEntry = z.infer<typeof DemandSellerEntry>;

export const SELLER_TYPES = ['PUBLISHER', 'INTERMEDIARY', 'BOTH'] as const;

/** A subpublisher's own sellers.json entry. */
export const SubSellerEntry = z.object({
  type: z.enum(SELLER_TYPES),
  name: trimmed(255).default(''),
  id: trimmed(100).default(''),
  status: z.union([z.literal(0), z.literal(1)]).default(0),
  confidential: z.union([z.literal(0), z.literal(1)]).default(0),
});
export type SubSellerEntry = z.infer<typeof SubSellerEntry>;

export const DEFAULT_SUB_SELLER: SubSellerEntry = {
  type: 'INTERMEDIARY',
  name: '',
  id: '',
  status: 0,
  confidential: 0,
};

export const TagParamName = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(64, 'must be at most 64 characters')
  .regex(/^[A-Za-z0-9_.\-[\]]+$/, 'may hold letters, digits and _ . - [ ] only');

/** The profile ("demand info") as read by GET /api/demand/info. Prices are integer micro-dollars. */
export interface Profile {
  id: number;
  type: string;
  name: string;
  companyName: string;
  companyAddress: string;
  contactNumber: string;
  contactExpired: string | null;
  uid: string | null;
  token: string | null;
  domain: string | null;
  timezone: number;
  priceReq: number;
  priceDsp: number;
  priceImp: number;
  pricePostbid: number;
  postbidPercent: number;
  setPostbidAll: 1 | null;
  setCheckIVTAll: 1 | null;
  blockIVT: 1 | null;
  delOldCreatives: 1 | null;
  tagParams: string[] | null;
  /** A tenant's floor rules: the floors of its channels without rules of their own (null: none; others: always null). */
  floorRules: FloorRules | null;
  contacts: Contact[];
  sellersJson: DemandSellerEntry[] | SubSellerEntry;
  readOnly: boolean;
}

/**
 * What PUT /api/demand/info accepts. Prices, uid, token and domain are not the user's to change:
 * they are read-only here and set by an admin on the Demands page.
 */
export const ProfileUpdate = z.object({
  name: requiredText(255),
  companyName: trimmed(COMPANY_NAME_MAX).default(''),
  companyAddress: trimmed(500).default(''),
  contactNumber: trimmed(50).default(''),
  contactExpired: z
    .union([z.iso.date('must be a date YYYY-MM-DD'), z.literal(''), z.null()])
    .optional()
    .transform((v) => v || null),
  timezone: timezone.default(0),
  postbidPercent: z.number().min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100').default(0),
  setPostbidAll: flag,
  setCheckIVTAll: flag,
  blockIVT: flag,
  delOldCreatives: flag,
  tagParams: z
    .array(TagParamName)
    .max(50, 'must hold at most 50 parameters')
    .nullable()
    .optional()
    .transform((v) => (v && v.length ? [...new Set(v)] : null)),
  /** A tenant's floor rules (edge/floorRules.ts); null clears them, absent keeps them. Only the tenant's own account has them. */
  floorRules: FloorRules.nullable().optional(),
  contacts: z.array(Contact).max(3).default([]),
  sellersJson: z.union([z.array(DemandSellerEntry).max(500), SubSellerEntry]).optional(),
});
export type ProfileUpdate = z.input<typeof ProfileUpdate>;

export const AppConfig = z.object({
  postbidMaxImps: z.number().int('must be a whole number').min(0, 'must not be negative').max(Number.MAX_SAFE_INTEGER),
  postbidMaxReps: z.number().int('must be a whole number').min(0, 'must not be negative').max(Number.MAX_SAFE_INTEGER),
});
export type AppConfig = z.infer<typeof AppConfig>;

/** The Settings modal's one option, kept per user by GET/PUT /api/ui/settings. */
export const UiSettings = z.object({
  tabs: z.boolean({ error: 'must be true or false' }),
});
export type UiSettings = z.infer<typeof UiSettings>;
