import { type Kysely, type Selectable } from 'kysely';
import {
  type Contact,
  type DemandSellerEntry,
  type FloorRules,
  type SubSellerEntry,
  type UserType,
} from '@adplane/shared';
import { recordActivity } from './activity.js';
import { inTransaction } from './db.js';
import { parseJson, nowIso, toJson } from './json.js';
import { type Database, type UsersTable } from './schema.js';

type Db = Kysely<Database>;

/** Profile details kept as one JSON document on the user row. */
export interface ProfileDetails {
  companyName: string;
  companyAddress: string;
  contactNumber: string;
  contactExpired: string | null;
  postbidPercent: number;
  setPostbidAll: 1 | null;
  setCheckIVTAll: 1 | null;
  blockIVT: 1 | null;
  delOldCreatives: 1 | null;
  /** A tenant's floor rules, the default of its channels (edge/snapshot/loadRows.ts reads them); absent or null: none. */
  floorRules?: FloorRules | null;
}

const EMPTY_PROFILE_DETAILS: ProfileDetails = {
  companyName: '',
  companyAddress: '',
  contactNumber: '',
  contactExpired: null,
  postbidPercent: 0,
  setPostbidAll: null,
  setCheckIVTAll: null,
  blockIVT: null,
  delOldCreatives: null,
};

export type SellersJson = DemandSellerEntry[] | SubSellerEntry;

/** A user account of any type, as the rest of the server sees it (never with its password hash). */
export interface User {
  id: number;
  type: UserType;
  username: string;
  email: string | null;
  name: string;
  /** Admins: 'super' or another admin tag; demand accounts: their public id. */
  uid: string | null;
  /** API token. */
  token: string | null;
  /** Channel domain. */
  domain: string | null;
  /** The demand account this user belongs to; null for admins. */
  tenantId: number | null;
  managerId: number | null;
  /** 1 active, 0 disabled (cannot sign in). */
  status: number;
  /** Archived accounts cannot sign in or be impersonated either (see `canSignIn`). */
  archived: boolean;
  timezone: number;
  showDsp: boolean;
  showPostbidPix: boolean;
  showPostbidWh: boolean;
  showCheckIVT: boolean;
  showSystemCost: boolean;
  /** A demand account's choice: its subpublishers' reports may name the demand their traffic was sold to. */
  showDemandToSubs: boolean;
  /** A demand account's choice: its advertisers' reports may name the supply they bought. */
  showSupplyToAdvs: boolean;
  /** A demand account's choice: every user of its tenant signs in with a second step (docs/security.md). */
  requireTwoFactor: boolean;
  tagParams: string[] | null;
  profile: ProfileDetails;
  contacts: Partial<Contact>[];
  sellersJson: SellersJson | null;
  /** Micro-dollars per 1,000 requests. */
  priceReq: number;
  /** Micro-dollars per 1,000 impressions. */
  priceImp: number;
  /** Micro-dollars per 1,000 post-bid scanned impressions. */
  pricePostbid: number;
  /** Percent of DSP revenue. */
  priceDsp: number;
  createdAt: string;
  updatedAt: string;
}

type UserRow = Selectable<UsersTable>;

export function userFromRow(row: UserRow): User {
  return {
    id: row.id,
    type: row.type,
    username: row.username,
    email: row.email,
    name: row.name,
    uid: row.uid,
    token: row.token,
    domain: row.domain,
    tenantId: row.tenant_id,
    managerId: row.manager_id,
    status: row.status,
    // The column comes with the 0002 migration; the Kysely row type predates it.
    archived: (row as { archived?: unknown }).archived === 1,
    timezone: row.timezone,
    showDsp: row.show_dsp === 1,
    showPostbidPix: row.show_postbid_pix === 1,
    showPostbidWh: row.show_postbid_wh === 1,
    showCheckIVT: row.show_check_ivt === 1,
    showSystemCost: row.show_system_cost === 1,
    showDemandToSubs: row.show_demand_to_subs === 1,
    showSupplyToAdvs: row.show_supply_to_advs === 1,
    requireTwoFactor: row.require_two_factor === 1,
    tagParams: parseJson<string[] | null>(row.tag_params, null),
    profile: { ...EMPTY_PROFILE_DETAILS, ...parseJson<Partial<ProfileDetails>>(row.profile, {}) },
    contacts: parseJson<Partial<Contact>[]>(row.contacts, []),
    sellersJson: parseJson<SellersJson | null>(row.sellers_json, null),
    priceReq: Number(row.price_req),
    priceImp: Number(row.price_imp),
    pricePostbid: Number(row.price_postbid),
    priceDsp: Number(row.price_dsp),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Sessions only: the account a session points at, whatever its tenant. */
export async function findUserById(db: Db, id: number): Promise<User | null> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? userFromRow(row) : null;
}

/**
 * The one rule of who may sign in, stay signed in, or be impersonated: an active account that is not
 * archived. Sign-in, session resume and /api/switch all ask this.
 */
export function canSignIn(user: Pick<User, 'status' | 'archived'>): boolean {
  return user.status === 1 && !user.archived;
}

/**
 * Sign-in only: the account a login names, with its hash. A login with `@` is an e-mail and is looked
 * up among e-mails first: user names cannot hold `@` (so they never collide with an e-mail), and an
 * older user name that does is tried only when no e-mail matches, so it can never capture someone
 * else's e-mail sign-in. A login without `@` is a user name. Any case.
 */
export async function findUserForLogin(db: Db, login: string): Promise<{ user: User; passwordHash: string } | null> {
  const key = login.trim().toLowerCase();
  const byUsername = () =>
    db
      .selectFrom('users')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['username']), '=', key))
      .executeTakeFirst();
  const byEmail = () =>
    db
      .selectFrom('users')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['email']), '=', key))
      .executeTakeFirst();
  const row = key.includes('@') ? ((await byEmail()) ?? (await byUsername())) : await byUsername();
  return row ? { user: userFromRow(row), passwordHash: row.password_hash } : null;
}

/**
 * An account seen from a tenant: `tenantId` null (an admin) sees every account, otherwise only the
 * accounts of that tenant.
 */
export async function findUserInTenant(db: Db, tenantId: number | null, id: number): Promise<User | null> {
  let query = db.selectFrom('users').selectAll().where('id', '=', id);
  if (tenantId !== null) query = query.where('tenant_id', '=', tenantId);
  const row = await query.executeTakeFirst();
  return row ? userFromRow(row) : null;
}

export async function countUsers(db: Db): Promise<number> {
  const { count } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

export interface NewUser {
  type: UserType;
  username: string;
  email?: string | null;
  passwordHash: string;
  name: string;
  uid?: string | null;
  token?: string | null;
  domain?: string | null;
  /** Omit for a demand account with no manager: it becomes its own tenant. */
  tenantId?: number | null;
  managerId?: number | null;
  status?: number;
  timezone?: number;
  showDsp?: boolean;
  showPostbidPix?: boolean;
  showPostbidWh?: boolean;
  showCheckIVT?: boolean;
  showSystemCost?: boolean;
  showDemandToSubs?: boolean;
  showSupplyToAdvs?: boolean;
  requireTwoFactor?: boolean;
  tagParams?: string[] | null;
  profile?: Partial<ProfileDetails>;
  contacts?: Partial<Contact>[];
  sellersJson?: SellersJson | null;
  priceReq?: number;
  priceImp?: number;
  pricePostbid?: number;
  priceDsp?: number;
}

const bit = (v: boolean | undefined) => (v ? 1 : 0);

/** Insert an account; call inside a transaction when it is one step of several. */
export async function createUser(db: Db, input: NewUser): Promise<User> {
  const at = nowIso();
  const { id } = await db
    .insertInto('users')
    .values({
      type: input.type,
      username: input.username.trim(),
      email: input.email ? input.email.trim().toLowerCase() : null,
      password_hash: input.passwordHash,
      name: input.name,
      uid: input.uid ?? null,
      token: input.token ?? null,
      domain: input.domain ?? null,
      tenant_id: input.tenantId ?? null,
      manager_id: input.managerId ?? null,
      status: input.status ?? 1,
      timezone: input.timezone ?? 0,
      show_dsp: bit(input.showDsp),
      show_postbid_pix: bit(input.showPostbidPix),
      show_postbid_wh: bit(input.showPostbidWh),
      show_check_ivt: bit(input.showCheckIVT),
      show_system_cost: bit(input.showSystemCost),
      show_demand_to_subs: bit(input.showDemandToSubs),
      show_supply_to_advs: bit(input.showSupplyToAdvs),
      require_two_factor: bit(input.requireTwoFactor),
      tag_params: input.tagParams?.length ? toJson(input.tagParams) : null,
      profile: toJson({ ...EMPTY_PROFILE_DETAILS, ...input.profile }),
      contacts: toJson(input.contacts ?? []),
      sellers_json: input.sellersJson ? toJson(input.sellersJson) : null,
      price_req: input.priceReq ?? 0,
      price_imp: input.priceImp ?? 0,
      price_postbid: input.pricePostbid ?? 0,
      price_dsp: input.priceDsp ?? 0,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.type === 'demand' && input.tenantId === undefined && !input.managerId) {
    await db.updateTable('users').set({ tenant_id: id }).where('id', '=', id).execute();
  }
  const user = await findUserById(db, id);
  if (!user) throw new Error(`User ${id} vanished after insert`);
  return user;
}

/** What a user may change on their own profile (PUT /api/demand/info); prices and ids are not here. */
export interface ProfileChanges {
  name?: string;
  timezone?: number;
  tagParams?: string[] | null;
  profile?: Partial<ProfileDetails>;
  contacts?: Contact[];
  sellersJson?: SellersJson | null;
}

/** What the activity log keeps of a profile change: the fields a user edits on its own profile. */
function profileSnapshot(user: User) {
  return {
    id: user.id,
    name: user.name,
    timezone: user.timezone,
    tagParams: user.tagParams,
    ...user.profile,
    contacts: user.contacts,
    sellersJson: user.sellersJson,
  };
}

/**
 * Apply profile changes to the acting user's own row in one transaction (read, merge, write) and
 * return the updated account.
 */
export async function updateOwnProfile(
  db: Db,
  userId: number,
  changes: ProfileChanges,
  adminId: number | null = null,
): Promise<User> {
  return inTransaction(db, async (trx) => {
    const current = await findUserById(trx, userId);
    if (!current) throw new Error(`User ${userId} not found`);
    await trx
      .updateTable('users')
      .set({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.timezone !== undefined ? { timezone: changes.timezone } : {}),
        ...(changes.tagParams !== undefined
          ? { tag_params: changes.tagParams?.length ? toJson(changes.tagParams) : null }
          : {}),
        ...(changes.profile !== undefined ? { profile: toJson({ ...current.profile, ...changes.profile }) } : {}),
        ...(changes.contacts !== undefined ? { contacts: toJson(changes.contacts) } : {}),
        ...(changes.sellersJson !== undefined
          ? { sellers_json: changes.sellersJson ? toJson(changes.sellersJson) : null }
          : {}),
        updated_at: nowIso(),
      })
      .where('id', '=', userId)
      .execute();
    const updated = await findUserById(trx, userId);
    if (!updated) throw new Error(`User ${userId} vanished during update`);
    // Profile changes are changes too, also those an admin makes while impersonating.
    await recordActivity(trx, {
      tenantId: updated.type === 'admin' ? null : (updated.tenantId ?? updated.id),
      userId,
      adminId,
      kind: 'profile',
      entityId: userId,
      action: 'update',
      before: profileSnapshot(current),
      after: profileSnapshot(updated),
    });
    return updated;
  });
}

/** Enable (1) or disable (0) an account seen from a tenant (null: an admin, any account). Returns whether it changed a row. */
export async function setUserStatus(db: Db, tenantId: number | null, id: number, status: 0 | 1): Promise<boolean> {
  let query = db.updateTable('users').set({ status, updated_at: nowIso() }).where('id', '=', id);
  if (tenantId !== null) query = query.where('tenant_id', '=', tenantId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
