/**
 * `adplane --workers N` under load (docs/performance.md, "Workers"), in one bounded run:
 *
 *   npx tsx bench/workers.bench.ts          (or: npm run bench:workers)
 *
 * Fills a store as bench/edge.bench.ts does (100 tenants x 1,000 campaigns, plus per tenant 10
 * campaigns with daily budgets that win, so every filled decision reserves budget), then measures:
 *  (a) the VAST path of `--role edge --workers 1` and `--workers 2` at full load, the load generator
 *      (this process) unpinned beside them, with each side's CPU time, so the scaling can be read
 *      per server CPU-second as well as per wall second (the machine has 2 cores for all of it);
 *  (b) with delivery control on Redis (a redis-server of its own, empty, so that no budget spent by an
 *      earlier run is found; REDIS_URL only when redis-server is not installed): one worker pinned
 *      to CPU 0, the load on CPU 1, beside the node:http baseline R in the same run;
 *  (c) the overspend of a small daily budget spent at full load by 2 workers (in-process counters
 *      in the primary, then Redis): billed impressions (the stats store) against the budget.
 * Results: bench/results/workers.json and a table on stdout (docs/performance.md, "Workers").
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { CampaignInput, ChannelInput, CreativeInput } from '@adplane/shared';
import { hasRedisServer, ownRedisServer, type OwnRedis } from '../packages/server/test/deliveryEngines.js';
import { freePort } from '../packages/server/test/localServer.js';
import { fill } from './edge.bench.js';
import { child, pin, rnd, say, sayTable } from './edge/harness.js';
import { runLoad } from './edge/loadClient.js';
import { cpuSeconds, deliveryStatsByWorker, type EdgeServer, spendBudget, startEdge } from './workers/servers.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const here = dirname(fileURLToPath(import.meta.url));
const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
const WIN_CPM = 30_000_000; // above every campaign of the fill (1..9 USD CPM)
const BUDGET_IMPS = 300;
const OVERSPEND_CPM = 20_000_000;

const media = (name: string) => ({
  name,
  approval: 'approved',
  clickUrl: 'https://brand.example.com/',
  mediaFiles: [
    {
      url: `https://cdn.bench.test/${name}.mp4`,
      mime: 'video/mp4',
      duration: 15,
      width: 1280,
      height: 720,
      bitrate: 2000,
    },
  ],
});

async function measure(server: EdgeServer, paths: string[]) {
  const cpuBefore = server.pids().map((pid) => ({ pid, s: cpuSeconds(pid) }));
  const clientBefore = process.cpuUsage();
  const load = await runLoad({ port: server.port, paths, connections: 32, depth: 8, durationMs: SECONDS * 1000 });
  const client = process.cpuUsage(clientBefore);
  // CPU over the warm-up second and the measured seconds (the rates are of the measured ones)
  const perProcess = cpuBefore.map(({ pid, s }) => cpuSeconds(pid) - s);
  const serverCpu = perProcess.reduce((sum, s) => sum + s, 0);
  const seconds = SECONDS + 1;
  return {
    ...load,
    serverCores: Math.round((serverCpu / seconds) * 100) / 100,
    // the primary first (with --workers 1, the one process), then each worker
    coresByProcess: perProcess.map((s) => Math.round((s / seconds) * 100) / 100),
    loadGeneratorCores: Math.round(((client.user + client.system) / 1e6 / seconds) * 100) / 100,
    perServerCpuSecond: Math.round(load.rps / Math.max(serverCpu / seconds, 0.01)),
  };
}

async function billedImps(dataDir: string, campaignId: number): Promise<number> {
  const instance = await DuckDBInstance.create(join(dataDir, 'stats.duckdb'));
  const connection = await instance.connect();
  try {
    const rows = (
      await connection.runAndReadAll(
        `SELECT coalesce(sum(imps), 0)::INTEGER AS n FROM hourly_stats WHERE campaign_id = ${campaignId}`,
      )
    ).getRowObjectsJS();
    return Number(rows[0]?.n ?? 0);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = loadavg();
  const dataDir = mkdtempSync(join(tmpdir(), 'adplane-workers-bench-'));
  // a fresh Redis: the budgets of case (c) keep their campaign ids from run to run, and a shared
  // server still holds what the last run spent of them (nothing was admitted on it in a second run)
  let redis: OwnRedis | null = null;
  let redisUrl = '';
  if (hasRedisServer()) {
    redis = await ownRedisServer();
    await redis.start();
    redisUrl = redis.url;
  } else if (process.env.REDIS_URL) {
    redisUrl = process.env.REDIS_URL;
    say(`no redis-server here: using REDIS_URL, which keeps what earlier runs spent (flush it first)`);
  }
  const demand = await child([join(here, 'edge/children.ts'), 'demand']);
  say('filling the store...');
  let overspendChannel = '';
  let overspendCampaign = 0;
  const filled = await fill(dataDir, String(demand.msg.url), {
    perTenant: async (insert, _uids, t) => {
      const [creative] = await insert('creatives', [media(`budgeted-${t}`)], CreativeInput);
      await insert(
        'campaigns',
        Array.from({ length: 10 }, (_, i) => ({
          name: `Budgeted ${t}-${i}`,
          startDate: day(-1),
          endDate: day(30),
          bidCpm: WIN_CPM,
          channelScope: 'all',
          dailyBudget: 1_000_000_000_000,
          pacing: 'asap',
          creativeIds: [creative],
        })),
        CampaignInput,
      );
    },
    extraTenant: async (insert, uids) => {
      const [creative] = await insert('creatives', [media('overspend')], CreativeInput);
      [overspendCampaign] = (await insert(
        'campaigns',
        [
          {
            name: 'Small daily budget',
            startDate: day(-1),
            endDate: day(30),
            bidCpm: OVERSPEND_CPM,
            channelScope: 'all',
            dailyBudget: BUDGET_IMPS * (OVERSPEND_CPM / 1000),
            pacing: 'asap',
            creativeIds: [creative],
          },
        ],
        CampaignInput,
      )) as [number];
      const [channel] = await insert(
        'channels',
        [{ name: 'Overspend', demandMode: 'auction', timeoutMs: 500, demand: [] }],
        ChannelInput,
      );
      overspendChannel = (await uids('channels', [channel!]))[0]!;
    },
  });
  say(`filled in ${filled.fillMs} ms`);
  demand.proc.kill();

  const r = rnd(99);
  const IPS = ['8.8.8.8', '81.2.69.160', '24.24.24.24', '1.1.1.1'];
  const vastPaths = Array.from(
    { length: 2000 },
    () =>
      `/vast/${filled.channelUids[Math.floor(r() * filled.channelUids.length)]}?w=${[320, 640, 1280][Math.floor(r() * 3)]}&h=360&ip=${IPS[Math.floor(r() * IPS.length)]}`,
  );
  const port = await freePort();

  // BENCH_ONLY=scaling, redis or overspend: only (a), (b) or (c), printed, nothing written to bench/results
  const only = process.env.BENCH_ONLY ?? '';
  // (a) one worker, then two, the load generator unpinned beside them (2 cores in all)
  const scaling: Record<string, unknown> = {};
  for (const workers of only && only !== 'scaling' ? [] : [1, 2]) {
    say(`(a) --workers ${workers}...`);
    const server = await startEdge({ dataDir, port, workers });
    scaling[`workers${workers}`] = await measure(server, vastPaths);
    await server.stop();
    say(`    ${JSON.stringify(scaling[`workers${workers}`])}`);
  }
  const one = scaling.workers1 as Awaited<ReturnType<typeof measure>>;
  const two = scaling.workers2 as Awaited<ReturnType<typeof measure>>;

  // (b) delivery control on Redis, one worker on CPU 0, the load (and Redis) on CPU 1, beside R
  let onRedis: Record<string, unknown> = { skipped: 'no REDIS_URL and no redis-server' };
  if (redisUrl && (!only || only === 'redis')) {
    say('(b) VAST on Redis vs the node:http baseline...');
    pin(process.pid, 1);
    if (redis) pinRedis(redis.port);
    const bare = await child([join(here, 'edge/children.ts'), 'bare']);
    pin(bare.proc.pid!, 0);
    const bareLoad = await runLoad({
      port: Number(bare.msg.port),
      paths: ['/'],
      connections: 32,
      depth: 8,
      durationMs: SECONDS * 1000,
    });
    bare.proc.kill();
    // the same path on the in-process counters in the same run: what Redis itself costs
    let server = await startEdge({ dataDir, port, workers: 1, cpus: '0' });
    const vastInProcess = await runLoad({
      port,
      paths: vastPaths,
      connections: 32,
      depth: 8,
      durationMs: SECONDS * 1000,
    });
    await server.stop();
    server = await startEdge({ dataDir, port, workers: 1, cpus: '0', env: { REDIS_URL: redisUrl } });
    const vast = await runLoad({ port, paths: vastPaths, connections: 32, depth: 8, durationMs: SECONDS * 1000 });
    await server.stop();
    onRedis = {
      R: bareLoad.rps,
      bare: bareLoad,
      vast,
      ofR: Math.round((vast.rps / bareLoad.rps) * 100) / 100,
      target: '>= 0.5 R',
      vastInProcessCounters: vastInProcess,
      inProcessOfR: Math.round((vastInProcess.rps / bareLoad.rps) * 100) / 100,
    };
    // back to both cores for the rest of the run
    spawnSync('taskset', ['-acp', '0,1', String(process.pid)], { stdio: 'ignore' });
    say(
      `    ${JSON.stringify({ R: bareLoad.rps, vast: vast.rps, ofR: onRedis.ofR, vastInProcess: vastInProcess.rps, inProcessOfR: onRedis.inProcessOfR })}`,
    );
  }

  // (c) a small daily budget spent at full load by two workers: billed impressions against the budget
  const overspend: Record<string, unknown> = {};
  for (const engine of only === 'scaling' || only === 'redis' ? [] : redisUrl ? ['memory', 'redis'] : ['memory']) {
    say(`(c) overspend, 2 workers, ${engine} counters...`);
    // a copy of the store per engine: each run starts with nothing spent
    const runDir = mkdtempSync(join(tmpdir(), 'adplane-workers-overspend-'));
    cpSync(dataDir, runDir, { recursive: true });
    const server = await startEdge({
      dataDir: runDir,
      port,
      workers: 2,
      env: engine === 'redis' ? { REDIS_URL: redisUrl } : {},
    });
    const paths = IPS.flatMap((ip) =>
      Array.from({ length: 50 }, (_, i) => `/vast/${overspendChannel}?w=640&h=360&ip=${ip}&device_id=o${i}`),
    );
    const spent = await spendBudget({
      port,
      paths,
      media: 'overspend.mp4',
      concurrency: 32,
      quietMs: 7_000,
      maxMs: 60_000,
    });
    const workerStats = await deliveryStatsByWorker(port, 2);
    await server.stop();
    const billed = await billedImps(runDir, overspendCampaign);
    overspend[engine] = {
      budgetImps: BUDGET_IMPS,
      billedImps: billed,
      beaconsAnswered: spent.impressions,
      overspendImps: Math.max(billed - BUDGET_IMPS, 0),
      overspendImpsPerProcess: Math.max(billed - BUDGET_IMPS, 0) / 2,
      requests: spent.requests,
      ms: spent.ms,
      target: 'overspend <= 1 impression per process',
      workerStats,
    };
    rmSync(runDir, { recursive: true, force: true });
    say(`    ${JSON.stringify(overspend[engine])}`);
  }
  if (redis) await redis.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (only) process.exit(0);

  const result = {
    at: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model ?? '',
      node: process.version,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg(),
      note: 'a shared 2-core machine: other engineers ran builds and tests during the run (see the load averages)',
    },
    seconds: SECONDS,
    scaling: {
      ...scaling,
      ratio: Math.round((two.rps / one.rps) * 100) / 100,
      ratioPerServerCpuSecond: Math.round((two.perServerCpuSecond / one.perServerCpuSecond) * 100) / 100,
      target: '--workers 2 >= 1.6 x --workers 1',
      how: 'closed loop, 32 connections x 8 pipelined; the load generator is this process, unpinned: on 2 cores it takes its share of the same cores the workers need',
    },
    onRedis,
    overspend,
    runMs: Date.now() - started,
  };
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(join(here, 'results/workers.json'), `${JSON.stringify(result, null, 2)}\n`);
  sayTable({
    workers1: {
      rps: one.rps,
      serverCores: one.serverCores,
      loadCores: one.loadGeneratorCores,
      perCpuS: one.perServerCpuSecond,
      p99: one.p99Ms,
    },
    workers2: {
      rps: two.rps,
      serverCores: two.serverCores,
      loadCores: two.loadGeneratorCores,
      perCpuS: two.perServerCpuSecond,
      p99: two.p99Ms,
    },
    ratio: { wall: result.scaling.ratio, perCpuSecond: result.scaling.ratioPerServerCpuSecond },
    onRedis: { ofR: String(onRedis.ofR ?? '-'), inProcessOfR: String(onRedis.inProcessOfR ?? '-') },
    ...Object.fromEntries(Object.entries(overspend).map(([k, v]) => [`overspend ${k}`, v as Record<string, unknown>])),
  });
  process.exit(0);
}

/** The bench's own Redis beside the load generator on CPU 1. */
function pinRedis(redisPort: number): void {
  const pid = spawnSync('pgrep', ['-f', `redis-server.*:${redisPort}`])
    .stdout.toString()
    .trim()
    .split('\n')[0];
  if (pid) pin(Number(pid), 1);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
