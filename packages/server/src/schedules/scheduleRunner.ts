import { readFile } from 'node:fs/promises';
import { type FastifyInstance } from 'fastify';
import { METRIC_BY_ID, type MetricId, type ReportRequest, withPresetDates } from '@adplane/shared';
import { backoffMs } from '../notify/outbox.js';
import { periodicPass } from '../ops/periodicPass.js';
import { reportContextOf } from '../stats/queries/reportContext.js';
import { reportFilePath, writeReportFile } from '../stats/reportFiles.js';
import { claimScheduleRun, dueSchedules, recordScheduleRun, type StoredSchedule } from '../store/reportSchedules.js';
import { createSavedReport, getSavedReport } from '../store/savedReports.js';
import { canSignIn, findUserById } from '../store/users.js';
import { csvCells, reportWorkbook } from './reportWorkbook.js';
import { nextRunAfter } from './scheduleTimes.js';

/** Failed runs of a schedule tried again (after 1, 5, 25, 125 minutes) before it waits for its next regular run. */
const RUN_RETRIES = 4;
/** The most bytes of files one e-mail carries; a larger file is left in the console and the e-mail says so. */
const MAIL_FILES_MAX_BYTES = 10 * 1024 * 1024;
const SCHEDULES_A_PASS = 20;
/**
 * How long a claimed run holds its schedule. A process that stops mid-run leaves the claim; the run
 * is due again once it runs out (a run that took longer would run twice, so it is far above a
 * report file's time).
 */
const RUN_LEASE_MS = 30 * 60_000;

/** What a run could not do: the schedule records it as its last error. */
class RunFailed extends Error {}

const iso = (ms: number) => new Date(ms).toISOString();

/** The next run of a schedule after `ms`. */
export const nextRunOf = (
  s: Pick<StoredSchedule, 'frequency' | 'hour' | 'weekday' | 'monthDay' | 'timeZone'>,
  ms: number,
) => iso(nextRunAfter(s, ms));

/** The totals row of a report file (its last line): each metric's value. */
function totalsOf(csv: string, request: ReportRequest): Partial<Record<MetricId, number>> {
  const lines = csv.split('\n').filter((l) => l !== '');
  if (lines.length < 2) return {};
  const cells = csvCells(lines.at(-1)!);
  const metricCells = cells.slice(cells.length - request.metrics.length);
  return Object.fromEntries(request.metrics.map((id, i) => [id, Number(metricCells[i]?.text ?? '')]));
}

const safeFileName = (name: string) => name.replace(/[^\w .-]+/g, '_').trim() || 'report';

/**
 * One run of a schedule: the saved report's request with its rolling dates fixed as of now, written
 * to a report file by the same path as a file asked for in the console (so it is in its owner's bell),
 * then its CSV and/or XLSX sent to the schedule's addresses and webhook through the outbox.
 * Returns the file's id; throws RunFailed (or what the report threw) when it could not.
 */
async function runSchedule(app: FastifyInstance, schedule: StoredSchedule, now: number): Promise<number> {
  const db = app.store.db;
  const saved = await getSavedReport(db, schedule.savedReportId);
  if (!saved?.request) throw new RunFailed('The saved report is gone');
  const user = await findUserById(db, schedule.userId);
  if (!user || !canSignIn(user)) throw new RunFailed('The account the schedule runs as cannot sign in');
  const { datePreset: _rolling, ...request } = withPresetDates(saved.request, now);
  // the owner's scope and what they may see now (their rights may have changed since the schedule was made)
  const ctx = await reportContextOf(app, user, request);
  const range = request.startDate === request.endDate ? request.startDate : `${request.startDate} – ${request.endDate}`;
  const file = await createSavedReport(db, {
    userId: user.id,
    tenantId: schedule.tenantId,
    name: `${saved.name} (${range})`.slice(0, 200),
    kind: 'file',
    ivt: false,
    request,
    running: true,
  });
  await writeReportFile(app, file.id, ctx, request);
  const written = await getSavedReport(db, file.id);
  if (!written || written.status !== 'ready' || !written.fileName)
    throw new RunFailed(`The report file could not be written: ${written?.error ?? 'unknown error'}`);
  const csv = await readFile(reportFilePath(app.settings.dataDir, written.fileName), 'utf8');

  const base = safeFileName(`${saved.name} ${range.replace(' – ', ' to ')}`);
  const attachments: { filename: string; contentType: string; content: string | Uint8Array }[] = [];
  if (schedule.formats.includes('csv'))
    attachments.push({ filename: `${base}.csv`, contentType: 'text/csv', content: csv });
  if (schedule.formats.includes('xlsx') && Buffer.byteLength(csv) <= MAIL_FILES_MAX_BYTES)
    attachments.push({
      filename: `${base}.xlsx`,
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      content: await reportWorkbook(csv, request, saved.name),
    });
  const bytes = attachments.reduce((sum, a) => sum + Buffer.byteLength(a.content), 0);
  const tooLarge = bytes > MAIL_FILES_MAX_BYTES;
  const totals = totalsOf(csv, request);
  const totalsText = request.metrics.map((id) => `${METRIC_BY_ID[id].label}: ${totals[id] ?? ''}`).join('\n');
  const consoleUrl = `${app.settings.publicHost}/`;
  const source = `schedule:${schedule.id}`;

  if (schedule.emails.length > 0 && app.outbox.mailOn) {
    await app.outbox.enqueue({
      source,
      tenantId: schedule.tenantId,
      userId: user.id,
      notice: {
        kind: 'email',
        to: schedule.emails,
        subject: `Report "${saved.name}": ${range}`,
        text: [
          `The scheduled report "${saved.name}" for ${range} (time zone UTC${request.timezone >= 0 ? '+' : ''}${request.timezone}).`,
          '',
          'Totals:',
          totalsText,
          '',
          tooLarge
            ? `The file is too large for e-mail: download it from the bell of the console, ${consoleUrl}`
            : `The file is attached; it is also in the bell of the console, ${consoleUrl}`,
        ].join('\n'),
        attachments: tooLarge ? [] : attachments,
      },
    });
  }
  if (schedule.webhookUrl) {
    await app.outbox.enqueue({
      source,
      tenantId: schedule.tenantId,
      userId: user.id,
      notice: {
        kind: 'webhook',
        url: schedule.webhookUrl,
        body: {
          text: `Report "${saved.name}" for ${range}: ${request.metrics
            .map((id) => `${METRIC_BY_ID[id].label} ${totals[id] ?? ''}`)
            .join(', ')}`,
          report: { id: saved.id, name: saved.name, startDate: request.startDate, endDate: request.endDate },
          file: { id: file.id, url: `${app.settings.publicHost}/api/savedFile/${file.id}` },
          totals,
        },
      },
    });
  }
  return file.id;
}

/**
 * Run every schedule due now that this process claims (one conditional update on the schedule's
 * next run: of several api processes, one runs each period). A schedule due while no process ran
 * (the server was down) runs once, and its next run is the first regular one after now. A run cut
 * short by its process stopping is due again when its claim runs out (RUN_LEASE_MS). Returns how
 * many it ran.
 */
export async function runDueSchedules(app: FastifyInstance): Promise<number> {
  let ran = 0;
  const now = app.clock.now();
  for (const schedule of await dueSchedules(app.store.db, iso(now), SCHEDULES_A_PASS)) {
    const leaseUntil = iso(now + RUN_LEASE_MS);
    if (!(await claimScheduleRun(app.store.db, schedule, leaseUntil))) continue;
    ran++;
    const nextRegular = nextRunOf(schedule, now);
    try {
      const fileId = await runSchedule(app, schedule, now);
      await recordScheduleRun(
        app.store.db,
        schedule.id,
        { outcome: 'ok', at: iso(now), fileId },
        { leaseUntil, nextRunAt: nextRegular },
      );
    } catch (error) {
      const failures = schedule.failures + 1;
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      app.log.error({ err: error, scheduleId: schedule.id }, 'scheduled report failed');
      // tried again after the backoff, never past the next regular run
      const retryAt = failures <= RUN_RETRIES ? iso(now + backoffMs(failures)) : null;
      await recordScheduleRun(
        app.store.db,
        schedule.id,
        { outcome: 'failed', at: iso(now), error: message, failures },
        { leaseUntil, nextRunAt: retryAt !== null && retryAt < nextRegular ? retryAt : nextRegular },
      ).catch((e: unknown) => app.log.error({ err: e, scheduleId: schedule.id }, 'schedule outcome not recorded'));
    }
  }
  return ran;
}

/** The api role's schedule loop: at start (a run missed while down), then every `everyMs`. Returns its stop. */
export function startScheduleLoop(app: FastifyInstance, everyMs = 30_000): () => Promise<void> {
  const passes = periodicPass(
    () => runDueSchedules(app),
    0,
    (error) => app.log.error({ err: error }, 'schedules: pass failed'),
  );
  void passes.start(everyMs);
  return passes.stop;
}
