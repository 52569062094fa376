import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  type ReportSchedule,
  ReportScheduleInput,
  type ReportScheduleList,
  SCHEDULES_PER_REPORT_MAX,
} from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { forbidden, HttpError, notFound, parseInput } from '../http/errors.js';
import { nextRunOf } from '../schedules/scheduleRunner.js';
import { statsScopeOf } from '../stats/scope.js';
import {
  createSchedule,
  deleteSchedule,
  getSchedule,
  type ScheduleFields,
  schedulesOfReport,
  type StoredSchedule,
  updateSchedule,
} from '../store/reportSchedules.js';
import { type StoredReport } from '../store/savedReports.js';
import { findUserById } from '../store/users.js';
import { requireRunnableReport } from './reports.js';
import { ownSavedReport } from './savedReports.js';

const IdParams = z.object({ id: z.coerce.number().int().positive('must be a schedule id') });
/** The notifications of a schedule's runs it shows. */
const DELIVERIES_SHOWN = 10;

/**
 * Schedules of saved reports (docs/reports.md, "Schedules"): a user schedules their own saved reports,
 * an admin anyone's; each run goes to the report owner's bell and to the schedule's addresses and
 * webhook. A schedule of another user's report answers 404, like a missing one.
 */
export async function reportScheduleRoutes(app: FastifyInstance): Promise<void> {
  async function answerOf(s: StoredSchedule): Promise<ReportSchedule> {
    const deliveries = await app.outbox.of([`schedule:${s.id}`], DELIVERIES_SHOWN);
    const { userId: _u, tenantId: _t, ...schedule } = s;
    return { ...schedule, deliveries };
  }

  /** The saved report to schedule: a report (not a file or a post-bid report) its owner may still run. */
  async function schedulableReport(request: FastifyRequest): Promise<StoredReport> {
    const { user } = requireAuth(request);
    if (!statsScopeOf(user)) throw forbidden('Reports are not available to this user');
    const report = await ownSavedReport(app, request);
    if (report.file) throw new HttpError(400, 'A report file cannot be scheduled: schedule the saved report');
    if (report.ivt) throw new HttpError(400, 'A post-bid report cannot be scheduled');
    return report;
  }

  async function ownSchedule(request: FastifyRequest): Promise<StoredSchedule> {
    const { user } = requireAuth(request);
    const { id } = parseInput(IdParams, request.params);
    const schedule = await getSchedule(app.store.db, id);
    if (!schedule || (schedule.userId !== user.id && user.type !== 'admin')) throw notFound('Schedule not found');
    return schedule;
  }

  const fieldsOf = (request: FastifyRequest): ScheduleFields => parseInput(ReportScheduleInput, request.body);

  app.get('/api/savedReport/:id/schedules', { config: { guard: 'auth' } }, async (request) => {
    const report = await ownSavedReport(app, request);
    const schedules = await schedulesOfReport(app.store.db, report.id);
    const answer: ReportScheduleList = {
      mailOn: app.outbox.mailOn,
      schedules: await Promise.all(schedules.map(answerOf)),
    };
    return answer;
  });

  app.post('/api/savedReport/:id/schedules', { config: { guard: 'auth' } }, async (request, reply) => {
    const report = await schedulableReport(request);
    const fields = fieldsOf(request);
    const existing = await schedulesOfReport(app.store.db, report.id);
    if (existing.length >= SCHEDULES_PER_REPORT_MAX)
      throw new HttpError(409, `A saved report has at most ${SCHEDULES_PER_REPORT_MAX} schedules`);
    // the schedule runs as the report's owner: the report must be one they may run
    const owner = await findUserById(app.store.db, report.userId);
    if (!owner) throw notFound('Saved report not found');
    if (report.request) await requireRunnableReport(app.store.db, owner, report.request);
    const schedule = await createSchedule(app.store.db, {
      ...fields,
      savedReportId: report.id,
      userId: owner.id,
      tenantId: await tenantOfReport(report.id),
      nextRunAt: nextRunOf(fields, app.clock.now()),
    });
    return reply.code(201).send(await answerOf(schedule));
  });

  async function tenantOfReport(id: number): Promise<number | null> {
    const row = await app.store.db
      .selectFrom('saved_reports')
      .select('tenant_id')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.tenant_id ?? null;
  }

  app.put('/api/reportSchedule/:id', { config: { guard: 'auth' } }, async (request) => {
    const schedule = await ownSchedule(request);
    const fields = fieldsOf(request);
    await updateSchedule(app.store.db, schedule.id, fields, nextRunOf(fields, app.clock.now()));
    return answerOf((await getSchedule(app.store.db, schedule.id)) as StoredSchedule);
  });

  app.delete('/api/reportSchedule/:id', { config: { guard: 'auth' } }, async (request) => {
    const schedule = await ownSchedule(request);
    await deleteSchedule(app.store.db, schedule.id);
    return { ok: true };
  });
}
