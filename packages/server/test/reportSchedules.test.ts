import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import ExcelJS from 'exceljs';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  metricCsvValue,
  type ReportRow,
  type ReportSchedule,
  type ReportScheduleList,
  type SavedReport,
} from '@adplane/shared';
import { buildApp } from '../src/app.js';
import { TestClock } from '../src/clock.js';
import { runDueSchedules } from '../src/schedules/scheduleRunner.js';
import { claimScheduleRun, getSchedule } from '../src/store/reportSchedules.js';
import { csvCells } from '../src/schedules/reportWorkbook.js';
import { type EntityTables } from '../src/store/entityTables.js';
import { as, eventually, freshAddress, login } from './helpers.js';
import { startMailServer } from './mailServer.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';

const HOUR = 3_600_000;
/** Saturday 2026-11-28, 05:00 UTC: 06:00 in Berlin. */
const START = Date.parse('2026-11-28T05:00:00Z');

/** A local webhook receiver answering each call with the next of `statuses` (then the last), keeping the bodies. */
async function startHookServer(statuses: number[]) {
  const bodies: Record<string, unknown>[] = [];
  let calls = 0;
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(text) as Record<string, unknown>);
      const status = statuses[Math.min(calls++, statuses.length - 1)]!;
      res.writeHead(status).end(status >= 300 ? 'down for maintenance' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/reports`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The rows of a CSV report file as the report API answers them: each metric column as a number, by the first cell. */
function csvTable(csv: string): string[][] {
  return csv
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => csvCells(l).map((c) => c.text));
}

/**
 * Schedules of saved reports through the real app: the API, the runner on a test clock, the report
 * file in the bell, e-mail through a real SMTP server with the CSV and XLSX read back and compared
 * with the report API's numbers, a webhook answering 500 then 200, restarts and two processes.
 */
forEachStoreAndStatsEngine((t, s) => {
  const clock = new TestClock(START);
  let mail: Awaited<ReturnType<typeof startMailServer>>;
  let hook: Awaited<ReturnType<typeof startHookServer>>;
  let app: FastifyInstance;
  const apps: FastifyInstance[] = [];
  let cookie = '';
  let reportId = 0;

  const open = async (mailUrl: string | null) => {
    const built = await buildApp({
      settings: {
        ...t.settings,
        logLevel: 'silent',
        mail: mailUrl ? { smtpUrl: mailUrl, from: 'adplane <reports@example.com>' } : null,
      },
      store: t.store,
      stats: s.stats,
      clock,
      role: 'api',
    });
    await built.ready();
    apps.push(built);
    return built;
  };

  beforeAll(async () => {
    mail = await startMailServer();
    hook = await startHookServer([500, 200]);
    const northwind = t.users.demand!.id;
    const channels = await t.store.db
      .withTables<EntityTables>()
      .selectFrom('supply_channels')
      .select(['id'])
      .where('tenant_id', '=', northwind)
      .orderBy('id')
      .limit(2)
      .execute();
    const row = (hour: string, channel: number, imps: number) =>
      statsRow({
        hour,
        tenant_id: northwind,
        channel_id: channel,
        reqs: imps * 3,
        opps: imps * 2,
        imps,
        revenue: imps * 4_000,
      });
    // Friday 2026-11-27 in UTC, and a row of the 26th and of the 28th around it
    await s.stats.write([
      row('2026-11-26 23:00:00', channels[0]!.id, 5),
      row('2026-11-27 00:00:00', channels[0]!.id, 101),
      row('2026-11-27 13:00:00', channels[0]!.id, 202),
      row('2026-11-27 23:00:00', channels[1]!.id, 303),
      row('2026-11-28 00:00:00', channels[1]!.id, 7),
    ]);
    app = await open(mail.url);
    cookie = await login(app, 'demand', undefined, freshAddress());
    const saved = await as(app, cookie, {
      method: 'POST',
      url: '/api/savedReports',
      payload: {
        name: 'Daily by channel',
        request: {
          startDate: '2026-01-01',
          endDate: '2026-01-01',
          datePreset: 'yesterday',
          timezone: 0,
          dimensions: ['channel'],
          metrics: ['reqs', 'imps', 'revenue', 'fill'],
        },
      },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    reportId = saved.json<SavedReport>().id;
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await hook?.close();
    await mail?.close();
  });

  const schedulesOf = async (id = reportId, c = cookie, on = app) =>
    (await as(on, c, { method: 'GET', url: `/api/savedReport/${id}/schedules` })).json<ReportScheduleList>();

  describe('the API', () => {
    it('refuses bad schedules naming the field', async () => {
      const post = (payload: object) =>
        as(app, cookie, { method: 'POST', url: `/api/savedReport/${reportId}/schedules`, payload });
      const base = { frequency: 'daily', hour: 6, timeZone: 'Europe/Berlin', formats: ['csv'] };
      for (const [payload, field] of [
        [{ ...base, frequency: 'weekly' }, 'weekday'],
        [{ ...base, frequency: 'monthly' }, 'monthDay'],
        [{ ...base, hour: 24 }, 'hour'],
        [{ ...base, timeZone: 'Mars/Olympus' }, 'timeZone'],
        [{ ...base, formats: [] }, 'formats'],
        [{ ...base, formats: ['pdf'] }, 'formats.0'],
        [{ ...base, emails: ['not-an-address'] }, 'emails.0'],
        [{ ...base, webhookUrl: 'ftp://example.com/x' }, 'webhookUrl'],
      ] as const) {
        const res = await post(payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json<{ field: string }>().field).toBe(field);
      }
    });

    it("keeps a user's schedules to the user (404 to others) and lets an admin see them", async () => {
      const made = await as(app, cookie, {
        method: 'POST',
        url: `/api/savedReport/${reportId}/schedules`,
        payload: { frequency: 'monthly', monthDay: 31, hour: 0, timeZone: 'UTC', formats: ['csv'] },
      });
      expect(made.statusCode, made.body).toBe(201);
      const schedule = made.json<ReportSchedule>();
      // the 30th of November is the month's last day
      expect(schedule.nextRunAt).toBe('2026-11-30T00:00:00.000Z');
      const other = await login(app, 'acme', undefined, freshAddress());
      expect((await as(app, other, { method: 'GET', url: `/api/savedReport/${reportId}/schedules` })).statusCode).toBe(
        404,
      );
      const put = { frequency: 'daily', hour: 1, timeZone: 'UTC', formats: ['csv'] };
      expect(
        (await as(app, other, { method: 'PUT', url: `/api/reportSchedule/${schedule.id}`, payload: put })).statusCode,
      ).toBe(404);
      expect((await as(app, other, { method: 'DELETE', url: `/api/reportSchedule/${schedule.id}` })).statusCode).toBe(
        404,
      );
      const admin = await login(app, 'admin', undefined, freshAddress());
      expect((await schedulesOf(reportId, admin)).schedules.map((x) => x.id)).toContain(schedule.id);
      const changed = await as(app, cookie, { method: 'PUT', url: `/api/reportSchedule/${schedule.id}`, payload: put });
      expect(changed.json<ReportSchedule>()).toMatchObject({
        frequency: 'daily',
        monthDay: null,
        nextRunAt: '2026-11-29T01:00:00.000Z',
      });
      expect((await as(app, cookie, { method: 'DELETE', url: `/api/reportSchedule/${schedule.id}` })).statusCode).toBe(
        200,
      );
      expect((await schedulesOf()).schedules).toEqual([]);
    });
  });

  describe('a daily schedule at 06:00 in Berlin', () => {
    let schedule: ReportSchedule;
    const fileIdsOf = async () =>
      (await as(app, cookie, { method: 'GET', url: '/api/savedReports?all=1' }))
        .json<SavedReport[]>()
        .filter((r) => r.file && r.name.startsWith('Daily by channel'));

    it('runs at 06:00 Berlin time, into the bell, by e-mail with CSV and XLSX, and to the webhook', async () => {
      clock.set(START - HOUR);
      const made = await as(app, cookie, {
        method: 'POST',
        url: `/api/savedReport/${reportId}/schedules`,
        payload: {
          frequency: 'daily',
          hour: 6,
          timeZone: 'Europe/Berlin',
          formats: ['csv', 'xlsx'],
          emails: ['ops@example.com', 'finance@example.com'],
          webhookUrl: hook.url,
        },
      });
      expect(made.statusCode, made.body).toBe(201);
      schedule = made.json<ReportSchedule>();
      expect(schedule.nextRunAt).toBe('2026-11-28T05:00:00.000Z');
      expect(await runDueSchedules(app)).toBe(0);

      clock.set(START);
      await runDueSchedules(app);
      await eventually(
        'the run',
        () => schedulesOf(),
        (l) => l.schedules[0]?.lastRunAt !== null,
      );
      const after = (await schedulesOf()).schedules[0]!;
      expect(after).toMatchObject({
        lastOutcome: 'ok',
        lastError: null,
        failures: 0,
        nextRunAt: '2026-11-29T05:00:00.000Z',
      });
      // a second pass in the same period runs nothing
      expect(await runDueSchedules(app)).toBe(0);

      // the bell: a ready file of yesterday (the 27th in the report's time zone, UTC)
      const files = await fileIdsOf();
      expect(files).toHaveLength(1);
      expect(files[0]).toMatchObject({ id: after.lastFileId, status: 'ready', name: 'Daily by channel (2026-11-27)' });
      expect(files[0]!.request).toMatchObject({ startDate: '2026-11-27', endDate: '2026-11-27' });

      // the report API's numbers for the same request
      const rows = (await as(app, cookie, { method: 'POST', url: '/api/rrun', payload: files[0]!.request! })).json<
        ReportRow[]
      >();
      const total = rows.find((r) => r.total)!;
      expect(total).toMatchObject({ imps: 606, reqs: 1818, revenue: 2_424_000 });

      await app.outbox.deliverDue();
      const got = await eventually(
        'the e-mail',
        async () => mail.received.filter((m) => m.mail.subject === 'Report "Daily by channel": 2026-11-27'),
        (m) => m.length > 0,
      );
      expect(got).toHaveLength(1);
      expect(got[0]!.envelopeTo).toEqual(['ops@example.com', 'finance@example.com']);
      expect(got[0]!.mail.text).toContain('Impressions: 606');
      const [csvFile, xlsxFile] = got[0]!.mail.attachments;
      expect(csvFile!.filename).toBe('Daily by channel 2026-11-27.csv');
      const table = csvTable(csvFile!.content.toString());
      expect(table[0]).toEqual(['Channel Id', 'Channel', 'Requests', 'Impressions', 'Revenue', 'Fill']);
      // each channel's row and the totals equal the report API's
      for (const r of rows) {
        const line = r.total ? table.at(-1)! : table.find((cells) => cells[0] === String(r.channel))!;
        expect(Number(line[2]), JSON.stringify(r)).toBe(r.reqs);
        expect(Number(line[3])).toBe(r.imps);
        // money in USD with 2 decimals, percents too: as the report's own CSV writes them
        expect(line[4]).toBe(metricCsvValue('revenue', r.revenue as number));
        expect(line[5]).toBe(metricCsvValue('fill', r.fill as number));
      }
      expect(table).toHaveLength(rows.length + 1);

      expect(xlsxFile!.filename).toBe('Daily by channel 2026-11-27.xlsx');
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(xlsxFile!.content as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      expect(sheet.getRow(1).values).toEqual([
        undefined,
        'Channel Id',
        'Channel',
        'Requests',
        'Impressions',
        'Revenue',
        'Fill',
      ]);
      const last = sheet.getRow(sheet.rowCount);
      expect(last.getCell(1).value).toBe('Total');
      expect(last.getCell(3).value).toBe(1818);
      expect(last.getCell(4).value).toBe(606);
      expect(sheet.getRow(2).getCell(1).value).toEqual(expect.any(Number));

      // the webhook answered 500: tried again a minute later, and the schedule shows it meanwhile
      const pending = (await schedulesOf()).schedules[0]!.deliveries.find((d) => d.kind === 'webhook')!;
      expect(pending).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastError: 'HTTP 500: down for maintenance',
        nextAt: new Date(START + 60_000).toISOString(),
        target: hook.url,
      });
      expect(hook.bodies[0]).toMatchObject({
        text: 'Report "Daily by channel" for 2026-11-27: Requests 1818, Impressions 606, Revenue 2.42, Fill 50',
        report: { id: reportId, startDate: '2026-11-27', endDate: '2026-11-27' },
        file: { id: after.lastFileId },
        totals: { imps: 606, reqs: 1818 },
      });
      clock.advance(60_000);
      await app.outbox.deliverDue();
      const sent = await eventually(
        'the webhook sent',
        async () => (await schedulesOf()).schedules[0]!.deliveries.find((d) => d.kind === 'webhook')!,
        (d) => d.status === 'sent',
      );
      expect(sent).toMatchObject({ attempts: 2, lastError: null });
      expect(hook.bodies).toHaveLength(2);
      expect((await schedulesOf()).schedules[0]!.deliveries.find((d) => d.kind === 'email')).toMatchObject({
        status: 'sent',
        attempts: 1,
      });
    });

    it('runs a run missed while down once at start, then on its times again', async () => {
      await app.close();
      // three days with no api process: the 29th, 30th and 1st were missed
      clock.set(Date.parse('2026-12-01T09:30:00Z'));
      app = await open(mail.url);
      cookie = await login(app, 'demand', undefined, freshAddress());
      const ran = await eventually(
        'the missed run',
        async () => (await schedulesOf()).schedules[0]!,
        (x) => x.lastRunAt === '2026-12-01T09:30:00.000Z',
      );
      expect(ran).toMatchObject({ lastOutcome: 'ok', nextRunAt: '2026-12-02T05:00:00.000Z' });
      const files = await fileIdsOf();
      expect(files.map((f) => f.name)).toEqual(['Daily by channel (2026-11-30)', 'Daily by channel (2026-11-27)']);
    });

    it('runs a due schedule once when two api processes see it at once', async () => {
      const second = await open(mail.url);
      clock.set(Date.parse('2026-12-02T05:00:00Z'));
      const runs = await Promise.all([runDueSchedules(app), runDueSchedules(second), runDueSchedules(app)]);
      await eventually(
        'the run',
        async () => (await schedulesOf()).schedules[0]!,
        (x) => x.lastRunAt === '2026-12-02T05:00:00.000Z',
      );
      expect(runs.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
      expect((await fileIdsOf()).filter((f) => f.name === 'Daily by channel (2026-12-01)')).toHaveLength(1);
    });

    it('records a failed run on the schedule and tries it again a minute later', async () => {
      await t.store.db.updateTable('users').set({ status: 0 }).where('id', '=', t.users.demand!.id).execute();
      try {
        clock.set(Date.parse('2026-12-03T05:00:00Z'));
        await runDueSchedules(app);
        const admin = await login(app, 'admin', undefined, freshAddress());
        const failed = await eventually(
          'the failed run',
          async () => (await schedulesOf(reportId, admin)).schedules[0]!,
          (x) => x.lastRunAt === '2026-12-03T05:00:00.000Z',
        );
        expect(failed).toMatchObject({
          lastOutcome: 'failed',
          lastError: 'The account the schedule runs as cannot sign in',
          failures: 1,
          nextRunAt: '2026-12-03T05:01:00.000Z',
        });
      } finally {
        await t.store.db.updateTable('users').set({ status: 1 }).where('id', '=', t.users.demand!.id).execute();
      }
      clock.set(Date.parse('2026-12-03T05:01:00Z'));
      await runDueSchedules(app);
      const ok = await eventually(
        'the retry',
        async () => (await schedulesOf()).schedules[0]!,
        (x) => x.lastRunAt === '2026-12-03T05:01:00.000Z',
      );
      expect(ok).toMatchObject({ lastOutcome: 'ok', failures: 0, nextRunAt: '2026-12-04T05:00:00.000Z' });
    });

    it('without mail settings still runs into the bell, sends no e-mail and says mail is off', async () => {
      const off = await open(null);
      const offCookie = await login(off, 'demand', undefined, freshAddress());
      expect((await schedulesOf(reportId, offCookie, off)).mailOn).toBe(false);
      await app.close();
      apps.splice(apps.indexOf(app), 1);
      app = off;
      cookie = offCookie;
      const mailsBefore = mail.received.length;
      clock.set(Date.parse('2026-12-04T05:00:00Z'));
      await runDueSchedules(off);
      const ran = await eventually(
        'the run',
        async () => (await schedulesOf()).schedules[0]!,
        (x) => x.lastRunAt === '2026-12-04T05:00:00.000Z',
      );
      expect(ran.lastOutcome).toBe('ok');
      expect((await fileIdsOf()).map((f) => f.name)).toContain('Daily by channel (2026-12-03)');
      await off.outbox.deliverDue();
      expect(mail.received.length).toBe(mailsBefore);
      expect(ran.deliveries.filter((d) => d.kind === 'email' && d.createdAt === '2026-12-04T05:00:00.000Z')).toEqual(
        [],
      );
    });

    it('runs a run again whose process stopped in the middle of it, once its claim runs out', async () => {
      const { id } = (await schedulesOf()).schedules[0]!;
      clock.set(Date.parse('2026-12-05T05:00:00Z'));
      // a process claims the 05:00 run and stops before it ends
      const stored = await getSchedule(t.store.db, id);
      expect(await claimScheduleRun(t.store.db, stored!, '2026-12-05T05:30:00.000Z')).toBe(true);
      clock.set(Date.parse('2026-12-05T05:10:00Z'));
      expect(await runDueSchedules(app)).toBe(0);
      clock.set(Date.parse('2026-12-05T05:30:00Z'));
      expect(await runDueSchedules(app)).toBe(1);
      const ran = await eventually(
        'the run after the claim ran out',
        async () => (await schedulesOf()).schedules[0]!,
        (x) => x.lastRunAt === '2026-12-05T05:30:00.000Z',
      );
      expect(ran).toMatchObject({ lastOutcome: 'ok', nextRunAt: '2026-12-06T05:00:00.000Z' });
      expect((await fileIdsOf()).filter((f) => f.name === 'Daily by channel (2026-12-04)')).toHaveLength(1);
    });
  });

  it('keeps its local hour across a change of daylight saving time, run after run', async () => {
    // Berlin goes from UTC+1 to UTC+2 on 2027-03-28; a weekly Sunday schedule at 03:00 and a daily at 06:00
    clock.set(Date.parse('2027-03-26T12:00:00Z'));
    // months later: the session of before has run out
    cookie = await login(app, 'demand', undefined, freshAddress());
    const post = async (payload: object) => {
      const res = await as(app, cookie, { method: 'POST', url: `/api/savedReport/${reportId}/schedules`, payload });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<ReportSchedule>();
    };
    const daily = await post({ frequency: 'daily', hour: 6, timeZone: 'Europe/Berlin', formats: ['csv'] });
    const weekly = await post({
      frequency: 'weekly',
      weekday: 0,
      hour: 3,
      timeZone: 'Europe/Berlin',
      formats: ['xlsx'],
    });
    expect(daily.nextRunAt).toBe('2027-03-27T05:00:00.000Z');
    expect(weekly.nextRunAt).toBe('2027-03-28T01:00:00.000Z');
    const nextOf = async (id: number) => (await schedulesOf()).schedules.find((x) => x.id === id)!;
    for (const [at, dailyNext] of [
      ['2027-03-27T05:00:00Z', '2027-03-28T04:00:00.000Z'],
      ['2027-03-28T04:00:00Z', '2027-03-29T04:00:00.000Z'],
    ] as const) {
      clock.set(Date.parse(at));
      await runDueSchedules(app);
      const ran = await eventually(
        'the run',
        () => nextOf(daily.id),
        (x) => x.nextRunAt === dailyNext,
      );
      expect(ran.lastOutcome).toBe('ok');
    }
    // the weekly one ran with the daily one at 04:00 UTC (its 01:00 UTC was before); next Sunday 03:00 is 01:00 UTC
    const w = await eventually(
      'the weekly run',
      () => nextOf(weekly.id),
      (x) => x.lastRunAt !== null,
    );
    expect(w).toMatchObject({ lastOutcome: 'ok', nextRunAt: '2027-04-04T01:00:00.000Z' });
  });
});
