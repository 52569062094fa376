import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StatsStore } from '../src/stats/statsStore.js';
import { as, buildTestApp, eventually, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';

/** A gate the test opens: what waits on it waits until then (every closing's waiters, however many). */
function gate() {
  const waiting: (() => void)[] = [];
  let closed = false;
  return {
    close() {
      closed = true;
    },
    open() {
      closed = false;
      for (const go of waiting.splice(0)) go();
    },
    wait: () => (closed ? new Promise<void>((resolve) => waiting.push(resolve)) : Promise.resolve()),
  };
}

/**
 * The stats store under test, with files' rows (selectChunks; DuckDB: exportRows, read by the
 * report-file thread) and other reads (select) held at a gate each: a file stays "being written"
 * until the test lets it go, so the line's states are seen without racing the work (on ClickHouse
 * a file's rows come to the serving thread a chunk at a time: selectChunks).
 */
function gatedStats(
  stats: () => StatsStore,
  rows: ReturnType<typeof gate>,
  reads: ReturnType<typeof gate>,
): StatsStore {
  return {
    get engine() {
      return stats().engine;
    },
    get dialect() {
      return stats().dialect;
    },
    write: (batch) => stats().write(batch),
    exec: (sql) => stats().exec(sql),
    migrations: () => stats().migrations(),
    close: () => Promise.resolve(),
    select: async (sql) => {
      await reads.wait();
      return stats().select(sql);
    },
    async *selectChunks(sql) {
      await rows.wait();
      const own = stats();
      if (own.selectChunks) yield* own.selectChunks(sql);
      else yield await own.select(sql);
    },
    get exportRows() {
      const own = stats();
      if (!own.exportRows) return undefined;
      return async (sql: string, path: string) => {
        await rows.wait();
        await own.exportRows!(sql, path);
      };
    },
  };
}

interface Answer {
  id: number;
  status: string;
  ahead?: number;
  progress: number;
  file: number;
}

/** The limits on report work (docs/reports.md, "Limits"), through the real app on every config store and stats engine. */
forEachStoreAndStatsEngine((t, s) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  const rows = gate();
  const reads = gate();
  const request = {
    startDate: '2026-11-01',
    endDate: '2026-11-02',
    dimensions: ['date', 'channel'],
    metrics: ['imps', 'revenue'],
  };

  beforeAll(async () => {
    // the config store is the same for every stats engine: each engine's run starts with no saved report
    await t.store.db.deleteFrom('saved_reports').execute();
    // the defaults: 2 files written at once, 4 in line per user (one written at a time)
    app = await buildTestApp(t.store, {}, { stats: gatedStats(() => s.stats, rows, reads) });
    await s.stats.write([
      statsRow({
        hour: '2026-11-01 10:00:00',
        tenant_id: t.users.demand.id,
        channel_id: 1,
        reqs: 1000,
        imps: 200,
        revenue: 2_000_000,
      }),
      statsRow({
        hour: '2026-11-02 11:00:00',
        tenant_id: t.users.demand.id,
        channel_id: 2,
        reqs: 500,
        imps: 100,
        revenue: 1_000_000,
      }),
      statsRow({
        hour: '2026-11-01 12:00:00',
        tenant_id: t.users.acme.id,
        channel_id: 3,
        reqs: 7,
        imps: 7,
        revenue: 7_000_000,
      }),
    ]);
    for (const user of ['admin', 'demand', 'acme', 'sub'])
      cookies[user] = await login(app, user, undefined, freshAddress());
  });
  afterAll(async () => {
    rows.open();
    reads.open();
    await app?.close();
  });

  const queueFile = (user: string, name: string) =>
    as(app, cookies[user], { method: 'POST', url: '/api/rfile', payload: { name, request } });
  const get = async (user: string, id: number) =>
    (await as(app, cookies[user], { method: 'GET', url: `/api/savedReport/${id}` })).json<Answer>();
  const bell = async (user: string) =>
    (await as(app, cookies[user], { method: 'GET', url: '/api/savedReports' })).json<Answer[]>();

  describe('report files', () => {
    it('writes one file of a user at a time, two overall; past four in line a user is refused, and every file is written in the end', async () => {
      rows.close();
      const mine: Answer[] = [];
      for (let i = 1; i <= 4; i++) {
        const res = await queueFile('demand', `Year ${i}`);
        expect(res.statusCode, res.body).toBe(202);
        mine.push(res.json<Answer>());
      }
      expect(mine.map((f) => [f.status, f.ahead])).toEqual([
        ['running', undefined],
        ['waiting', 1],
        ['waiting', 2],
        ['waiting', 3],
      ]);

      const refused = await queueFile('demand', 'Year 5');
      expect(refused.statusCode).toBe(429);
      expect(refused.json<{ message: string }>().message).toBe(
        'You have 4 report files in line (1 being written, 3 waiting): wait for one to finish, or delete a waiting one in the bell, then try again.',
      );
      // nothing was kept of the refused one
      expect((await bell('demand')).filter((r) => r.file).length).toBe(4);

      // another user's file takes the second place at once; a third user's waits behind the three waiting before it
      const other = (await queueFile('acme', 'Acme year')).json<Answer>();
      expect(other).toMatchObject({ status: 'running' });
      const third = (await queueFile('sub', 'Sub year')).json<Answer>();
      expect(third).toMatchObject({ status: 'waiting', ahead: 3 });

      // the states are what the bell and the file read
      expect(await get('demand', mine[2]!.id)).toMatchObject({ status: 'waiting', ahead: 2 });
      expect((await bell('demand')).find((r) => r.id === mine[3]!.id)).toMatchObject({ status: 'waiting', ahead: 3 });
      const early = await as(app, cookies.demand, { method: 'GET', url: `/api/savedFile/${mine[1]!.id}` });
      expect(early.statusCode).toBe(409);
      expect(early.json<{ message: string }>().message).toBe('The file waits for its turn: 1 file ahead of it');

      // deleting a waiting file takes it out of line: the ones behind it move up
      expect(
        (await as(app, cookies.demand, { method: 'DELETE', url: `/api/savedReport/${mine[1]!.id}` })).statusCode,
      ).toBe(200);
      expect(await get('demand', mine[2]!.id)).toMatchObject({ status: 'waiting', ahead: 1 });
      expect(await get('sub', third.id)).toMatchObject({ status: 'waiting', ahead: 2 });
      // and gives its place back
      const again = await queueFile('demand', 'Year 5');
      expect(again.statusCode).toBe(202);
      // (the three waiting before it, and the user's own file being written)
      expect(again.json<Answer>()).toMatchObject({ status: 'waiting', ahead: 4 });

      rows.open();
      const written = [mine[0]!, mine[2]!, mine[3]!, again.json<Answer>()];
      for (const f of written)
        await eventually(
          `file ${f.id}`,
          () => get('demand', f.id),
          (r) => r.status === 'ready',
        );
      await eventually(
        "the other users' files",
        async () => [await get('acme', other.id), await get('sub', third.id)],
        (both) => both.every((r) => r.status === 'ready'),
      );
      const csv = await as(app, cookies.demand, { method: 'GET', url: `/api/savedFile/${written[3]!.id}` });
      expect(csv.statusCode).toBe(200);
      expect(csv.body.trim().split('\n')).toEqual([
        'Date,Channel Id,Channel,Impressions,Revenue',
        expect.stringMatching(/^2026-11-01,1,/),
        expect.stringMatching(/^2026-11-02,2,/),
        'Total,,,300,3.00',
      ]);
    });

    it('stops a file being written when it is deleted, and starts the next', async () => {
      rows.close();
      const first = (await queueFile('acme', 'Acme 1')).json<Answer>();
      const next = (await queueFile('acme', 'Acme 2')).json<Answer>();
      expect([first.status, next.status, next.ahead]).toEqual(['running', 'waiting', 1]);
      expect((await as(app, cookies.acme, { method: 'DELETE', url: `/api/savedReport/${first.id}` })).statusCode).toBe(
        200,
      );
      rows.open();
      await eventually(
        'the next file',
        () => get('acme', next.id),
        (r) => r.status === 'ready',
      );
      expect((await as(app, cookies.acme, { method: 'GET', url: `/api/savedReport/${first.id}` })).statusCode).toBe(
        404,
      );
    });
  });

  describe('interactive runs', () => {
    it('runs two of a user at a time, lets eight more wait, refuses the eleventh, and answers every one it took', async () => {
      reads.close();
      const run = () =>
        as(app, cookies.demand, {
          method: 'POST',
          url: '/api/rrun',
          payload: { ...request, dimensions: ['channel'] },
        });
      const taken = Array.from({ length: 10 }, run);
      // the eleventh arrives while ten are in line (each request reaches the line before the gate opens)
      await eventually(
        'ten runs in line',
        async () => app.reportLines.runs.countOf(t.users.demand.id),
        (n) => n.running + n.waiting === 10,
      );
      expect(app.reportLines.runs.countOf(t.users.demand.id)).toEqual({ running: 2, waiting: 8 });
      const refused = await run();
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('5');
      // another user is not held back by this one's line
      const otherRun = as(app, cookies.acme, {
        method: 'POST',
        url: '/api/rrun',
        payload: { ...request, dimensions: ['channel'] },
      });
      await eventually(
        "the other user's run",
        async () => app.reportLines.runs.countOf(t.users.acme.id).running,
        (n) => n === 1,
      );
      reads.open();
      for (const res of await Promise.all(taken)) expect(res.statusCode).toBe(200);
      expect((await otherRun).statusCode).toBe(200);
    });
  });
});
