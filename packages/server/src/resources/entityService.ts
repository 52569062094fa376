import { type Kysely } from 'kysely';
import { z } from 'zod';
import {
  ENTITY_NAME_MAX,
  fieldErrors,
  type FieldError,
  type ListItem,
  type ListPage,
  type ListQuery,
  RESOURCES,
  type ResourceDef,
  type ResourceKind,
} from '@adplane/shared';
import { HttpError, badField, forbidden, notFound } from '../http/errors.js';
import { recordActivity } from '../store/activity.js';
import { inTransaction, type Store } from '../store/db.js';
import {
  type EntityRow,
  type EntityWrite,
  deleteEntity,
  existingIds,
  findLiveRowWith,
  getEntities,
  getEntity,
  insertEntity,
  listAllEntities,
  listEntities,
  listEntityNames,
  namesOf,
  referrersTo,
  setEntityArchived,
  updateEntity,
} from '../store/entities.js';
import { type EntityKind, isEntityKind } from '../store/entityTables.js';
import { type Database } from '../store/schema.js';
import { type User } from '../store/users.js';
import { type Access, accessTo } from './access.js';

/** The caller of a resource operation. */
export interface Actor {
  user: User;
  adminId: number | null;
}

/** What the API answers for a row: meta columns and the kind's typed fields side by side. */
export type EntityDto = Omit<EntityRow, 'data'> & Record<string, unknown>;

export function toDto(row: EntityRow): EntityDto {
  const { data, ...meta } = row;
  return { ...data, ...meta };
}

function access(def: ResourceDef, actor: Actor, need: 'read' | 'write'): Access {
  const a = accessTo(def, actor.user);
  if (a.level === 'none' || (need === 'write' && a.level !== 'write')) {
    throw forbidden(a.level === 'read' ? `${def.plural} are read-only for you` : 'Forbidden');
  }
  return a;
}

function entityKind(def: ResourceDef): EntityKind {
  if (!isEntityKind(def.kind)) throw new Error(`${def.kind} is not stored as an entity`);
  return def.kind;
}

/** Which tenant a new row belongs to: the caller's, or for admins the `tenantId` they name. */
async function tenantForCreate(
  db: Kysely<Database>,
  def: ResourceDef,
  a: Access,
  body: unknown,
): Promise<number | null> {
  if (def.audience === 'admin') return null;
  if (a.scope.tenantId !== null) return a.scope.tenantId;
  const raw = (body as { tenantId?: unknown } | null)?.tenantId;
  if (typeof raw !== 'number' || !Number.isInteger(raw))
    throw badField('tenantId', 'is required: the demand account the row belongs to');
  const tenant = await db
    .selectFrom('users')
    .select('id')
    .where('id', '=', raw)
    .where('type', '=', 'demand')
    .where('manager_id', 'is', null)
    .executeTakeFirst();
  if (!tenant) throw badField('tenantId', `demand account ${raw} does not exist`);
  return raw;
}

/** Validate a body with the kind's schema, its own rules and its references (all in the tenant). */
export async function prepareWrite(
  db: Kysely<Database>,
  def: ResourceDef,
  tenantId: number | null,
  body: unknown,
  selfId: number | null = null,
): Promise<EntityWrite> {
  const value = def.schema.parse(body ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = await uniqueFieldsTaken(db, def, tenantId, value, selfId);
  const refs: EntityWrite['refs'] = [];
  for (const ref of def.refs) {
    const ids = [...new Set(ref.ids(value))];
    if (ids.length === 0) continue;
    const found = await existingRefIds(db, ref.kind, tenantId, ids);
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) {
      errors.push({
        field: ref.field,
        message: `${RESOURCES[ref.kind].label} ${missing.join(', ')} does not exist or is archived`,
      });
    }
    for (const id of ids) refs.push({ field: ref.field, kind: ref.kind, id });
  }
  if (errors.length) throw validationError(errors);
  const { name, status, tenantId: _tenantId, ...data } = value;
  const assigned = (field: string | undefined) =>
    field && typeof value[field] === 'number' ? (value[field] as number) : null;
  return {
    name: String((def.nameFrom ? value[def.nameFrom] : name) ?? ''),
    status: status === 0 ? 0 : 1,
    subId: assigned(def.assignedTo?.sub),
    advId: assigned(def.assignedTo?.adv),
    data,
    refs,
  };
}

/** The kind's `unique` fields (declared in its home): no other live row of the tenant may hold the same value. */
async function uniqueFieldsTaken(
  db: Kysely<Database>,
  def: ResourceDef,
  tenantId: number | null,
  value: Record<string, unknown>,
  selfId: number | null,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const rule of def.unique ?? []) {
    const other = await findLiveRowWith(
      db,
      entityKind(def),
      tenantId,
      rule.field,
      value[rule.field],
      def.nameFrom === rule.field,
      selfId,
    );
    if (other !== null) errors.push({ field: rule.field, message: rule.message(other) });
  }
  return errors;
}

const ACCOUNT_TYPES: Partial<Record<ResourceKind, 'sub' | 'adv'>> = { subs: 'sub', advs: 'adv' };

async function existingRefIds(
  db: Kysely<Database>,
  kind: ResourceKind,
  tenantId: number | null,
  ids: number[],
): Promise<Set<number>> {
  const accountType = ACCOUNT_TYPES[kind];
  if (accountType) {
    let q = db.selectFrom('users').select('id').where('id', 'in', ids).where('type', '=', accountType);
    if (tenantId !== null) q = q.where('tenant_id', '=', tenantId);
    return new Set((await q.execute()).map((r) => r.id));
  }
  if (!isEntityKind(kind)) return new Set();
  return existingIds(db, kind, tenantId, ids);
}

export class ValidationFailed extends HttpError {
  constructor(readonly errors: FieldError[]) {
    super(400, errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors[0]?.field);
  }
}

/**
 * Why prepareWrite refused a row's document, in words a caller puts in its own message (a batch that
 * writes rows for the user: adding to lists, setting a channel's campaigns); null: not a refusal.
 */
export function whyRefused(error: unknown): string | null {
  if (error instanceof ValidationFailed) return error.message;
  if (error instanceof z.ZodError)
    return fieldErrors(error)
      .map((e) => `${e.field} ${e.message}`)
      .join('; ');
  return null;
}

function validationError(errors: FieldError[]): ValidationFailed {
  return new ValidationFailed(errors);
}

export async function listPage(
  store: Store,
  def: ResourceDef,
  actor: Actor,
  query: ListQuery,
): Promise<ListPage<EntityDto>> {
  const a = access(def, actor, 'read');
  const page = await listEntities(
    store.db,
    store.dialect,
    entityKind(def),
    a.scope,
    query,
    def.sortable ?? [],
    def.unlimitedSortable ?? [],
  );
  return { ...page, items: page.items.map(toDto) };
}

/** The shared list of a kind (its id-and-name list): id and name, plus what the list pages need; archived rows too, flagged. */
export async function listItems(store: Store, def: ResourceDef, actor: Actor, namesOnly = false): Promise<ListItem[]> {
  const a = access(def, actor, 'read');
  if (namesOnly) return listEntityNames(store.db, entityKind(def), a.scope);
  const rows = await listAllEntities(store.db, entityKind(def), a.scope);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    uid: r.uid,
    status: r.status,
    archived: r.archived,
    tenantId: r.tenantId,
    ...def.listExtras?.(r.data),
  }));
}

export async function getOne(store: Store, def: ResourceDef, actor: Actor, id: number): Promise<EntityDto> {
  const a = access(def, actor, 'read');
  const row = await getEntity(store.db, entityKind(def), a.scope, id);
  if (!row) throw notFound(`${def.label} ${id} not found`);
  return toDto(row);
}

export async function createOne(store: Store, def: ResourceDef, actor: Actor, body: unknown): Promise<EntityDto> {
  const a = access(def, actor, 'write');
  const kind = entityKind(def);
  const tenantId = await tenantForCreate(store.db, def, a, body);
  const write = await prepareWrite(store.db, def, tenantId, body);
  const row = await inTransaction(store.db, async (trx) => {
    const created = await insertEntity(trx, kind, tenantId, write, { uid: def.uid, userId: actor.user.id });
    await recordActivity(trx, {
      ...who(actor, tenantId),
      kind,
      entityId: created.id,
      action: 'create',
      before: null,
      after: toDto(created),
    });
    return created;
  });
  return toDto(row);
}

/**
 * The body of an update with the kind's `keptOnUpdate` fields taken from the stored document when the
 * body names none of them (a campaign's channel assignment stays the one chosen); a body naming any of
 * them is read as sent, and the schema says what is missing.
 */
function withKeptFields(def: ResourceDef, body: unknown, stored: Record<string, unknown>): unknown {
  const kept = def.keptOnUpdate;
  if (!kept?.length || !body || typeof body !== 'object' || Array.isArray(body)) return body;
  const sent = body as Record<string, unknown>;
  if (kept.some((field) => sent[field] !== undefined)) return body;
  return { ...sent, ...Object.fromEntries(kept.filter((f) => f in stored).map((f) => [f, stored[f]])) };
}

export async function updateOne(
  store: Store,
  def: ResourceDef,
  actor: Actor,
  id: number,
  body: unknown,
): Promise<EntityDto> {
  const a = access(def, actor, 'write');
  const kind = entityKind(def);
  const before = await getEntity(store.db, kind, a.scope, id);
  if (!before) throw notFound(`${def.label} ${id} not found`);
  if (before.archived) throw new HttpError(409, `${def.label} ${id} is archived: restore it before editing`);
  const write = await prepareWrite(store.db, def, before.tenantId, withKeptFields(def, body, before.data), id);
  const row = await inTransaction(store.db, (trx) => saveUpdate(trx, def, actor, before, write));
  return toDto(row);
}

/**
 * The write of an edit, in the caller's transaction: the row's new document and the activity entry a
 * save records (its change history; the entry bumps the config version). `write` is checked already
 * (prepareWrite). Every edit of a row's document goes through here, whoever asks for it.
 */
export async function saveUpdate(
  trx: Kysely<Database>,
  def: ResourceDef,
  actor: Actor,
  before: EntityRow,
  write: EntityWrite,
): Promise<EntityRow> {
  const kind = entityKind(def);
  const updated = await updateEntity(trx, kind, before.id, write, actor.user.id);
  await recordActivity(trx, {
    ...who(actor, before.tenantId),
    kind,
    entityId: before.id,
    action: 'update',
    before: toDto(before),
    after: toDto(updated),
  });
  return updated;
}

const COPY_SUFFIX = ' (copy)';

/**
 * "<name> (copy)"; when that passes the name's limit, the original part is shortened with an ellipsis
 * so that the copy still says it is one ("<start of name>… (copy)").
 */
function copyName(name: string): string {
  const whole = `${name}${COPY_SUFFIX}`;
  if (whole.length <= ENTITY_NAME_MAX) return whole;
  let kept = name.slice(0, ENTITY_NAME_MAX - COPY_SUFFIX.length - 1);
  // never end on half of a surrogate pair (an emoji cut in two)
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return `${kept.trimEnd()}…${COPY_SUFFIX}`;
}

/** A copy named "<name> (copy)", paused so that it serves nothing until someone looks at it. */
export async function duplicateOne(store: Store, def: ResourceDef, actor: Actor, id: number): Promise<EntityDto> {
  access(def, actor, 'write');
  const source = await getOne(store, def, actor, id);
  const kind = entityKind(def);
  const fromRow = (await getEntity(store.db, kind, { tenantId: null }, id))!;
  const body = { ...fromRow.data, name: copyName(fromRow.name), status: 0 };
  const write = await prepareWrite(store.db, def, fromRow.tenantId, body);
  const row = await inTransaction(store.db, async (trx) => {
    const created = await insertEntity(trx, kind, fromRow.tenantId, write, { uid: def.uid, userId: actor.user.id });
    await recordActivity(trx, {
      ...who(actor, fromRow.tenantId),
      kind,
      entityId: created.id,
      action: 'duplicate',
      before: source,
      after: toDto(created),
    });
    return created;
  });
  return toDto(row);
}

/** Rows (not archived) that use this one, with names: what blocks archiving or deleting it. */
export async function usageOf(store: Store, def: ResourceDef, actor: Actor, id: number) {
  await getOne(store, def, actor, id);
  const refs = await referrersTo(store.db, def.kind, id);
  const byKind = new Map<EntityKind, number[]>();
  for (const r of refs) if (isEntityKind(r.kind)) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r.id]);
  const used: { kind: string; label: string; id: number; name: string; field: string; archived: boolean }[] = [];
  for (const [kind, ids] of byKind) {
    const names = await namesOf(store.db, kind, ids);
    const live = await existingIds(store.db, kind, null, ids);
    for (const r of refs.filter((x) => x.kind === kind)) {
      used.push({
        kind,
        label: RESOURCES[kind].label,
        id: r.id,
        name: names.get(r.id) ?? `#${r.id}`,
        field: r.field,
        archived: !live.has(r.id),
      });
    }
  }
  return used;
}

/**
 * GET {api}/:id/usage: the rows using this one, as far as the caller may see them (as usedBy does).
 * A sub or adv user reads a row assigned to it, not the tenant's other rows that use it: an
 * advertiser's creative is in campaigns of other advertisers, its tag in the tenant's channels.
 * Archiving and deleting still weigh every use (usageOf).
 */
export async function visibleUsageOf(store: Store, def: ResourceDef, actor: Actor, id: number) {
  const used = await usageOf(store, def, actor, id);
  const visible = new Map<string, Set<number>>();
  for (const kind of new Set(used.map((u) => u.kind))) {
    const a = accessTo(RESOURCES[kind as EntityKind], actor.user);
    const ids = used.filter((u) => u.kind === kind).map((u) => u.id);
    const rows = a.level === 'none' ? [] : await getEntities(store.db, kind as EntityKind, a.scope, ids);
    visible.set(kind, new Set(rows.map((r) => r.id)));
  }
  return used.filter((u) => visible.get(u.kind)?.has(u.id));
}

function inUse(def: ResourceDef, used: Awaited<ReturnType<typeof usageOf>>, verb: string): HttpError {
  const list = used
    .slice(0, 5)
    .map((u) => `${u.label} '${u.name}'`)
    .join(', ');
  const more = used.length > 5 ? ` and ${used.length - 5} more` : '';
  return new HttpError(
    409,
    `Cannot ${verb} this ${def.label.toLowerCase()}: it is used by ${list}${more}. Remove it there first.`,
  );
}

export async function setArchived(
  store: Store,
  def: ResourceDef,
  actor: Actor,
  id: number,
  archived: boolean,
): Promise<EntityDto> {
  const a = access(def, actor, 'write');
  const kind = entityKind(def);
  const before = await getEntity(store.db, kind, a.scope, id);
  if (!before) throw notFound(`${def.label} ${id} not found`);
  if (archived) {
    const live = (await usageOf(store, def, actor, id)).filter((u) => !u.archived);
    if (live.length) throw inUse(def, live, 'archive');
  }
  const row = await inTransaction(store.db, async (trx) => {
    const updated = await setEntityArchived(trx, kind, id, archived, actor.user.id);
    await recordActivity(trx, {
      ...who(actor, before.tenantId),
      kind,
      entityId: id,
      action: archived ? 'archive' : 'restore',
      before: toDto(before),
      after: toDto(updated),
    });
    return updated;
  });
  return toDto(row);
}

/** Deleting is for mistakes: only a row nothing refers to, not even archived rows. Archive keeps history. */
export async function deleteOne(store: Store, def: ResourceDef, actor: Actor, id: number): Promise<void> {
  const a = access(def, actor, 'write');
  const kind = entityKind(def);
  const before = await getEntity(store.db, kind, a.scope, id);
  if (!before) throw notFound(`${def.label} ${id} not found`);
  const used = await usageOf(store, def, actor, id);
  if (used.length) throw inUse(def, used, 'delete');
  await inTransaction(store.db, async (trx) => {
    await deleteEntity(trx, kind, id);
    await recordActivity(trx, {
      ...who(actor, before.tenantId),
      kind,
      entityId: id,
      action: 'delete',
      before: toDto(before),
      after: null,
    });
  });
}

function who(actor: Actor, tenantId: number | null) {
  return { tenantId, userId: actor.user.id, adminId: actor.adminId };
}
