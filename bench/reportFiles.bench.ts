/**
 * Report files beside the edge (docs/reports.md "Limits", docs/performance.md "Report files beside
 * the edge"): VAST paced at a steady rate while year-long report files are written by the same
 * process, its p95 / p99 with no file; with the files' CSV made on the serving thread
 * (ADPLANE_REPORT_FILES_THREAD=0): the line's limits lifted (and DuckDB on a thread a core), the
 * limits and a thread a core, the limits and DuckDB's default (a thread fewer); and as the server
 * runs by default: the limits, a thread fewer, the CSV made on the report-file thread:
 *
 *   npx tsx bench/reportFiles.bench.ts
 *
 * Fills a store with BENCH_TENANTS (8) tenants' campaigns (edge.bench.ts `fill`) and a year of
 * hourly stats rows for them (BENCH_REPORT_ROWS, default 2 million, generated inside DuckDB), then per
 * case starts the real app (role all, DuckDB, unpinned: the machine's cores) in a child, has each
 * tenant queue one report file over the whole year (channel x country x app, sorted by impressions:
 * one query over every row of the tenant, a large answer), and measures VAST at BENCH_RATE (1,000)
 * requests/s for BENCH_SECONDS (20) from the moment the files are queued; then how long the files
 * took to be written, and the CPU each of the server's threads used meanwhile. Results:
 * bench/results/report-files.json and a table on stdout. BENCH_CASES=a,b runs those cases only
 * (nothing written); BENCH_PROFILE=<dir> writes the server's CPU profiles there, a folder a case.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildApp } from '../packages/server/src/app.js';
import { loadSettings } from '../packages/server/src/settings.js';
import { rollupBackfillSql } from '../packages/server/src/stats/rollup.js';
import { DIMENSION_COLUMNS, METRIC_COLUMNS } from '../packages/server/src/stats/hourlyRow.js';
import { kindOf, openStatsStore, TEXT } from '../packages/server/src/stats/statsStore.js';
import { openStore } from '../packages/server/src/store/db.js';
import { ask, child, say, sayTable } from './edge/harness.js';
import { threadCpuSeconds, threadCpuSince } from './workers/servers.js';
import { runLoad } from './edge/loadClient.js';

const TENANTS = Number(process.env.BENCH_TENANTS ?? 8);
const ROWS = Number(process.env.BENCH_REPORT_ROWS ?? 2_000_000);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const PASSWORD = 'bench-password-1';
const here = dirname(fileURLToPath(import.meta.url));
const YEAR = { startDate: '2025-11-24', endDate: '2026-11-24' };

/** The child: the real app over the filled store, DuckDB with BENCH_THREADS threads when given. */
async function serve(): Promise<void> {
  const dataDir = process.env.BENCH_DATA!;
  const settings = loadSettings({
    ...process.env,
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    ADPLANE_DEMO: '0',
    ADPLANE_WEB_DIST: join(dataDir, 'none'),
    ADPLANE_HOST: 'http://127.0.0.1:1',
    ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
  });
  const store = await openStore(settings);
  const threads = process.env.BENCH_THREADS ? Number(process.env.BENCH_THREADS) : undefined;
  const stats = await openStatsStore({ dataDir, clickhouseUrl: null, ...(threads ? { duckdbThreads: threads } : {}) });
  const app = await buildApp({ settings, store, stats });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  process.send!({
    port: typeof address === 'object' && address ? address.port : 0,
    duckdbThreads: (await stats.select("SELECT current_setting('threads') AS t"))[0]?.t,
  });
  process.on('message', async (m) => {
    if (m === 'loop') {
      process.send!({
        loopP99Ms: Math.round(loop.percentile(99) / 1e4) / 100,
        loopMaxMs: Math.round(loop.max / 1e4) / 100,
      });
      loop.reset();
    } else if (m === 'stop') {
      await app.close();
      await stats.close();
      await store.close();
      process.exit(0);
    }
  });
}

/** A year of hourly rows for the tenants (ids `tenantIds`), generated inside DuckDB, and the rollup from them. */
async function fillStats(dataDir: string, tenantIds: number[]): Promise<number> {
  const t0 = performance.now();
  const stats = await openStatsStore({ dataDir, clickhouseUrl: null });
  const hours = 366 * 24;
  const perHour = Math.ceil(ROWS / hours);
  const tenant = `(CASE i % ${tenantIds.length} ${tenantIds.map((id, k) => `WHEN ${k} THEN ${id}`).join(' ')} END)`;
  const reqs = '(100 + (i * 7) % 900)';
  const given: Record<string, string> = {
    hour: `TIMESTAMP '${YEAR.startDate} 00:00:00' + to_hours(CAST(i // ${perHour} AS BIGINT))`,
    tenant_id: tenant,
    channel_id: '1 + (i * 13) % 100',
    country:
      "(CASE (i // 100) % 6 WHEN 0 THEN 'US' WHEN 1 THEN 'GB' WHEN 2 THEN 'DE' WHEN 3 THEN 'CA' WHEN 4 THEN 'FR' ELSE 'BR' END)",
    app_bundle: "concat('com.app', CAST(((i // 600) * 31) % 5000 AS VARCHAR))",
    integration: "'VAST'",
    reqs,
    opps: `${reqs} * 9 / 10`,
    imps: `${reqs} / 5`,
    revenue: `(${reqs} / 5) * 8000`,
    cost: `(${reqs} / 5) * 4000`,
  };
  const columns = [...DIMENSION_COLUMNS, ...METRIC_COLUMNS];
  const values = columns.map((c) => `${given[c] ?? (kindOf(c) === TEXT ? "''" : '0')} AS ${c}`);
  await stats.exec(
    `INSERT INTO hourly_stats (${columns.join(', ')}) SELECT ${values.join(', ')} FROM range(0, ${ROWS}) t(i)`,
  );
  await stats.exec(rollupBackfillSql());
  await stats.close();
  return Math.round(performance.now() - t0);
}

async function call(
  port: number,
  path: string,
  init: { method?: string; cookie?: string; body?: unknown } = {},
): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'sec-fetch-site': 'same-origin',
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
}

const percentile = (sorted: number[], p: number) =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? 0) * 100) / 100;

interface Case {
  name: string;
  files: boolean;
  env: Record<string, string>;
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const dataDir = mkdtempSync(join(tmpdir(), 'adplane-report-bench-'));
  process.env.BENCH_TENANTS = String(TENANTS);
  const { fill } = await import('./edge.bench.js');
  say('filling the store...');
  const filled = await fill(dataDir, 'http://127.0.0.1:9');
  const store = await openStore(loadSettings({ LOG_LEVEL: 'warn', DATA_DIR: dataDir }));
  const users = await store.db
    .selectFrom('users')
    .select(['id', 'username'])
    .where('username', 'like', 'tenant%')
    .orderBy('id')
    .execute();
  await store.close();
  const tenants = users.filter((u) => Number(u.username.slice(6)) < TENANTS);
  say(`filled in ${filled.fillMs} ms; writing ${ROWS.toLocaleString('en-US')} stats rows...`);
  const statsMs = await fillStats(
    dataDir,
    tenants.map((u) => Number(u.id)),
  );
  say(`stats in ${statsMs} ms`);
  const vastPaths = Array.from(
    { length: 2000 },
    (_, i) => `/vast/${filled.channelUids[(i * 7919) % filled.channelUids.length]}?w=640&h=360&ip=8.8.8.8`,
  );

  // DuckDB with a thread a core or one fewer (the default); the CSV made on the serving thread
  // (ADPLANE_REPORT_FILES_THREAD=0) or on the report-file thread (the default)
  const everyCore = String(availableParallelism());
  const onLoop = { ADPLANE_REPORT_FILES_THREAD: '0' };
  const cases: Case[] = [
    { name: 'noFiles', files: false, env: {} },
    {
      name: 'unlimitedEveryCore',
      files: true,
      env: { ...onLoop, ADPLANE_REPORT_FILES_AT_ONCE: '64', BENCH_THREADS: everyCore },
    },
    { name: 'limitedEveryCore', files: true, env: { ...onLoop, BENCH_THREADS: everyCore } },
    { name: 'limited', files: true, env: onLoop },
    { name: 'limitedThread', files: true, env: {} },
  ];
  const only = process.env.BENCH_CASES?.split(',');
  const results: Record<string, unknown> = {};
  for (const c of cases) {
    if (only && !only.includes(c.name)) continue;
    const saved = { ...process.env };
    Object.assign(process.env, { BENCH_DATA: dataDir, ...c.env });
    const profile = process.env.BENCH_PROFILE
      ? ['--cpu-prof', '--cpu-prof-dir', join(process.env.BENCH_PROFILE, c.name)]
      : [];
    const server = await child([fileURLToPath(import.meta.url), '--report-serve'], profile);
    process.env = saved;
    const port = Number(server.msg.port);
    say(`${c.name}: server up (DuckDB threads ${String(server.msg.duckdbThreads)})`);
    // warm the edge (the snapshot is built; the first requests run cold code)
    await runLoad({ port, paths: vastPaths, connections: 16, rate: RATE, durationMs: 3000 });
    const cookies = await Promise.all(
      tenants.map(async (u) => {
        const res = await call(port, '/api/auth/login', {
          method: 'POST',
          body: { username: u.username, password: PASSWORD },
        });
        return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
      }),
    );
    await ask(server.proc, 'loop');
    const t0 = performance.now();
    const files: { cookie: string; id: number }[] = [];
    if (c.files) {
      for (const cookie of cookies) {
        const res = await call(port, '/api/rfile', {
          method: 'POST',
          cookie,
          body: {
            name: 'Year',
            request: {
              ...YEAR,
              dimensions: ['channel', 'country', 'app_bundle'],
              metrics: ['reqs', 'imps', 'revenue', 'fill'],
              sort: { by: 'imps', order: 'desc' },
            },
          },
        });
        if (res.status !== 202) throw new Error(`rfile answered ${res.status}: ${await res.text()}`);
        files.push({ cookie, id: ((await res.json()) as { id: number }).id });
      }
    }
    const latencies: number[] = [];
    const threads0 = threadCpuSeconds(server.proc.pid!);
    const load = await runLoad({
      port,
      paths: vastPaths,
      connections: 16,
      rate: RATE,
      durationMs: SECONDS * 1000,
      onAnswer: (_, ms) => latencies.push(ms),
    });
    const loop = await ask(server.proc, 'loop');
    const threadsCpuS = threadCpuSince(threads0, threadCpuSeconds(server.proc.pid!));
    // then how long until every file is written
    let readyAfterS = 0;
    const rows: number[] = [];
    for (const f of files) {
      for (;;) {
        const r = (await (await call(port, `/api/savedReport/${f.id}`, { cookie: f.cookie })).json()) as {
          status: string;
        };
        if (r.status === 'ready' || r.status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const csv = await (await call(port, `/api/savedFile/${f.id}`, { cookie: f.cookie })).text();
      rows.push(csv.split('\n').length - 3);
    }
    if (files.length) readyAfterS = Math.round((performance.now() - t0) / 100) / 10;
    latencies.sort((a, b) => a - b);
    results[c.name] = {
      env: c.env,
      duckdbThreads: Number(server.msg.duckdbThreads),
      files: files.length,
      rowsPerFile: rows[0] ?? 0,
      allFilesWrittenAfterS: readyAfterS,
      vast: {
        rate: RATE,
        requests: load.requests,
        errors: load.errors,
        statuses: load.statuses,
        p50Ms: percentile(latencies, 0.5),
        p95Ms: percentile(latencies, 0.95),
        p99Ms: percentile(latencies, 0.99),
        maxMs: load.maxMs,
      },
      eventLoop: loop,
      serverThreadsCpuS: threadsCpuS,
    };
    say(`${c.name}: ${JSON.stringify(results[c.name])}`);
    await ask(server.proc, 'stop').catch(() => undefined);
  }
  rmSync(dataDir, { recursive: true, force: true });
  const result = {
    at: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      availableParallelism: availableParallelism(),
      model: cpus()[0]?.model ?? '',
      node: process.version,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg(),
    },
    setup: {
      tenants: TENANTS,
      statsRows: ROWS,
      vastRate: RATE,
      seconds: SECONDS,
      file: 'a year by channel x country x app bundle, sorted by impressions, one per tenant',
    },
    cases: results,
  };
  if (!only) {
    mkdirSync(join(here, 'results'), { recursive: true });
    writeFileSync(join(here, 'results/report-files.json'), `${JSON.stringify(result, null, 2)}\n`);
  }
  sayTable(
    Object.fromEntries(
      Object.entries(results).map(([k, v]) => {
        const r = v as {
          vast: { p50Ms: number; p95Ms: number; p99Ms: number };
          eventLoop: Record<string, unknown>;
          allFilesWrittenAfterS: number;
          duckdbThreads: number;
        };
        return [
          k,
          {
            threads: r.duckdbThreads,
            p50: r.vast.p50Ms,
            p95: r.vast.p95Ms,
            p99: r.vast.p99Ms,
            loopMax: r.eventLoop.loopMaxMs,
            filesDoneS: r.allFilesWrittenAfterS,
          },
        ];
      }),
    ),
  );
  process.exit(0);
}

if (process.argv.includes('--report-serve')) void serve();
else if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
