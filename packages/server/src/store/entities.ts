import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { type ListPage, type ListQuery } from '@adplane/shared';
import { type Dialect } from './db.js';
import { type Selectable } from 'kysely';
import { ENTITY_TABLES, type EntityKind, type EntityTable, type EntityTables } from './entityTables.js';
import { jsonFieldExpression } from './migrations/columns.js';
import { nowIso, parseJson, toJson } from './json.js';
import { type Database } from './schema.js';

/**
 * The one repository of every entity kind: rows of the same shape in one table per kind (see the
 * 0002 migration). Every query takes a scope, so a caller can never read across tenants by mistake.
 */
type Db = Kysely<Database>;
const tables = (db: Db) => db.withTables<EntityTables>();

/** Who is asking: `tenantId` null means every tenant (admins); `subId` / `advId` narrow to assigned rows. */
export interface EntityScope {
  tenantId: number | null;
  subId?: number;
  advId?: number;
}

export interface EntityRow {
  id: number;
  tenantId: number | null;
  uid: string | null;
  name: string;
  status: 0 | 1;
  archived: boolean;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The kind's typed document (its zod schema's output, minus name and status). */
  data: Record<string, unknown>;
}

export interface EntityWrite {
  name: string;
  status: number;
  subId: number | null;
  advId: number | null;
  data: Record<string, unknown>;
  refs: { field: string; kind: string; id: number }[];
}

/**
 * Sort keys that are columns. A Map, not an object literal: a query's `sort=constructor` (or
 * `toString`, `__proto__`...) must miss, not reach Object.prototype and end as a 500.
 */
const COLUMN_SORTS: ReadonlyMap<string, string> = new Map([
  ['id', 'id'],
  ['name', 'name'],
  ['status', 'status'],
  ['uid', 'uid'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
]);

function toRow(r: Selectable<EntityTable>): EntityRow {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    uid: r.uid,
    name: r.name,
    status: r.status === 0 ? 0 : 1,
    archived: r.archived === 1,
    archivedAt: r.archived_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    data: parseJson<Record<string, unknown>>(r.data, {}),
  };
}

function scoped<Q extends { where: (...args: never[]) => Q }>(q: Q, scope: EntityScope): Q {
  const w = q.where as unknown as (col: string, op: string, v: unknown) => Q;
  let out = q;
  if (scope.tenantId !== null) out = w.call(out, 'tenant_id', '=', scope.tenantId);
  if (scope.subId !== undefined) out = (out.where as unknown as typeof w).call(out, 'sub_id', '=', scope.subId);
  if (scope.advId !== undefined) out = (out.where as unknown as typeof w).call(out, 'adv_id', '=', scope.advId);
  return out;
}

/**
 * A JSON field of the document as a sort key, typed so that numbers sort as numbers on both engines.
 * Written as the 0003 migration's indexes are (a literal path, not a parameter) so that they serve it.
 */
function jsonSortKey(dialect: Dialect, field: string) {
  return sql.raw(jsonFieldExpression(dialect, field));
}

export async function listEntities(
  db: Db,
  dialect: Dialect,
  kind: EntityKind,
  scope: EntityScope,
  query: ListQuery,
  sortableFields: readonly string[] = [],
  unlimitedFields: readonly string[] = [],
): Promise<ListPage<EntityRow>> {
  const table = ENTITY_TABLES[kind];
  let base = scoped(tables(db).selectFrom(table), scope);
  if (query.status === 'archived') base = base.where('archived', '=', 1);
  else {
    base = base.where('archived', '=', 0);
    if (query.status === 'active') base = base.where('status', '=', 1);
    if (query.status === 'paused') base = base.where('status', '=', 0);
  }
  if (query.search) {
    const term = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const asId = /^\d+$/.test(query.search) ? Number(query.search) : -1;
    // Every term is answered by the (tenant, archived, name, id) index alone, the uid through its own
    // unique index: a search never reads whole rows. (SQLite's LIKE already ignores ASCII case.)
    const byUid = tables(db).selectFrom(table).select('id').where('uid', '=', query.search);
    base = base.where((eb) =>
      eb.or([
        dialect === 'postgres' ? eb(sql`name`, 'ilike', sql`${term}`) : eb(sql`name`, 'like', sql`${term} escape '\\'`),
        eb('id', 'in', byUid),
        eb('id', '=', asId),
      ]),
    );
  }
  const countRow = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const total = Number(countRow.n);
  const column = COLUMN_SORTS.get(query.sort);
  const direction = query.order === 'asc' ? sql`asc` : sql`desc`;
  const orderKey = column
    ? sql.ref(column)
    : sortableFields.includes(query.sort)
      ? jsonSortKey(dialect, query.sort)
      : sql.ref('id');
  // Ties go by id in the same direction, so that one index (tenant, archived, key, id) serves both.
  // A cap or budget of 'unlimited' is above every number: SQLite already sorts text after numbers,
  // PostgreSQL's jsonb puts strings first, so there numbers are told apart from 'unlimited' first.
  const limitFirst =
    !column && dialect === 'postgres' && unlimitedFields.includes(query.sort) && sortableFields.includes(query.sort);
  const order = limitFirst
    ? sql`(jsonb_typeof(${orderKey}) = 'string') ${direction}, ${orderKey} ${direction}, id ${direction}`
    : sql`${orderKey} ${direction}, id ${direction}`;
  // Find the page's ids from the index alone, then read those rows: a deep page (or a sort the index
  // cannot serve) never carries whole documents through the sort or the skipped offset.
  const pageIds = base
    .select('id')
    .orderBy(order)
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize);
  const rows = await tables(db).selectFrom(table).selectAll().where('id', 'in', pageIds).orderBy(order).execute();
  return { items: rows.map(toRow), total, page: query.page, pageSize: query.pageSize };
}

/** Every row of a kind in scope, archived ones too (lists resolve names of archived rows). */
export async function listAllEntities(db: Db, kind: EntityKind, scope: EntityScope): Promise<EntityRow[]> {
  const rows = await scoped(tables(db).selectFrom(ENTITY_TABLES[kind]), scope)
    .selectAll()
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map(toRow);
}

/** Id and name of every row of a kind in scope, archived ones too: the name lists, without reading documents. */
export async function listEntityNames(
  db: Db,
  kind: EntityKind,
  scope: EntityScope,
): Promise<{ id: number; name: string }[]> {
  return scoped(tables(db).selectFrom(ENTITY_TABLES[kind]), scope)
    .select(['id', 'name'])
    .orderBy('name')
    .orderBy('id')
    .execute();
}

export async function getEntity(
  db: Db,
  kind: EntityKind,
  scope: EntityScope,
  id: number,
): Promise<EntityRow | undefined> {
  const row = await scoped(tables(db).selectFrom(ENTITY_TABLES[kind]), scope)
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toRow(row) : undefined;
}

/** The rows among `ids` that are in scope (archived ones too), in id order: one query for a page of ids. */
export async function getEntities(
  db: Db,
  kind: EntityKind,
  scope: EntityScope,
  ids: readonly number[],
): Promise<EntityRow[]> {
  if (ids.length === 0) return [];
  const rows = await scoped(tables(db).selectFrom(ENTITY_TABLES[kind]), scope)
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
  return rows.map(toRow);
}

/** Ids among `ids` that exist in the tenant and are not archived. */
export async function existingIds(
  db: Db,
  kind: EntityKind,
  tenantId: number | null,
  ids: number[],
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  let q = tables(db).selectFrom(ENTITY_TABLES[kind]).select('id').where('id', 'in', ids).where('archived', '=', 0);
  if (tenantId !== null) q = q.where('tenant_id', '=', tenantId);
  return new Set((await q.execute()).map((r) => r.id));
}

/**
 * A live (not archived) row of the tenant, other than `exceptId`, whose `field` holds `value`: what a
 * kind's `unique` rule checks. A field that is the row's name column is looked up by the name index;
 * another field is compared in the documents of the tenant's live rows.
 */
export async function findLiveRowWith(
  db: Db,
  kind: EntityKind,
  tenantId: number | null,
  field: string,
  value: unknown,
  inNameColumn: boolean,
  exceptId: number | null,
): Promise<number | null> {
  let q = tables(db).selectFrom(ENTITY_TABLES[kind]).select(['id', 'data']).where('archived', '=', 0);
  if (tenantId !== null) q = q.where('tenant_id', '=', tenantId);
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  if (inNameColumn) q = q.where('name', '=', String(value));
  const rows = await q.orderBy('id').execute();
  const same = inNameColumn
    ? rows[0]
    : rows.find((r) => parseJson<Record<string, unknown>>(r.data, {})[field] === value);
  return same ? same.id : null;
}

function newUid(): string {
  return randomBytes(8).toString('hex');
}

async function writeRefs(db: Db, kind: EntityKind, id: number, refs: EntityWrite['refs']): Promise<void> {
  const t = tables(db);
  await t.deleteFrom('entity_refs').where('from_kind', '=', kind).where('from_id', '=', id).execute();
  const unique = new Map(refs.map((r) => [`${r.field}|${r.kind}|${r.id}`, r]));
  if (unique.size === 0) return;
  await t
    .insertInto('entity_refs')
    .values(
      [...unique.values()].map((r) => ({ from_kind: kind, from_id: id, field: r.field, to_kind: r.kind, to_id: r.id })),
    )
    .execute();
}

/** The columns of a new row. */
function newRowValues(
  tenantId: number | null,
  write: EntityWrite,
  opts: { uid: boolean; userId: number | null },
  now: string,
) {
  return {
    tenant_id: tenantId,
    uid: opts.uid ? newUid() : null,
    name: write.name,
    status: write.status,
    sub_id: write.subId,
    adv_id: write.advId,
    data: toJson(write.data),
    created_by: opts.userId,
    updated_by: opts.userId,
    created_at: now,
    updated_at: now,
  };
}

export async function insertEntity(
  db: Db,
  kind: EntityKind,
  tenantId: number | null,
  write: EntityWrite,
  opts: { uid: boolean; userId: number | null },
): Promise<EntityRow> {
  const row = await tables(db)
    .insertInto(ENTITY_TABLES[kind])
    .values(newRowValues(tenantId, write, opts, nowIso()))
    .returningAll()
    .executeTakeFirstOrThrow();
  await writeRefs(db, kind, row.id, write.refs);
  return toRow(row);
}

/** Rows per INSERT statement in `insertEntities`: 11 bound values a row stays far below SQLite's 32,766. */
const INSERT_CHUNK = 500;

/**
 * Many rows of one kind (bulk imports, benchmarks): the same columns and references as `insertEntity`,
 * one INSERT per 500 rows. Call it inside a transaction. Returns the new ids in the order of `writes`:
 * both engines number the rows of one INSERT ... VALUES in the order they are listed.
 */
export async function insertEntities(
  db: Db,
  kind: EntityKind,
  tenantId: number | null,
  writes: readonly EntityWrite[],
  opts: { uid: boolean; userId: number | null },
): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < writes.length; start += INSERT_CHUNK) {
    const chunk = writes.slice(start, start + INSERT_CHUNK);
    const now = nowIso();
    const rows = await tables(db)
      .insertInto(ENTITY_TABLES[kind])
      .values(chunk.map((write) => newRowValues(tenantId, write, opts, now)))
      .returning('id')
      .execute();
    const chunkIds = rows.map((r) => r.id).sort((a, b) => a - b);
    if (chunkIds.length !== chunk.length)
      throw new Error(`insertEntities: ${chunk.length} rows sent, ${chunkIds.length} inserted`);
    const refs = chunk.flatMap((write, i) =>
      [...new Map(write.refs.map((r) => [`${r.field}|${r.kind}|${r.id}`, r])).values()].map((r) => ({
        from_kind: kind,
        from_id: chunkIds[i],
        field: r.field,
        to_kind: r.kind,
        to_id: r.id,
      })),
    );
    // 5 bound values a reference: 2,000 a statement.
    for (let at = 0; at < refs.length; at += INSERT_CHUNK * 4) {
      await tables(db)
        .insertInto('entity_refs')
        .values(refs.slice(at, at + INSERT_CHUNK * 4))
        .execute();
    }
    ids.push(...chunkIds);
  }
  return ids;
}

export async function updateEntity(
  db: Db,
  kind: EntityKind,
  id: number,
  write: EntityWrite,
  userId: number | null,
): Promise<EntityRow> {
  const row = await tables(db)
    .updateTable(ENTITY_TABLES[kind])
    .set({
      name: write.name,
      status: write.status,
      sub_id: write.subId,
      adv_id: write.advId,
      data: toJson(write.data),
      updated_by: userId,
      updated_at: nowIso(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await writeRefs(db, kind, id, write.refs);
  return toRow(row);
}

export async function setEntityArchived(
  db: Db,
  kind: EntityKind,
  id: number,
  archived: boolean,
  userId: number | null,
): Promise<EntityRow> {
  const now = nowIso();
  const row = await tables(db)
    .updateTable(ENTITY_TABLES[kind])
    .set({ archived: archived ? 1 : 0, archived_at: archived ? now : null, updated_by: userId, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRow(row);
}

/** Pause (0) or activate (1) a row: the status column only, the document untouched. */
export async function setEntityStatus(
  db: Db,
  kind: EntityKind,
  id: number,
  status: 0 | 1,
  userId: number | null,
): Promise<EntityRow> {
  const row = await tables(db)
    .updateTable(ENTITY_TABLES[kind])
    .set({ status, updated_by: userId, updated_at: nowIso() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRow(row);
}

export async function deleteEntity(db: Db, kind: EntityKind, id: number): Promise<void> {
  await tables(db).deleteFrom('entity_refs').where('from_kind', '=', kind).where('from_id', '=', id).execute();
  await tables(db).deleteFrom(ENTITY_TABLES[kind]).where('id', '=', id).execute();
}

export interface Referrer {
  kind: string;
  id: number;
  field: string;
}

/** Rows that point at (kind, id): a delete is refused while any exist. */
export async function referrersTo(db: Db, kind: string, id: number): Promise<Referrer[]> {
  const rows = await tables(db)
    .selectFrom('entity_refs')
    .select(['from_kind', 'from_id', 'field'])
    .where('to_kind', '=', kind)
    .where('to_id', '=', id)
    .orderBy('from_kind')
    .orderBy('from_id')
    .execute();
  return rows.map((r) => ({ kind: r.from_kind, id: r.from_id, field: r.field }));
}

/** Names of rows by id, for "used by" answers. */
export async function namesOf(db: Db, kind: EntityKind, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await tables(db).selectFrom(ENTITY_TABLES[kind]).select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
