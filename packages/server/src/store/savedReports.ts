import { type Kysely, type Selectable } from 'kysely';
import { formatDateTime, type ReportRequest, type SavedReport, type SavedReportKind } from '@adplane/shared';
import { nowIso, parseJson, toJson } from './json.js';
import { type Database, type SavedReportsTable } from './schema.js';

type Db = Kysely<Database>;
type Row = Selectable<SavedReportsTable>;

/** A saved report as the API answers it, plus who owns it (never sent). */
export interface StoredReport extends SavedReport {
  userId: number;
  fileName: string | null;
}

function toReport(row: Row): StoredReport {
  return {
    id: Number(row.id),
    dt: formatDateTime(row.created_at),
    name: row.name,
    file: row.kind === 'file' ? 1 : 0,
    ivt: row.ivt ? 1 : 0,
    archived: Boolean(row.archived),
    status: row.status,
    progress: Number(row.progress),
    error: row.error,
    request: parseJson<ReportRequest | null>(row.request, null),
    userId: Number(row.user_id),
    fileName: row.file_name,
  };
}

export async function createSavedReport(
  db: Db,
  input: {
    userId: number;
    tenantId: number | null;
    name: string;
    kind: SavedReportKind;
    ivt: boolean;
    request: ReportRequest;
    running?: boolean;
  },
): Promise<StoredReport> {
  const now = nowIso();
  const row = await db
    .insertInto('saved_reports')
    .values({
      user_id: input.userId,
      tenant_id: input.tenantId,
      name: input.name,
      kind: input.kind,
      ivt: input.ivt ? 1 : 0,
      request: toJson(input.request),
      status: input.running ? 'running' : 'ready',
      progress: input.running ? 0 : 100,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toReport(row);
}

/** A user's saved reports, newest first: after `afterId` only (the bell's poll), archived ones only when asked. */
export async function listSavedReports(
  db: Db,
  userId: number,
  options: { afterId?: number; includeArchived?: boolean; limit: number },
): Promise<StoredReport[]> {
  let q = db.selectFrom('saved_reports').selectAll().where('user_id', '=', userId);
  if (options.afterId !== undefined) q = q.where('id', '>', options.afterId);
  if (!options.includeArchived) q = q.where('archived', '=', 0);
  const rows = await q.orderBy('id', 'desc').limit(options.limit).execute();
  return rows.map(toReport);
}

export async function getSavedReport(db: Db, id: number): Promise<StoredReport | null> {
  const row = await db.selectFrom('saved_reports').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toReport(row) : null;
}

export async function updateSavedReport(
  db: Db,
  id: number,
  patch: {
    name?: string;
    archived?: boolean;
    request?: ReportRequest;
    status?: 'ready' | 'running' | 'failed';
    progress?: number;
    error?: string | null;
    fileName?: string;
  },
): Promise<void> {
  await db
    .updateTable('saved_reports')
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.archived !== undefined ? { archived: patch.archived ? 1 : 0 } : {}),
      ...(patch.request !== undefined ? { request: toJson(patch.request) } : {}),
      ...(patch.status !== undefined ? { status: patch.status } : {}),
      ...(patch.progress !== undefined ? { progress: patch.progress } : {}),
      ...(patch.error !== undefined ? { error: patch.error } : {}),
      ...(patch.fileName !== undefined ? { file_name: patch.fileName } : {}),
      updated_at: nowIso(),
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteSavedReport(db: Db, id: number): Promise<void> {
  await db.deleteFrom('saved_reports').where('id', '=', id).execute();
}
