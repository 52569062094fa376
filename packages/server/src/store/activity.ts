import { type Kysely } from 'kysely';
import { type ActivityAction, type ActivityEntry as LoggedActivity } from '@adplane/shared';
import { bumpConfigVersion } from './configVersion.js';
import { type Database } from './schema.js';
import { nowIso, parseJson, toJson } from './json.js';

/** One change for the User Activity log: who (and which admin acting as them), what, when, before and after. */
export interface NewActivity {
  tenantId: number | null;
  userId: number | null;
  adminId: number | null;
  kind: string;
  entityId: number | null;
  action: ActivityAction;
  before: unknown;
  after: unknown;
}

/** Call it in the transaction of the write it records: it also bumps the config version there. */
export async function recordActivity(db: Kysely<Database>, entry: NewActivity): Promise<void> {
  await bumpConfigVersion(db);
  await db
    .insertInto('activity_log')
    .values({
      tenant_id: entry.tenantId,
      user_id: entry.userId,
      admin_id: entry.adminId,
      entity_kind: entry.kind,
      entity_id: entry.entityId,
      action: entry.action,
      before: entry.before === null || entry.before === undefined ? null : toJson(entry.before),
      after: entry.after === null || entry.after === undefined ? null : toJson(entry.after),
      at: nowIso(),
    })
    .execute();
}

/** A log entry as the API answers it (the contract lives in packages/shared). */
export type ActivityRow = LoggedActivity;

export interface ActivityFilter {
  /** null reads every tenant (admins). */
  tenantId: number | null;
  kind?: string;
  entityId?: number;
  action?: string;
  userId?: number;
  /** Only entries older than this id: the next page of a newest-first list. */
  beforeId?: number;
  limit?: number;
}

/** Newest first, with the names of the user and of the admin acting as them. */
export async function listActivity(db: Kysely<Database>, filter: ActivityFilter): Promise<ActivityRow[]> {
  let q = db
    .selectFrom('activity_log as a')
    .leftJoin('users as u', 'u.id', 'a.user_id')
    .leftJoin('users as ad', 'ad.id', 'a.admin_id')
    .selectAll('a')
    .select(['u.name as user_name', 'ad.name as admin_name'])
    .orderBy('a.id', 'desc')
    .limit(filter.limit ?? 100);
  if (filter.tenantId !== null) q = q.where('a.tenant_id', '=', filter.tenantId);
  if (filter.kind) q = q.where('a.entity_kind', '=', filter.kind);
  if (filter.entityId) q = q.where('a.entity_id', '=', filter.entityId);
  if (filter.action) q = q.where('a.action', '=', filter.action);
  if (filter.userId) q = q.where('a.user_id', '=', filter.userId);
  if (filter.beforeId) q = q.where('a.id', '<', filter.beforeId);
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    userId: r.user_id,
    userName: r.user_name,
    adminId: r.admin_id,
    adminName: r.admin_name,
    kind: r.entity_kind,
    entityId: r.entity_id,
    action: r.action,
    before: parseJson(r.before, null),
    after: parseJson(r.after, null),
    at: r.at,
  }));
}
