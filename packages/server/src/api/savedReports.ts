import { createReadStream, existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  PostbidReportRequest,
  reportRefusals,
  SAVED_REPORTS_MAX,
  SaveReportInput,
  UpdateSavedReportInput,
  withPresetDates,
} from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { forbidden, HttpError, notFound, parseInput } from '../http/errors.js';
import { reportFilePath } from '../stats/reportFiles.js';
import { statsViewerOf } from '../stats/scope.js';
import { inTransaction } from '../store/db.js';
import { requirePostbidReports, takePostbidReportPlace } from './pbReports.js';
import { withLineState } from './reportLimits.js';
import { requireRunnableReport } from './reports.js';
import {
  createSavedReport,
  deleteSavedReport,
  getSavedReport,
  listSavedReports,
  type StoredReport,
  updateSavedReport,
} from '../store/savedReports.js';

const ListQuery = z.object({
  last: z.coerce.number().int().min(0).optional(),
  /** The Saved Reports page: every one, archived too. */
  all: z.enum(['0', '1']).optional(),
});
/** A postbid (ivt) report's request: post-bid metrics and dimensions only (field paths under `request.`). */
const PostbidReportBody = z.object({ request: PostbidReportRequest });
const IdParams = z.object({ id: z.coerce.number().int().positive('must be a report id') });

/**
 * A saved report as the API answers it: a rolling one (`request.datePreset`) carries its preset's
 * range as of `now`, so whoever opens it sees the days a run would cover today.
 */
const answerOf = ({ userId: _u, fileName: _f, ...report }: StoredReport, now: number) =>
  report.request ? { ...report, request: withPresetDates(report.request, now) } : report;

/**
 * Saved reports and files: the bell polls `GET /api/savedReports?last={lastId}`;
 * reports are the user's own; an admin may also open, change or download anyone's.
 */
/**
 * The saved report of the route's `:id`, when it is the caller's own or the caller is an admin.
 * Another user's report answers 404, like a missing one: ids are not a way to probe.
 */
export async function ownSavedReport(app: FastifyInstance, request: FastifyRequest): Promise<StoredReport> {
  const { user } = requireAuth(request);
  const { id } = parseInput(IdParams, request.params);
  const report = await getSavedReport(app.store.db, id);
  if (!report || (report.userId !== user.id && user.type !== 'admin')) throw notFound('Saved report not found');
  return report;
}

export async function savedReportRoutes(app: FastifyInstance): Promise<void> {
  const ownReport = (request: FastifyRequest) => ownSavedReport(app, request);

  app.get('/api/savedReports', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    const query = parseInput(ListQuery, request.query);
    const all = query.all === '1';
    const reports = await listSavedReports(app.store.db, user.id, {
      afterId: query.last,
      includeArchived: all,
      limit: all ? 1000 : SAVED_REPORTS_MAX,
    });
    return reports.map((r) => withLineState(app.reportLines.files, answerOf(r, app.clock.now())));
  });

  app.post('/api/savedReports', { config: { guard: 'auth' } }, async (request, reply) => {
    const { user } = requireAuth(request);
    const input = parseInput(SaveReportInput, request.body);
    await requireRunnableReport(app.store.db, user, input.request);
    // a postbid report (/pbReport): post-bid metrics only, and a place of the account's monthly allowance
    if (input.ivt) {
      requirePostbidReports(user);
      parseInput(PostbidReportBody, request.body);
    }
    const saved = await inTransaction(app.store.db, async (trx) => {
      if (input.ivt) await takePostbidReportPlace(trx, user, app.clock.now());
      return createSavedReport(trx, {
        userId: user.id,
        tenantId: user.type === 'admin' ? null : tenantIdOf(user),
        name: input.name,
        kind: 'report',
        ivt: input.ivt,
        request: input.request,
      });
    });
    return reply.code(201).send(answerOf(saved, app.clock.now()));
  });

  app.get('/api/savedReport/:id', { config: { guard: 'auth' } }, async (request) =>
    withLineState(app.reportLines.files, answerOf(await ownReport(request), app.clock.now())),
  );

  app.put('/api/savedReport/:id', { config: { guard: 'auth' } }, async (request) => {
    const report = await ownReport(request);
    const patch = parseInput(UpdateSavedReportInput, request.body);
    if (patch.request) await requireRunnableReport(app.store.db, requireAuth(request).user, patch.request);
    if (patch.request && report.file)
      throw new HttpError(400, 'request: a file keeps the report it was written from', 'request');
    if (patch.request && report.ivt) parseInput(PostbidReportBody, request.body);
    await updateSavedReport(app.store.db, report.id, patch);
    return withLineState(
      app.reportLines.files,
      answerOf((await getSavedReport(app.store.db, report.id)) as StoredReport, app.clock.now()),
    );
  });

  app.delete('/api/savedReport/:id', { config: { guard: 'auth' } }, async (request) => {
    const report = await ownReport(request);
    // a file in line leaves it; one being written stops at its next chunk and removes what it wrote
    app.reportLines.files.cancel(report.id);
    await deleteSavedReport(app.store.db, report.id);
    if (report.fileName) await rm(reportFilePath(app.settings.dataDir, report.fileName), { force: true });
    return { ok: true };
  });

  app.get('/api/savedFile/:id', { config: { guard: 'auth' } }, async (request, reply) => {
    const report = await ownReport(request);
    if (!report.file) throw notFound('This saved report is not a file');
    // A file holds the numbers it was written with: it is handed out only while its report is one the
    // downloader may run (visibility.ts), as opening a saved report runs it again under the rule.
    const [refused] = report.request
      ? reportRefusals(await statsViewerOf(app.store.db, requireAuth(request).user), report.request)
      : [];
    if (refused) throw forbidden(`request.${refused[0]}: ${refused[1]}`);
    const waiting = withLineState(app.reportLines.files, report);
    if (waiting.status === 'waiting')
      throw new HttpError(
        409,
        `The file waits for its turn: ${waiting.ahead} ${waiting.ahead === 1 ? 'file' : 'files'} ahead of it`,
      );
    if (report.status === 'running') throw new HttpError(409, `The file is still being written (${report.progress}%)`);
    if (report.status === 'failed')
      throw new HttpError(409, `The file could not be written: ${report.error ?? 'unknown error'}`);
    const path = report.fileName ? reportFilePath(app.settings.dataDir, report.fileName) : '';
    if (!path || !existsSync(path)) throw notFound('The file is gone');
    const download = `${report.name.replace(/[^\w .-]+/g, '_').trim() || 'report'}.csv`;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${download}"`)
      .send(createReadStream(path));
  });
}
