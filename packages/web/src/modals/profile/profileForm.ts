import dayjs, { type Dayjs } from 'dayjs';
import {
  completeContacts,
  DATE_FORMAT,
  DEFAULT_SUB_SELLER,
  type SELLER_TYPES,
  type AuthUser,
  type Contact,
  type ContactType,
  type DemandSellerEntry,
  type FloorRulesInput,
  type Profile,
  type ProfileUpdate,
  type SubSellerEntry,
  type UserType,
} from '@adplane/shared';

/** The confirmation text of the apply-to-all-contacts action, word for word as users have always seen it (the end-to-end test reads it so). */
export const APPLY_ALL_WARNING = 'All contacts will be replaces with this one. Do you really want to continue?';
export const APPLY_ALL_TITLE = 'Warning';

type SellerType = (typeof SELLER_TYPES)[number];

/** The sub user's own sellers.json entry as the form edits it: switches instead of 0/1. */
interface SubSellerForm {
  type: SellerType;
  name: string;
  id: string;
  active: boolean;
  confidential: boolean;
}

export interface ProfileFormValues {
  name: string;
  companyName: string;
  companyAddress: string;
  contactNumber: string;
  contactExpired: Dayjs | null;
  timezone: number;
  postbidPercent: number;
  setPostbidAll: boolean;
  setCheckIVTAll: boolean;
  blockIVT: boolean;
  delOldCreatives: boolean;
  contacts: Contact[];
  demandSellers: DemandSellerEntry[];
  subSeller: SubSellerForm;
  tagParams: string[];
  /** The tenant's floor rules, the default of its channels without their own (null: none). */
  floorRules: FloorRulesInput | null;
}

export type ProfileTab = 'common' | 'options' | 'sellers' | ContactType | 'tagParams';

export const CONTACT_TAB_LABELS: Record<ContactType, string> = {
  general: 'General contact',
  billing: 'Billing contact',
  technical: 'Technical contact',
};

/** Which tabs a user type sees: Options for demand, Sellers JSON for demand and sub. */
export function profileTabs(type: UserType): ProfileTab[] {
  const tabs: ProfileTab[] = ['common'];
  if (type === 'demand') tabs.push('options');
  if (type === 'demand' || type === 'sub') tabs.push('sellers');
  tabs.push('general', 'billing', 'technical', 'tagParams');
  return tabs;
}

/** Inputs are read-only for sub and adv users, and whenever the server says so. */
export function isReadOnlyProfile(type: UserType, profile?: Pick<Profile, 'readOnly'> | null): boolean {
  return type === 'sub' || type === 'adv' || !!profile?.readOnly;
}

/** Which option checkboxes a demand user sees: post-bid ones need a post-bid flag, IVT ones showCheckIVT. */
export function visibleOptions(user: Pick<AuthUser, 'showPostbidPix' | 'showPostbidWh' | 'showCheckIVT'>): {
  postbid: boolean;
  ivt: boolean;
} {
  return { postbid: user.showPostbidPix || user.showPostbidWh, ivt: user.showCheckIVT };
}

/** Applying the general contact to all asks first when the technical contact already has a last name. */
export function needsApplyConfirmation(contacts: readonly Partial<Contact>[] | null | undefined): boolean {
  const technical = (contacts ?? []).find((c) => c.type === 'technical');
  return (technical?.lastName ?? '').trim() !== '';
}

function isSubSeller(value: Profile['sellersJson'] | null | undefined): value is SubSellerEntry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function profileToForm(profile: Profile): ProfileFormValues {
  const sub: SubSellerEntry = isSubSeller(profile.sellersJson)
    ? { ...DEFAULT_SUB_SELLER, ...profile.sellersJson }
    : DEFAULT_SUB_SELLER;
  const expired = profile.contactExpired ? dayjs(profile.contactExpired) : null;
  return {
    name: profile.name ?? '',
    companyName: profile.companyName ?? '',
    companyAddress: profile.companyAddress ?? '',
    contactNumber: profile.contactNumber ?? '',
    contactExpired: expired && expired.isValid() ? expired : null,
    timezone: profile.timezone ?? 0,
    postbidPercent: profile.postbidPercent ?? 0,
    setPostbidAll: profile.setPostbidAll === 1,
    setCheckIVTAll: profile.setCheckIVTAll === 1,
    blockIVT: profile.blockIVT === 1,
    delOldCreatives: profile.delOldCreatives === 1,
    contacts: completeContacts(profile.contacts),
    demandSellers: Array.isArray(profile.sellersJson) ? profile.sellersJson.map((s) => ({ ...s })) : [],
    subSeller: {
      type: sub.type,
      name: sub.name,
      id: sub.id,
      active: sub.status === 1,
      confidential: sub.confidential === 1,
    },
    tagParams: [...(profile.tagParams ?? [])],
    floorRules: profile.floorRules ?? null,
  };
}

const text = (value: string | null | undefined): string => (value ?? '').trim();
const flag = (value: boolean | null | undefined): 1 | null => (value ? 1 : null);

/** The PUT /api/demand/info body: text trimmed, flags as 1 or null, empty tag parameters as null. */
export function formToUpdate(values: ProfileFormValues, type: UserType): ProfileUpdate {
  const tagParams = [...new Set((values.tagParams ?? []).map((p) => p.trim()).filter(Boolean))];
  const update: ProfileUpdate = {
    name: text(values.name),
    companyName: text(values.companyName),
    companyAddress: text(values.companyAddress),
    contactNumber: text(values.contactNumber),
    contactExpired: values.contactExpired ? values.contactExpired.format(DATE_FORMAT) : null,
    timezone: values.timezone ?? 0,
    contacts: completeContacts(values.contacts).map((c) => ({
      type: c.type,
      firstName: text(c.firstName),
      lastName: text(c.lastName),
      position: text(c.position),
      contactPhone: text(c.contactPhone),
      mobilePhone: text(c.mobilePhone),
      contactEmail: text(c.contactEmail),
      personalEmail: text(c.personalEmail),
    })),
    tagParams: tagParams.length > 0 ? tagParams : null,
  };
  if (type === 'demand') {
    update.postbidPercent = values.postbidPercent ?? 0;
    update.setPostbidAll = flag(values.setPostbidAll);
    update.setCheckIVTAll = flag(values.setCheckIVTAll);
    update.blockIVT = flag(values.blockIVT);
    update.delOldCreatives = flag(values.delOldCreatives);
    // the tenant's own (the server keeps a team member's unchanged)
    if (values.floorRules !== undefined) update.floorRules = values.floorRules;
    update.sellersJson = (values.demandSellers ?? []).map((s) => ({
      id: text(s.id),
      domain: text(s.domain),
      name: text(s.name),
    }));
  }
  if (type === 'sub') {
    const sub = values.subSeller ?? { ...DEFAULT_SUB_SELLER, active: false, confidential: false };
    update.sellersJson = {
      type: sub.type,
      name: text(sub.name),
      id: text(sub.id),
      status: sub.active ? 1 : 0,
      confidential: sub.confidential ? 1 : 0,
    };
  }
  return update;
}

/**
 * Where a server field error belongs in the form: `contacts.1.contactEmail` stays as it is, and
 * `sellersJson...` goes to the demand rows or the sub entry.
 */
export function formPathOf(field: string, type: UserType): (string | number)[] {
  const parts: (string | number)[] = field.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (parts[0] === 'sellersJson') {
    parts[0] = type === 'sub' ? 'subSeller' : 'demandSellers';
    if (type === 'sub' && parts[1] === 'status') parts[1] = 'active';
  }
  return parts;
}

/** The tab that holds a form field, to open it when the field is invalid. */
export function tabOfField(path: readonly (string | number)[]): ProfileTab {
  const [head, index] = path;
  if (head === 'contacts') return (['general', 'billing', 'technical'] as const)[Number(index)] ?? 'general';
  if (head === 'demandSellers' || head === 'subSeller') return 'sellers';
  if (head === 'tagParams') return 'tagParams';
  if (
    head === 'postbidPercent' ||
    head === 'setPostbidAll' ||
    head === 'setCheckIVTAll' ||
    head === 'blockIVT' ||
    head === 'delOldCreatives' ||
    head === 'floorRules'
  ) {
    return 'options';
  }
  return 'common';
}
