import { type Kysely } from 'kysely';
import { type Database } from './schema.js';
import { nowIso, parseJson, toJson } from './json.js';

/** One change for the User Activity log: who (and which admin acting as them), what, when, before and after. */
export interface ActivityEntry {
  tenantId: number | null;
  userId: number | null;
  adminId: number | null;
  kind: string;
  entityId: number | null;
  action: 'create' | 'update' | 'archive' | 'restore' | 'delete' | 'duplicate';
  before: unknown;
  after: unknown;
}

export async function recordActivity(db: Kysely<Database>, entry: ActivityEntry): Promise<void> {
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

export interface ActivityRow {
  id: number;
  tenantId: number | null;
  userId: number | null;
  adminId: number | null;
  kind: string;
  entityId: number | null;
  action: string;
  before: unknown;
  after: unknown;
  at: string;
}

/** Newest first; `tenantId` null reads every tenant (admins). */
export async function listActivity(
  db: Kysely<Database>,
  filter: { tenantId: number | null; kind?: string; entityId?: number; limit?: number },
): Promise<ActivityRow[]> {
  let q = db.selectFrom('activity_log').selectAll().orderBy('id', 'desc').limit(filter.limit ?? 100);
  if (filter.tenantId !== null) q = q.where('tenant_id', '=', filter.tenantId);
  if (filter.kind) q = q.where('entity_kind', '=', filter.kind);
  if (filter.entityId) q = q.where('entity_id', '=', filter.entityId);
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    userId: r.user_id,
    adminId: r.admin_id,
    kind: r.entity_kind,
    entityId: r.entity_id,
    action: r.action,
    before: parseJson(r.before, null),
    after: parseJson(r.after, null),
    at: r.at,
  }));
}
