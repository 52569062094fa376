import { readdirSync, readFileSync } from 'node:fs';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { as, buildTestApp, eventually, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';

interface Answer {
  id: number;
  status: string;
  error?: string;
}

/** The nice value of each of this process's threads (Linux). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => niceOf(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')));
}

/** The nice value in a thread's /proc stat line. */
const niceOf = (stat: string): number => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);

/**
 * Report files made on the report-file thread (the default for DuckDB) are the files the serving
 * thread makes (ADPLANE_REPORT_FILES_THREAD=0, and ClickHouse's), byte for byte: names, text that
 * must be quoted or neutralised, day-by-day parts, a limit, the totals line; on each config store
 * and stats engine.
 */
forEachStoreAndStatsEngine((t, s) => {
  let thread: FastifyInstance;
  let loop: FastifyInstance;
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    thread = await buildTestApp(t.store, {}, { stats: s.stats });
    loop = await buildTestApp(t.store, { reportFilesThread: false }, { stats: s.stats });
    const tenant = t.users.demand.id;
    await s.stats.write([
      statsRow({
        hour: '2026-11-01 10:00:00',
        tenant_id: tenant,
        channel_id: 1,
        app_bundle: '=HYPERLINK("x")',
        reqs: 1000,
        imps: 200,
        revenue: 2_000_000,
      }),
      statsRow({
        hour: '2026-11-01 11:00:00',
        tenant_id: tenant,
        channel_id: 2,
        app_bundle: 'com.a,b',
        reqs: 300,
        imps: 30,
        revenue: 123_457,
      }),
      statsRow({
        hour: '2026-11-02 11:00:00',
        tenant_id: tenant,
        channel_id: 2,
        app_bundle: 'com.plain',
        reqs: 500,
        imps: 100,
        revenue: 1_000_000,
      }),
      statsRow({
        hour: '2026-11-03 09:00:00',
        tenant_id: tenant,
        channel_id: 987654,
        app_bundle: '-1',
        reqs: 9,
        imps: 0,
        revenue: 0,
      }),
      // days whose parts are alike in size and shape (as a month of traffic's are), their numbers not
      ...Array.from({ length: 6 * 200 }, (_, i) => {
        const d = i % 6;
        return statsRow({
          hour: `2026-11-1${d} 08:00:00`,
          tenant_id: tenant,
          channel_id: 2,
          domain: `site${Math.floor(i / 6)}.example`,
          reqs: 100 + i,
          imps: 10 + d,
          revenue: 1000 + i,
        });
      }),
    ]);
    cookies.thread = await login(thread, 'demand', undefined, freshAddress());
    cookies.loop = await login(loop, 'demand', undefined, freshAddress());
  });
  afterAll(async () => {
    await thread?.close();
    await loop?.close();
  });

  const fileOf = async (app: FastifyInstance, cookie: string, request: Record<string, unknown>): Promise<string> => {
    const started = await as(app, cookie, { method: 'POST', url: '/api/rfile', payload: { name: 'File', request } });
    expect(started.statusCode).toBe(202);
    const { id } = started.json<Answer>();
    const done = await eventually(
      'the file',
      async () => (await as(app, cookie, { method: 'GET', url: `/api/savedReport/${id}` })).json<Answer>(),
      (r) => r.status !== 'running',
    );
    expect(done).toMatchObject({ status: 'ready' });
    return (await as(app, cookie, { method: 'GET', url: `/api/savedFile/${id}` })).body;
  };

  const requests: Record<string, Record<string, unknown>> = {
    'by day, in date order (a part a day)': {
      startDate: '2026-11-01',
      endDate: '2026-11-03',
      dimensions: ['date', 'channel', 'app_bundle'],
      metrics: ['reqs', 'imps', 'revenue', 'ecpm', 'fill'],
    },
    'by channel and app, sorted by impressions (one part)': {
      startDate: '2026-11-01',
      endDate: '2026-11-03',
      dimensions: ['channel', 'app_bundle'],
      metrics: ['imps', 'revenue', 'fill'],
      sort: { by: 'imps', order: 'desc' },
    },
    'with a limit': {
      startDate: '2026-11-01',
      endDate: '2026-11-03',
      dimensions: ['app_bundle'],
      metrics: ['reqs'],
      sort: { by: 'reqs', order: 'asc' },
      limit: 2,
    },
    'by day over days alike (a part a day, each read apart)': {
      startDate: '2026-11-10',
      endDate: '2026-11-15',
      dimensions: ['date', 'domain'],
      metrics: ['reqs', 'imps', 'revenue'],
    },
    'without dimensions (the totals only)': {
      startDate: '2026-11-01',
      endDate: '2026-11-03',
      dimensions: [],
      metrics: ['reqs', 'revenue'],
    },
  };
  for (const [what, request] of Object.entries(requests)) {
    it(`writes the file the serving thread writes: ${what}`, async () => {
      const made = await fileOf(thread, cookies.thread, request);
      expect(made).toBe(await fileOf(loop, cookies.loop, request));
      if ((request.dimensions as string[]).length) expect(made.trim().split('\n').at(-1)).toMatch(/^Total,/);
    });
  }

  it('writes two files at once, each whole', async () => {
    cookies.admin ??= await login(thread, 'admin', undefined, freshAddress());
    cookies.adminLoop ??= await login(loop, 'admin', undefined, freshAddress());
    const request = requests['by channel and app, sorted by impressions (one part)']!;
    const [mine, admins] = await Promise.all([
      fileOf(thread, cookies.thread, request),
      fileOf(thread, cookies.admin, request),
    ]);
    expect(mine).toBe(await fileOf(loop, cookies.loop, request));
    expect(admins).toBe(await fileOf(loop, cookies.adminLoop, request));
    expect(mine.split('\n').length).toBeGreaterThan(4);
  });

  it('neutralises and quotes text as every CSV of adplane does, and names the entities', async () => {
    const csv = await fileOf(thread, cookies.thread, requests['by channel and app, sorted by impressions (one part)']!);
    expect(csv).toContain(`"'=HYPERLINK(""x"")"`);
    expect(csv).toContain('"com.a,b"');
    expect(csv).toContain(`"'-1"`);
    expect(csv).toContain('987654,#987654,');
  });

  // (DuckDB's files only: ClickHouse's are made on the serving thread, a chunk of rows at a time)
  it.runIf(process.platform === 'linux' && s.engine === 'duckdb')(
    'runs the thread at the lowest priority, and the serving thread at its own',
    () => {
      const nices = threadNices();
      // the thread this test runs on serves the app (/proc/thread-self: the calling thread, whichever
      // thread of the process the test runner gave the file)
      expect(niceOf(readFileSync('/proc/thread-self/stat', 'utf8'))).toBe(0);
      expect(nices).toContain(19);
    },
  );
});
