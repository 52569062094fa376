import { type Kysely, type Selectable } from 'kysely';
import { inTransaction } from './db.js';
import { nowIso, parseJson, toJson } from './json.js';
import { type Database } from './schema.js';

type Db = Kysely<Database>;
type Row = Selectable<Database['report_schedules']>;

/** What a schedule's owner sets. */
export interface ScheduleFields {
  frequency: 'daily' | 'weekly' | 'monthly';
  hour: number;
  weekday: number | null;
  monthDay: number | null;
  timeZone: string;
  formats: ('csv' | 'xlsx')[];
  emails: string[];
  webhookUrl: string | null;
  enabled: boolean;
}

/** A saved report's schedule as stored (instants as ISO text): what its owner set and how its runs went. */
export interface StoredSchedule extends ScheduleFields {
  id: number;
  savedReportId: number;
  userId: number;
  tenantId: number | null;
  nextRunAt: string;
  lastRunAt: string | null;
  lastOutcome: 'ok' | 'failed' | null;
  lastError: string | null;
  lastFileId: number | null;
  failures: number;
}

const toSchedule = (row: Row): StoredSchedule => ({
  id: Number(row.id),
  savedReportId: Number(row.saved_report_id),
  userId: Number(row.user_id),
  tenantId: row.tenant_id === null ? null : Number(row.tenant_id),
  frequency: row.frequency,
  hour: Number(row.hour),
  weekday: row.weekday === null ? null : Number(row.weekday),
  monthDay: row.month_day === null ? null : Number(row.month_day),
  timeZone: row.time_zone,
  formats: parseJson<('csv' | 'xlsx')[]>(row.formats, ['csv']),
  emails: parseJson<string[]>(row.emails, []),
  webhookUrl: row.webhook_url,
  enabled: Boolean(row.enabled),
  nextRunAt: row.next_run_at,
  lastRunAt: row.last_run_at,
  lastOutcome: row.last_outcome === 'ok' || row.last_outcome === 'failed' ? row.last_outcome : null,
  lastError: row.last_error,
  lastFileId: row.last_file_id === null ? null : Number(row.last_file_id),
  failures: Number(row.failures),
});

const columnsOf = (f: ScheduleFields) => ({
  frequency: f.frequency,
  hour: f.hour,
  weekday: f.frequency === 'weekly' ? f.weekday : null,
  month_day: f.frequency === 'monthly' ? f.monthDay : null,
  time_zone: f.timeZone,
  formats: toJson(f.formats),
  emails: toJson(f.emails),
  webhook_url: f.webhookUrl,
  enabled: f.enabled ? 1 : 0,
});

export async function createSchedule(
  db: Db,
  input: ScheduleFields & { savedReportId: number; userId: number; tenantId: number | null; nextRunAt: string },
): Promise<StoredSchedule> {
  const now = nowIso();
  const row = await db
    .insertInto('report_schedules')
    .values({
      ...columnsOf(input),
      saved_report_id: input.savedReportId,
      user_id: input.userId,
      tenant_id: input.tenantId,
      next_run_at: input.nextRunAt,
      failures: 0,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSchedule(row);
}

/** A changed schedule starts afresh: its next run from the new times, its failures forgotten. */
export async function updateSchedule(db: Db, id: number, fields: ScheduleFields, nextRunAt: string): Promise<void> {
  await db
    .updateTable('report_schedules')
    .set({ ...columnsOf(fields), next_run_at: nextRunAt, failures: 0, updated_at: nowIso() })
    .where('id', '=', id)
    .execute();
}

export async function getSchedule(db: Db, id: number): Promise<StoredSchedule | null> {
  const row = await db.selectFrom('report_schedules').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toSchedule(row) : null;
}

export async function schedulesOfReport(db: Db, savedReportId: number): Promise<StoredSchedule[]> {
  const rows = await db
    .selectFrom('report_schedules')
    .selectAll()
    .where('saved_report_id', '=', savedReportId)
    .orderBy('id')
    .execute();
  return rows.map(toSchedule);
}

export async function deleteSchedule(db: Db, id: number): Promise<void> {
  await db.deleteFrom('report_schedules').where('id', '=', id).execute();
}

/** Enabled schedules due at `at`, the longest waiting first. */
export async function dueSchedules(db: Db, at: string, limit: number): Promise<StoredSchedule[]> {
  const rows = await db
    .selectFrom('report_schedules')
    .selectAll()
    .where('enabled', '=', 1)
    .where('next_run_at', '<=', at)
    .orderBy('next_run_at')
    .limit(limit)
    .execute();
  return rows.map(toSchedule);
}

/**
 * Claim the run of `schedule` that was due at its `nextRunAt` until `leaseUntil`: one conditional
 * update, so of several processes seeing it due exactly one runs it (true). The run moves the next
 * run on when it ends (recordScheduleRun); a process that stops mid-run leaves the lease, and the
 * run is due again when the lease runs out.
 */
export async function claimScheduleRun(db: Db, schedule: StoredSchedule, leaseUntil: string): Promise<boolean> {
  const result = await db
    .updateTable('report_schedules')
    .set({ next_run_at: leaseUntil })
    .where('id', '=', schedule.id)
    .where('enabled', '=', 1)
    .where('next_run_at', '=', schedule.nextRunAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * How a run went, and when the schedule runs next (`nextRunAt`: the next period, or a retry of a
 * failed run). The next run is set only while the run's lease (`leaseUntil`) stands: a schedule
 * edited during the run keeps the next run its edit gave it.
 */
export async function recordScheduleRun(
  db: Db,
  id: number,
  run:
    | { outcome: 'ok'; at: string; fileId: number }
    | { outcome: 'failed'; at: string; error: string; failures: number },
  next: { leaseUntil: string; nextRunAt: string },
): Promise<void> {
  // one transaction, so a reader never sees the outcome of a run with its lease still as the next run
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('report_schedules')
      .set(
        run.outcome === 'ok'
          ? { last_run_at: run.at, last_outcome: 'ok', last_error: null, last_file_id: run.fileId, failures: 0 }
          : { last_run_at: run.at, last_outcome: 'failed', last_error: run.error, failures: run.failures },
      )
      .where('id', '=', id)
      .execute();
    await trx
      .updateTable('report_schedules')
      .set({ next_run_at: next.nextRunAt })
      .where('id', '=', id)
      .where('next_run_at', '=', next.leaseUntil)
      .execute();
  });
}
