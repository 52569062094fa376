import { type Kysely, sql } from 'kysely';
import { type ListPage, type ListQuery, type UserType } from '@adplane/shared';
import { type Dialect } from './db.js';
import { nowIso, toJson } from './json.js';
import { type Database } from './schema.js';
import { type NewUser, type ProfileDetails, type SellersJson, type User, findUserById, userFromRow } from './users.js';

/**
 * Accounts managed from the console (demand accounts, subpublishers, advertisers, managers): users
 * rows of one type, listed and changed by their tenant (or by admins, across tenants).
 */
type Db = Kysely<Database>;

export interface AccountFilter {
  type: UserType;
  /** null: every tenant (admins). */
  tenantId: number | null;
  /** Managers: only demand users with a manager; demand accounts: only those without. */
  managed?: boolean;
}

export type AccountRow = User & { archived: boolean };

async function archivedOf(db: Db, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db
    .withTables<{ users: { id: number; archived: number } }>()
    .selectFrom('users')
    .select(['id', 'archived'])
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.filter((r) => r.archived === 1).map((r) => r.id));
}

function filtered(db: Db, f: AccountFilter) {
  let q = db.withTables<{ users: { archived: number } }>().selectFrom('users').where('type', '=', f.type);
  if (f.tenantId !== null) q = q.where('tenant_id', '=', f.tenantId);
  if (f.managed === true) q = q.where('manager_id', 'is not', null);
  if (f.managed === false) q = q.where('manager_id', 'is', null);
  return q;
}

/** Allow-listed sort keys; a Map so that `sort=constructor` misses instead of reaching Object.prototype. */
const SORTS: ReadonlyMap<string, string> = new Map([
  ['id', 'id'],
  ['name', 'name'],
  ['username', 'username'],
  ['status', 'status'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
]);

export async function listAccounts(
  db: Db,
  dialect: Dialect,
  f: AccountFilter,
  query: ListQuery,
): Promise<ListPage<AccountRow>> {
  let q = filtered(db, f);
  if (query.status === 'archived') q = q.where('archived', '=', 1);
  else {
    q = q.where('archived', '=', 0);
    if (query.status === 'active') q = q.where('status', '=', 1);
    if (query.status === 'paused') q = q.where('status', '=', 0);
  }
  if (query.search) {
    const term = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) =>
      eb.or(
        ['name', 'username', 'email'].map((col) =>
          dialect === 'postgres'
            ? eb(sql.ref(col), 'ilike', sql`${term}`)
            : eb(sql`lower(${sql.ref(col)})`, 'like', sql`lower(${term}) escape '\\'`),
        ),
      ),
    );
  }
  const { n } = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await q
    .selectAll()
    .orderBy(sql`${sql.ref(SORTS.get(query.sort) ?? 'id')} ${query.order === 'asc' ? sql`asc` : sql`desc`}`)
    .orderBy('id', 'desc')
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)
    .execute();
  return {
    items: rows.map((r) => ({ ...userFromRow(r as never), archived: r.archived === 1 })),
    total: Number(n),
    page: query.page,
    pageSize: query.pageSize,
  };
}

export async function listAllAccounts(db: Db, f: AccountFilter): Promise<AccountRow[]> {
  const rows = await filtered(db, f).selectAll().orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ ...userFromRow(r as never), archived: r.archived === 1 }));
}

export async function getAccount(db: Db, f: AccountFilter, id: number): Promise<AccountRow | null> {
  const row = await filtered(db, f).selectAll().where('id', '=', id).executeTakeFirst();
  return row ? { ...userFromRow(row as never), archived: row.archived === 1 } : null;
}

export async function getAccountById(db: Db, id: number): Promise<AccountRow | null> {
  const user = await findUserById(db, id);
  if (!user) return null;
  return { ...user, archived: (await archivedOf(db, [id])).has(id) };
}

/** Fields an account form changes; a missing key leaves the column as it is. */
export type AccountChanges = Partial<
  Pick<
    NewUser,
    | 'name'
    | 'username'
    | 'email'
    | 'domain'
    | 'status'
    | 'timezone'
    | 'showDsp'
    | 'showPostbidPix'
    | 'showPostbidWh'
    | 'showCheckIVT'
    | 'showSystemCost'
    | 'showDemandToSubs'
    | 'showSupplyToAdvs'
    | 'requireTwoFactor'
    | 'priceReq'
    | 'priceImp'
    | 'pricePostbid'
    | 'priceDsp'
    | 'passwordHash'
  >
> & { profile?: Partial<ProfileDetails>; sellersJson?: SellersJson | null };

const bit = (v: boolean) => (v ? 1 : 0);

export async function updateAccount(db: Db, id: number, c: AccountChanges): Promise<void> {
  const current = await findUserById(db, id);
  if (!current) throw new Error(`Account ${id} not found`);
  await db
    .updateTable('users')
    .set({
      ...(c.name !== undefined ? { name: c.name } : {}),
      ...(c.username !== undefined ? { username: c.username.trim() } : {}),
      ...(c.email !== undefined ? { email: c.email ? c.email.trim().toLowerCase() : null } : {}),
      ...(c.domain !== undefined ? { domain: c.domain || null } : {}),
      ...(c.status !== undefined ? { status: c.status } : {}),
      ...(c.timezone !== undefined ? { timezone: c.timezone } : {}),
      ...(c.showDsp !== undefined ? { show_dsp: bit(c.showDsp) } : {}),
      ...(c.showPostbidPix !== undefined ? { show_postbid_pix: bit(c.showPostbidPix) } : {}),
      ...(c.showPostbidWh !== undefined ? { show_postbid_wh: bit(c.showPostbidWh) } : {}),
      ...(c.showCheckIVT !== undefined ? { show_check_ivt: bit(c.showCheckIVT) } : {}),
      ...(c.showSystemCost !== undefined ? { show_system_cost: bit(c.showSystemCost) } : {}),
      ...(c.showDemandToSubs !== undefined ? { show_demand_to_subs: bit(c.showDemandToSubs) } : {}),
      ...(c.showSupplyToAdvs !== undefined ? { show_supply_to_advs: bit(c.showSupplyToAdvs) } : {}),
      ...(c.requireTwoFactor !== undefined ? { require_two_factor: bit(c.requireTwoFactor) } : {}),
      ...(c.priceReq !== undefined ? { price_req: c.priceReq } : {}),
      ...(c.priceImp !== undefined ? { price_imp: c.priceImp } : {}),
      ...(c.pricePostbid !== undefined ? { price_postbid: c.pricePostbid } : {}),
      ...(c.priceDsp !== undefined ? { price_dsp: c.priceDsp } : {}),
      ...(c.passwordHash ? { password_hash: c.passwordHash } : {}),
      ...(c.profile !== undefined ? { profile: toJson({ ...current.profile, ...c.profile }) } : {}),
      ...(c.sellersJson !== undefined ? { sellers_json: c.sellersJson ? toJson(c.sellersJson) : null } : {}),
      updated_at: nowIso(),
    })
    .where('id', '=', id)
    .execute();
}

export async function setAccountArchived(db: Db, id: number, archived: boolean): Promise<void> {
  await db
    .withTables<{ users: { archived: number } }>()
    .updateTable('users')
    .set({ archived: archived ? 1 : 0, updated_at: nowIso() })
    .where('id', '=', id)
    .execute();
  // An archived account cannot keep signing in.
  if (archived) await db.deleteFrom('sessions').where('user_id', '=', id).execute();
}

/** Whether a sign-in name is another account's username or e-mail (any case, any tenant). */
export async function loginTaken(db: Db, value: string, exceptId?: number): Promise<boolean> {
  const key = value.trim().toLowerCase();
  let q = db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb.or([eb(eb.fn('lower', ['username']), '=', key), eb(eb.fn('lower', ['email']), '=', key)]));
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Rows that point at an account (channels of a subpublisher, campaigns of an advertiser...). */
export async function accountReferenceCount(db: Db, id: number): Promise<number> {
  const { n } = await db
    .withTables<{ entity_refs: { to_kind: string; to_id: number } }>()
    .selectFrom('entity_refs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('to_kind', 'in', ['subs', 'advs'])
    .where('to_id', '=', id)
    .executeTakeFirstOrThrow();
  return Number(n);
}
