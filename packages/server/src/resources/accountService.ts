import { randomBytes } from 'node:crypto';
import {
  DEMAND_PRICE_FIELDS,
  type FieldError,
  type ListItem,
  type ListPage,
  type ListQuery,
  type PlatformUser,
  PlatformUserInput,
  type ResourceDef,
  type SubSellerEntry,
  type UserType,
} from '@adplane/shared';
import { hashPassword } from '../auth/passwords.js';
import { requireDemandAction, requireDemandUpdate } from '../auth/adminRights.js';
import { isSuperAdmin, tenantIdOf } from '../auth/tenancy.js';
import { HttpError, badField, forbidden, notFound } from '../http/errors.js';
import {
  type AccountChanges,
  type AccountFilter,
  type AccountRow,
  accountReferenceCount,
  getAccount,
  listAccounts,
  listAllAccounts,
  loginTaken,
  setAccountArchived,
  updateAccount,
} from '../store/accounts.js';
import { recordActivity } from '../store/activity.js';
import { inTransaction, type Store } from '../store/db.js';
import { ENTITY_TABLES } from '../store/entityTables.js';
import { deleteSessionsOfUser } from '../store/sessions.js';
import { endSessionsWithoutTwoFactor } from '../store/twoFactor.js';
import { createUser, type User } from '../store/users.js';
import { subEntryIdOf, type SubSellerIdChange, subSellerIdErrors } from '../supplyChain/sellerIds.js';
import { readSellerAccountsForSave } from '../supplyChain/sellersJson.js';
import { type Actor, ValidationFailed } from './entityService.js';

/**
 * Accounts managed from the console: subpublishers and advertisers of a tenant, its managers (team
 * members, CTVMediaV2V) and, for admins, the demand accounts (tenants) themselves. Only the super
 * admin creates, deletes or re-prices demand accounts.
 */
const TYPE_OF: Record<string, UserType> = { subs: 'sub', advs: 'adv', managers: 'demand', demands: 'demand' };

export interface AccountAccess {
  write: boolean;
  filter: AccountFilter;
}

export function accessTo(def: ResourceDef, actor: Actor): AccountAccess {
  const user = actor.user;
  const type = TYPE_OF[def.kind];
  const managed = def.kind === 'managers' ? true : def.kind === 'demands' ? false : undefined;
  if (user.type === 'admin') return { write: true, filter: { type, tenantId: null, managed } };
  if (def.kind === 'demands') throw forbidden();
  if (user.type !== 'demand') throw forbidden();
  if (def.kind === 'managers' && user.managerId !== null) throw forbidden('Only the account owner manages its team');
  return { write: true, filter: { type, tenantId: tenantIdOf(user), managed } };
}

export type AccountDto = Record<string, unknown> & { id: number; name: string };

export function accountDto(def: ResourceDef, a: AccountRow): AccountDto {
  const dto: AccountDto = {
    id: a.id,
    tenantId: a.tenantId,
    name: a.name,
    username: a.username,
    email: a.email ?? '',
    status: a.status === 0 ? 0 : 1,
    archived: a.archived,
    companyName: a.profile.companyName,
    domain: a.domain ?? '',
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
  if (def.kind === 'subs') dto.sellersJson = a.sellersJson;
  if (def.kind === 'managers') dto.managerId = a.managerId;
  if (def.kind === 'demands') {
    Object.assign(dto, {
      uid: a.uid,
      timezone: a.timezone,
      priceReq: a.priceReq,
      priceImp: a.priceImp,
      priceDsp: a.priceDsp,
      pricePostbid: a.pricePostbid,
      showDsp: a.showDsp,
      showPostbidPix: a.showPostbidPix,
      showPostbidWh: a.showPostbidWh,
      showCheckIVT: a.showCheckIVT,
      showSystemCost: a.showSystemCost,
      showDemandToSubs: a.showDemandToSubs,
      showSupplyToAdvs: a.showSupplyToAdvs,
      requireTwoFactor: a.requireTwoFactor,
      contactExpired: a.profile.contactExpired,
    });
  }
  return dto;
}

export async function listAccountPage(
  store: Store,
  def: ResourceDef,
  actor: Actor,
  query: ListQuery,
): Promise<ListPage<AccountDto>> {
  const { filter } = accessTo(def, actor);
  const page = await listAccounts(store.db, store.dialect, filter, query);
  return { ...page, items: page.items.map((a) => accountDto(def, a)) };
}

export async function listAccountItems(store: Store, def: ResourceDef, actor: Actor): Promise<ListItem[]> {
  const { filter } = accessTo(def, actor);
  const rows = await listAllAccounts(store.db, filter);
  return rows.map((a) => ({
    id: a.id,
    name: a.name,
    uid: a.uid,
    status: a.status,
    archived: a.archived,
    tenantId: a.tenantId,
    // a demand account's contract end, for the admins' notice of expired and expiring contracts
    ...(def.kind === 'demands' ? { contactExpired: a.profile.contactExpired, timezone: a.timezone } : {}),
  }));
}

export async function getAccountDto(store: Store, def: ResourceDef, actor: Actor, id: number): Promise<AccountDto> {
  const { filter } = accessTo(def, actor);
  const a = await getAccount(store.db, filter, id);
  if (!a) throw notFound(`${def.label} ${id} not found`);
  return accountDto(def, a);
}

/**
 * User names and e-mails are both sign-in names: neither may equal another account's user name or
 * e-mail, in any case, across all tenants (an e-mail sign-in could otherwise be captured).
 */
async function checkLogins(store: Store, value: { username: string; email: string }, exceptId?: number): Promise<void> {
  const errors: FieldError[] = [];
  if (await loginTaken(store.db, value.username, exceptId))
    errors.push({ field: 'username', message: 'is taken by another account' });
  if (value.email && (await loginTaken(store.db, value.email, exceptId)))
    errors.push({ field: 'email', message: 'is taken by another account' });
  if (errors.length) throw new ValidationFailed(errors);
}

/**
 * A subpublisher's Sellers JSON id must be no other seller's (supplyChain/sellerIds.ts): checked in
 * the transaction that writes it, under the seller-id lock (two saves of one id: the second fails).
 */
async function checkSellerId(trx: Store['db'], dialect: Store['dialect'], change: SubSellerIdChange): Promise<void> {
  if (!subEntryIdOf(change.after)) return;
  const errors = subSellerIdErrors(await readSellerAccountsForSave(trx, dialect), change);
  if (errors.length) throw new ValidationFailed(errors);
}

/** The owner tenant of a new sub, adv or manager: the caller's, or for admins the `tenantId` named. */
async function ownerTenant(store: Store, filter: AccountFilter, body: unknown): Promise<number> {
  if (filter.tenantId !== null) return filter.tenantId;
  const raw = (body as { tenantId?: unknown } | null)?.tenantId;
  if (typeof raw !== 'number') throw badField('tenantId', 'is required: the demand account the account belongs to');
  const owner = await getAccount(store.db, { type: 'demand', tenantId: null, managed: false }, raw);
  if (!owner) throw badField('tenantId', `demand account ${raw} does not exist`);
  return raw;
}

function changesFrom(def: ResourceDef, v: Record<string, unknown>): AccountChanges {
  const c: AccountChanges = {
    name: v.name as string,
    username: v.username as string,
    email: (v.email as string) || null,
    status: v.status as number,
    domain: (v.domain as string | undefined) ?? undefined,
    profile: { companyName: v.companyName as string },
  };
  if (def.kind === 'subs') c.sellersJson = v.sellersJson as SubSellerEntry;
  if (def.kind === 'demands') {
    Object.assign(c, {
      timezone: v.timezone,
      priceReq: v.priceReq,
      priceImp: v.priceImp,
      priceDsp: v.priceDsp,
      pricePostbid: v.pricePostbid,
      showDsp: v.showDsp,
      showPostbidPix: v.showPostbidPix,
      showPostbidWh: v.showPostbidWh,
      showCheckIVT: v.showCheckIVT,
      showSystemCost: v.showSystemCost,
      showDemandToSubs: v.showDemandToSubs,
      showSupplyToAdvs: v.showSupplyToAdvs,
      requireTwoFactor: v.requireTwoFactor,
    });
  }
  return c;
}

export async function createAccount(store: Store, def: ResourceDef, actor: Actor, body: unknown): Promise<AccountDto> {
  const { filter } = accessTo(def, actor);
  if (def.kind === 'demands') requireDemandAction(actor.user, 'create');
  const v = def.schema.parse(body ?? {}) as Record<string, unknown>;
  if (!v.password) throw badField('password', 'is required for a new account');
  await checkLogins(store, v as { username: string; email: string });
  const tenantId = def.kind === 'demands' ? undefined : await ownerTenant(store, filter, body);
  const c = changesFrom(def, v);
  const passwordHash = await hashPassword(v.password as string);
  const created = await inTransaction(store.db, async (trx) => {
    if (def.kind === 'subs' && tenantId !== undefined)
      await checkSellerId(trx, store.dialect, { accountId: null, tenantId, before: null, after: c.sellersJson });
    const user = await createUser(trx, {
      type: filter.type,
      username: c.username!,
      email: c.email,
      passwordHash,
      name: c.name!,
      domain: c.domain || null,
      tenantId,
      managerId: def.kind === 'managers' ? tenantId : null,
      status: c.status,
      profile: c.profile,
      sellersJson: c.sellersJson ?? null,
      ...(def.kind === 'demands'
        ? {
            uid: randomBytes(4).toString('hex'),
            token: randomBytes(24).toString('hex'),
            timezone: c.timezone,
            priceReq: c.priceReq,
            priceImp: c.priceImp,
            priceDsp: c.priceDsp,
            pricePostbid: c.pricePostbid,
            showDsp: c.showDsp,
            showPostbidPix: c.showPostbidPix,
            showPostbidWh: c.showPostbidWh,
            showCheckIVT: c.showCheckIVT,
            showSystemCost: c.showSystemCost,
            showDemandToSubs: c.showDemandToSubs,
            showSupplyToAdvs: c.showSupplyToAdvs,
            requireTwoFactor: c.requireTwoFactor,
          }
        : {}),
    });
    const dto = accountDto(def, { ...user, archived: false });
    await recordActivity(trx, {
      tenantId: user.tenantId,
      userId: actor.user.id,
      adminId: actor.adminId,
      kind: def.kind,
      entityId: user.id,
      action: 'create',
      before: null,
      after: dto,
    });
    return dto;
  });
  return created;
}

/**
 * A PUT replaces the account, and a price left out would default to 0: money is never overwritten by
 * a missing field. Send the stored value to keep it.
 */
function requireStoredMoney(body: unknown): void {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const missing = DEMAND_PRICE_FIELDS.filter((field) => !Object.hasOwn(record, field));
  if (missing.length) {
    throw new ValidationFailed(
      missing.map((field) => ({
        field,
        message: 'is required on update (send the current value to keep it): a missing price is never taken as 0',
      })),
    );
  }
}

export async function updateAccountFromBody(
  store: Store,
  def: ResourceDef,
  actor: Actor,
  id: number,
  body: unknown,
): Promise<AccountDto> {
  const { filter } = accessTo(def, actor);
  const before = await getAccount(store.db, filter, id);
  if (!before) throw notFound(`${def.label} ${id} not found`);
  if (before.archived) throw new HttpError(409, `${def.label} ${id} is archived: restore it before editing`);
  if (def.kind === 'demands') requireStoredMoney(body);
  const v = def.schema.parse(body ?? {}) as Record<string, unknown>;
  await checkLogins(store, v as { username: string; email: string }, id);
  const c = changesFrom(def, v);
  if (def.kind === 'demands') requireDemandUpdate(actor.user, accountDto(def, before), v);
  if (v.password) c.passwordHash = await hashPassword(v.password as string);
  return inTransaction(store.db, async (trx) => {
    if (def.kind === 'subs' && before.tenantId !== null)
      await checkSellerId(trx, store.dialect, {
        accountId: id,
        tenantId: before.tenantId,
        before: before.sellersJson,
        after: c.sellersJson,
      });
    await updateAccount(trx, id, c);
    // A new password ends every session of the account (a thief's among them).
    if (c.passwordHash) await deleteSessionsOfUser(trx, id);
    // A tenant that begins to require two-factor sign-in: its users without it sign in again, and enrol.
    if (def.kind === 'demands' && c.requireTwoFactor && !before.requireTwoFactor)
      await endSessionsWithoutTwoFactor(trx, id);
    const after = (await getAccount(trx, filter, id))!;
    const dto = accountDto(def, after);
    await recordActivity(trx, {
      tenantId: after.tenantId,
      userId: actor.user.id,
      adminId: actor.adminId,
      kind: def.kind,
      entityId: id,
      action: 'update',
      before: accountDto(def, before),
      after: dto,
    });
    return dto;
  });
}

export async function setAccountArchivedFor(
  store: Store,
  def: ResourceDef,
  actor: Actor,
  id: number,
  archived: boolean,
): Promise<AccountDto> {
  const { filter } = accessTo(def, actor);
  if (def.kind === 'demands') requireDemandAction(actor.user, archived ? 'archive' : 'restore');
  const before = await getAccount(store.db, filter, id);
  if (!before) throw notFound(`${def.label} ${id} not found`);
  return inTransaction(store.db, async (trx) => {
    await setAccountArchived(trx, id, archived);
    const after = (await getAccount(trx, filter, id))!;
    const dto = accountDto(def, after);
    await recordActivity(trx, {
      tenantId: after.tenantId,
      userId: actor.user.id,
      adminId: actor.adminId,
      kind: def.kind,
      entityId: id,
      action: archived ? 'archive' : 'restore',
      before: accountDto(def, before),
      after: dto,
    });
    return dto;
  });
}

/** Only an account nothing refers to (and, for a demand account, an empty tenant) can be deleted. */
export async function deleteAccount(store: Store, def: ResourceDef, actor: Actor, id: number): Promise<void> {
  const { filter } = accessTo(def, actor);
  if (def.kind === 'demands') requireDemandAction(actor.user, 'delete');
  const before = await getAccount(store.db, filter, id);
  if (!before) throw notFound(`${def.label} ${id} not found`);
  if ((await accountReferenceCount(store.db, id)) > 0) {
    throw new HttpError(
      409,
      `Cannot delete this ${def.label.toLowerCase()}: rows still refer to it. Archive it instead.`,
    );
  }
  if (def.kind === 'demands' && (await tenantHasRows(store, id))) {
    throw new HttpError(409, 'Cannot delete this demand account: it still has users or inventory. Archive it instead.');
  }
  await inTransaction(store.db, async (trx) => {
    // The activity log keeps the account's past changes: it outlives the accounts it describes.
    await trx.deleteFrom('ui_settings').where('user_id', '=', id).execute();
    await trx.deleteFrom('users').where('id', '=', id).execute();
    await recordActivity(trx, {
      tenantId: before.tenantId === id ? null : before.tenantId,
      userId: actor.user.id,
      adminId: actor.adminId,
      kind: def.kind,
      entityId: id,
      action: 'delete',
      before: accountDto(def, before),
      after: null,
    });
  });
}

async function tenantHasRows(store: Store, tenantId: number): Promise<boolean> {
  const other = await store.db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '!=', tenantId)
    .executeTakeFirst();
  if (other) return true;
  for (const table of Object.values(ENTITY_TABLES)) {
    const row = await store.db
      .withTables<Record<typeof table, { id: number; tenant_id: number | null }>>()
      .selectFrom(table)
      .select('id')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (row) return true;
  }
  return false;
}

/** Admins and SDK users, for the admins' Users page: every admin, and the SDK users of every tenant. */
export async function listPlatformUsers(store: Store): Promise<PlatformUser[]> {
  const rows = [
    ...(await listAllAccounts(store.db, { type: 'admin', tenantId: null })),
    ...(await listAllAccounts(store.db, { type: 'sdk', tenantId: null })),
  ];
  return rows.map(platformUserOf);
}

const platformUserOf = (a: AccountRow | User): PlatformUser => ({
  id: a.id,
  type: a.type as PlatformUser['type'],
  name: a.name,
  username: a.username,
  email: a.email ?? '',
  status: a.status === 0 ? 0 : 1,
  tenantId: a.tenantId,
  uid: a.uid,
  createdAt: a.createdAt,
});

/**
 * An admin makes an admin (the super admin only) or an SDK user of a demand account, with the
 * checks every account has: the schema's rules, a password, sign-in names no other account holds.
 */
export async function createPlatformUser(store: Store, actor: Actor, body: unknown): Promise<PlatformUser> {
  if (actor.user.type !== 'admin') throw forbidden();
  const v = PlatformUserInput.parse(body ?? {});
  if (v.type === 'admin' && !isSuperAdmin(actor.user)) throw forbidden('Only the super admin can create admins');
  if (!v.password) throw badField('password', 'is required for a new account');
  await checkLogins(store, v);
  const tenantId =
    v.type === 'sdk' ? await ownerTenant(store, { type: 'demand', tenantId: null }, { tenantId: v.tenantId }) : null;
  const passwordHash = await hashPassword(v.password);
  return inTransaction(store.db, async (trx) => {
    const user = await createUser(trx, {
      type: v.type,
      username: v.username,
      email: v.email || null,
      passwordHash,
      name: v.name,
      status: v.status,
      tenantId,
      profile: { companyName: v.companyName },
      // an admin's tag (never 'super': there is one super admin); an SDK user's API token
      ...(v.type === 'admin' ? { uid: randomBytes(4).toString('hex') } : { token: randomBytes(24).toString('hex') }),
    });
    const made = platformUserOf(user);
    await recordActivity(trx, {
      tenantId,
      userId: actor.user.id,
      adminId: actor.adminId,
      kind: 'users',
      entityId: user.id,
      action: 'create',
      before: null,
      after: made,
    });
    return made;
  });
}
