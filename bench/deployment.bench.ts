/**
 * adplane deployed as docs/delivery.md's roles, on one machine's loopback, in one bounded run:
 *
 *   npm run build && npm run bench:deployment      (needs DATABASE_URL and CLICKHOUSE_URL)
 *
 * Starts one `--role api` and three `--role edge` processes of the built bundle
 * (packages/server/dist/main.mjs, `--workers 1` each, ports of their own as behind a load balancer)
 * on PostgreSQL (a database of the run's own on DATABASE_URL's server), Redis (a redis-server of its
 * own; REDIS_URL when none is installed) and ClickHouse (a database of its own on CLICKHOUSE_URL's
 * server), every store made empty and dropped at the end. Through the api process it writes the
 * campaigns: three with daily budgets and a frequency cap that win every US auction, and a filler
 * with a cap (no budget) that fills the rest. Then, for BENCH_SECONDS (default 20):
 *  - players (PLAYERS per edge) ask an edge for VAST on the US channel and send each filled answer's
 *    impression beacon (/ev) to the next edge, counting every beacon answered 200;
 *  - beside them, the pipelining load generator (bench/edge/loadClient.ts) asks each edge for VAST
 *    from GB (the filler's answers, never rendered).
 * It reports the aggregate rate and each edge's p99, whether each daily budget held (the spend the api
 * reads from Redis and the impressions the report counts, against budget + one in-flight impression
 * per edge: docs/delivery.md, "How far a budget can be overspent") and each cap (one beyond per
 * process: "Frequency caps"), and
 * whether the api's report (POST /api/rrun) counts exactly the beacons answered 200, once the edges
 * flushed. Then the players go on with new viewers and one edge is killed with SIGKILL under their load:
 * the report's loss is held to docs/ad-server.md's bound, what that edge answered in the last flush
 * interval plus the flush's own time (ADPLANE_STATS_FLUSH_SECONDS=1 here, as test/faultCounting.test.ts).
 * Results: bench/results/deployment.json and a table on stdout (docs/performance.md, "Deployment").
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CampaignPacing } from '@adplane/shared';
import { dropClickHouseDatabase } from '../packages/server/src/stats/clickhouse/clickhouseStore.js';
import { callProgram, type RunningAdplane, startAdplane } from '../packages/server/test/adplaneCommand.js';
import { hasRedisServer, type OwnRedis, ownRedisServer } from '../packages/server/test/deliveryEngines.js';
import { seedDemoStore } from '../packages/server/test/demoStore.js';
import { DEMO_PASSWORD, onPgServer } from '../packages/server/test/helpers.js';
import { machineFacts, rnd, say, sayTable, writeResult } from './edge/harness.js';
import { type LoadResult, runLoad } from './edge/loadClient.js';
import { get } from './workers/servers.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BUNDLE = join(ROOT, 'packages/server/dist/main.mjs');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const EDGES = 3;
const PLAYERS = Number(process.env.BENCH_PLAYERS ?? 8);
const FLUSH_S = 1;
/** docs/ad-server.md's loss bound after a crash: the flush interval and room for a flush under way. */
const LOSS_WINDOW_MS = FLUSH_S * 1000 + 2_000;
/** Load before the kill (several flushes) and after it. */
const KILL_AFTER_MS = 6_000;
const AFTER_KILL_MS = 2_000;
const VIEWERS = 5_000;
const CAP = 3;
/** Bids in micro-USD CPM: the budgets above the filler, the filler above the demo workspace's campaigns. */
const BUDGETS = [
  { bidCpm: 60_000_000, imps: 300 },
  { bidCpm: 55_000_000, imps: 600 },
  { bidCpm: 50_000_000, imps: 1_200 },
];
const FILLER_CPM = 40_000_000;
const US = '8.8.8.8';
const GB = '81.2.69.160';
const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Everything the run started, stopped in reverse order however it ends. */
const cleanups: (() => Promise<unknown>)[] = [];
const stopAll = async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
};

interface Beacon {
  at: number;
  edge: number;
  campaign: string;
  viewer: string;
}

/** The players of one phase: each asks its edge for VAST and sends every fill's beacon to the next live edge. */
function players(o: { ports: number[]; channel: string; viewerPrefix: string; seed: number; dead: Set<number> }) {
  const agents = o.ports.map(() => new Agent({ keepAlive: true, maxSockets: PLAYERS * 2 }));
  const latencies: number[][] = o.ports.map(() => []);
  const beacons: Beacon[] = [];
  let requests = 0;
  let failed = 0;
  let stopped = false;
  const r = rnd(o.seed);
  const timed = async (edge: number, path: string) => {
    const t0 = performance.now();
    const answer = await get(agents[edge]!, o.ports[edge]!, path);
    latencies[edge]!.push(performance.now() - t0);
    requests++;
    return answer;
  };
  const play = async (edge: number) => {
    while (!stopped && !o.dead.has(edge)) {
      const viewer = `${o.viewerPrefix}${Math.floor(r() * VIEWERS)}`;
      try {
        const vast = await timed(edge, `/vast/${o.channel}?w=640&h=360&ip=${US}&device_id=${viewer}`);
        const campaign = /deploy-(\w+)\.mp4/.exec(vast.body)?.[1];
        const url = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(vast.body)?.[1];
        if (vast.status !== 200) failed++;
        if (!campaign || !url) continue;
        let to = (edge + 1) % EDGES;
        while (o.dead.has(to)) to = (to + 1) % EDGES;
        const ev = await timed(to, url.slice(url.indexOf('/ev')));
        if (ev.status === 200) beacons.push({ at: Date.now(), edge: to, campaign, viewer });
        else failed++;
      } catch {
        // the killed edge's connections: no answer, nothing counted as answered
        failed++;
      }
    }
  };
  const started = performance.now();
  const running = Promise.all(o.ports.flatMap((_, e) => Array.from({ length: PLAYERS }, () => play(e))));
  return {
    beacons,
    async stop() {
      stopped = true;
      await running;
      for (const a of agents) a.destroy();
      const seconds = (performance.now() - started) / 1000;
      return { requests, failed, rps: Math.round(requests / seconds), p99Ms: latencies.map(p99) };
    },
  };
}

function p99(xs: number[]): number {
  const sorted = Float64Array.from(xs).sort();
  return sorted.length
    ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]! * 10) / 10
    : 0;
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = loadavg();
  const pgServer = process.env.DATABASE_URL ?? '';
  const clickhouseUrl = process.env.CLICKHOUSE_URL ?? '';
  if (!pgServer || !clickhouseUrl) throw new Error('DATABASE_URL and CLICKHOUSE_URL name the servers the run uses');
  if (!existsSync(BUNDLE)) throw new Error(`no ${BUNDLE}: npm run build first`);
  const own = `adplane_bench_deploy_${process.pid}_${randomBytes(3).toString('hex')}`;

  // the stores: a PostgreSQL database, a ClickHouse database and a Redis of the run's own
  await onPgServer(pgServer, `CREATE DATABASE "${own}"`);
  cleanups.push(() => onPgServer(pgServer, `DROP DATABASE IF EXISTS "${own}" WITH (FORCE)`));
  const databaseUrl = Object.assign(new URL(pgServer), { pathname: `/${own}` }).toString();
  cleanups.push(() => dropClickHouseDatabase(clickhouseUrl, own));
  let redisUrl = process.env.REDIS_URL ?? '';
  if (hasRedisServer()) {
    const redis: OwnRedis = await ownRedisServer();
    await redis.start();
    cleanups.push(() => redis.stop());
    redisUrl = redis.url;
  } else if (!redisUrl) throw new Error('neither redis-server nor REDIS_URL');
  const dirs = Array.from({ length: EDGES + 1 }, () => mkdtempSync(join(tmpdir(), 'adplane-deploy-')));
  cleanups.push(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  await seedDemoStore(dirs[0]!, { DATABASE_URL: databaseUrl });

  const start = async (role: 'api' | 'edge', dir: string): Promise<RunningAdplane> => {
    const node = await startAdplane(
      [BUNDLE, '--role', role, '--workers', '1'],
      {
        DATA_DIR: dir,
        ADPLANE_DEMO: '0',
        ADPLANE_WEB_DIST: join(dir, 'none'),
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        CLICKHOUSE_URL: `${new URL(clickhouseUrl).origin}/${own}`,
        ADPLANE_STATS_FLUSH_SECONDS: String(FLUSH_S),
        MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
      },
      { cwd: ROOT, workers: 1 },
    );
    // pino's lines are read (else the pipe fills and the process blocks); warnings and errors are shown
    node.proc.stdout!.on('data', (chunk: Buffer) => {
      if (/"level":[56]\d/.test(chunk.toString())) process.stderr.write(chunk);
    });
    cleanups.push(() => node.stop());
    return node;
  };
  say('starting one api and three edge processes...');
  const api = await start('api', dirs[0]!);
  const edges = await Promise.all(dirs.slice(1).map((dir) => start('edge', dir)));
  const ports = edges.map((e) => e.port);

  // the campaigns, written through the api process as the console writes them
  const login = await callProgram(api.port, '/api/auth/login', {
    method: 'POST',
    body: { username: 'demand', password: DEMO_PASSWORD },
  });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${login.body}`);
  const cookie = login.cookie!;
  const create = async (kind: string, body: Record<string, unknown>) => {
    const res = await callProgram(api.port, `/api/demand/${kind}`, { method: 'POST', cookie, body });
    if (res.status !== 201) throw new Error(`${kind}: ${res.status} ${res.body}`);
    return JSON.parse(res.body) as { id: number; uid: string };
  };
  const creative = (name: string) =>
    create('creatives', {
      name,
      format: 'video',
      videoSource: 'media',
      approval: 'approved',
      clickUrl: 'https://brand.example.com/',
      mediaFiles: [
        {
          url: `https://cdn.example.com/deploy-${name}.mp4`,
          mime: 'video/mp4',
          duration: 15,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });
  const usOnly = await create('targetings', {
    name: 'US only',
    rules: { countries: { mode: 'include', values: ['US'] } },
  });
  const budgeted = [];
  for (const [i, b] of BUDGETS.entries()) {
    const spot = await creative(`b${i}`);
    const campaign = await create('campaigns', {
      name: `Budget ${i}`,
      startDate: day(-1),
      endDate: day(30),
      bidCpm: b.bidCpm,
      channelScope: 'all',
      dailyBudget: (b.imps * b.bidCpm) / 1000,
      pacing: 'asap',
      frequencyCap: { count: CAP, periodHours: 24 },
      targetingId: usOnly.id,
      creativeIds: [spot.id],
    });
    budgeted.push({ ...b, key: `b${i}`, id: campaign.id });
  }
  const fillerSpot = await creative('filler');
  const filler = await create('campaigns', {
    name: 'Filler',
    startDate: day(-1),
    endDate: day(30),
    bidCpm: FILLER_CPM,
    channelScope: 'all',
    pacing: 'asap',
    frequencyCap: { count: CAP, periodHours: 24 },
    creativeIds: [fillerSpot.id],
  });
  const channel = (
    await create('channels', {
      name: 'Deployment CTV',
      vastVersion: '4.2',
      demandMode: 'auction',
      timeoutMs: 1000,
      demand: [],
    })
  ).uid;
  const ids = [...budgeted.map((b) => b.id), filler.id];

  // every edge serves them (the change reached it over Redis) before the load starts
  for (const port of ports)
    for (let i = 0; ; i++) {
      const res = await get(new Agent(), port, `/vast/${channel}?w=640&h=360&ip=${GB}&device_id=warm${i}`);
      if (res.body.includes('deploy-filler.mp4')) break;
      if (i > 300) throw new Error(`the edge on ${port} did not serve the campaigns within 30 s`);
      await sleep(100);
    }

  /** Impressions the api's report counts for the run's campaigns, by campaign id and in all. */
  const reported = async () => {
    const res = await callProgram(api.port, '/api/rrun', {
      method: 'POST',
      cookie,
      body: {
        startDate: day(-1),
        endDate: day(1),
        dimensions: ['campaign'],
        metrics: ['imps'],
        filters: { campaign: ids },
      },
    });
    if (res.status !== 200) throw new Error(`report: ${res.status} ${res.body}`);
    const rows = JSON.parse(res.body) as Record<string, unknown>[];
    const byId = new Map(rows.filter((r) => !r.total).map((r) => [Number(r.campaign), Number(r.imps)]));
    return { byId, total: Number(rows.find((r) => r.total)?.imps ?? 0) };
  };
  /** The report once it shows `expected` impressions, or its last reading after `ms` (no change for 4 s ends it sooner). */
  const reportedOnce = async (expected: number, ms = 20_000) => {
    let last = await reported();
    let changedAt = Date.now();
    for (const until = Date.now() + ms; last.total !== expected && Date.now() < until; ) {
      await sleep(250);
      const now = await reported();
      if (now.total !== last.total) changedAt = Date.now();
      else if (Date.now() - changedAt > 4_000) break;
      last = now;
    }
    return last;
  };

  // the load: players with their beacons on the US channel, the load generator on GB beside them
  say(`load for ${SECONDS} s on ${EDGES} edges...`);
  const dead = new Set<number>();
  const phase = players({ ports, channel, viewerPrefix: 'v', seed: 7, dead });
  const gbPaths = Array.from({ length: 500 }, (_, i) => `/vast/${channel}?w=640&h=360&ip=${GB}&device_id=g${i}`);
  const generated: LoadResult[] = await Promise.all(
    ports.map((port) => runLoad({ port, paths: gbPaths, connections: 4, depth: 4, durationMs: SECONDS * 1000 })),
  );
  const played = await phase.stop();
  const answered = phase.beacons.length;
  const afterLoad = await reportedOnce(answered);

  // the budgets: the shared spend (Redis, read by the api as the console's pacing) and the impressions reported
  const pacing = await callProgram(api.port, `/api/demand/campaigns/pacing?ids=${ids.join(',')}`, { cookie });
  const spent = new Map(
    (JSON.parse(pacing.body) as { campaigns: CampaignPacing[] }).campaigns.map((c) => [c.campaignId, c.spentToday]),
  );
  const budgets = budgeted.map((b) => {
    const perImp = b.bidCpm / 1000;
    const beacons = phase.beacons.filter((x) => x.campaign === b.key).length;
    const reportedImps = afterLoad.byId.get(b.id) ?? 0;
    const sharedSpend = spent.get(b.id) ?? 0;
    return {
      budgetImps: b.imps,
      beaconsAnswered: beacons,
      reportedImps,
      sharedSpendImps: sharedSpend / perImp,
      overImps: Math.max(0, reportedImps - b.imps, sharedSpend / perImp - b.imps),
      boundImps: EDGES,
      // within the bound of it: the budget was spent, so holding it meant refusing
      spentWhole: reportedImps >= b.imps - EDGES,
    };
  });
  const budgetsHeld = budgets.every((b) => b.overImps <= b.boundImps);
  const views = new Map<string, number>();
  for (const b of phase.beacons)
    views.set(`${b.campaign}:${b.viewer}`, (views.get(`${b.campaign}:${b.viewer}`) ?? 0) + 1);
  const mostViews = Math.max(0, ...views.values());
  const reportsExact = afterLoad.total === answered;
  say(`    beacons answered ${answered}, reported ${afterLoad.total}; budgets ${JSON.stringify(budgets)}`);

  // SIGKILL of one edge under the players' load (new viewers: the first ones have met their caps)
  say('killing one edge under load...');
  const killPhase = players({ ports, channel, viewerPrefix: 'k', seed: 11, dead });
  await sleep(KILL_AFTER_MS);
  const killed = EDGES - 1;
  const killedAt = Date.now();
  dead.add(killed);
  edges[killed]!.proc.kill('SIGKILL');
  await sleep(AFTER_KILL_MS);
  const killPlayed = await killPhase.stop();
  const killAnswered = killPhase.beacons.length;
  const afterKill = await reportedOnce(afterLoad.total + killAnswered);
  const killCounted = afterKill.total - afterLoad.total;
  const killLoss = killAnswered - killCounted;
  const killBound = killPhase.beacons.filter(
    (b) => b.edge === killed && b.at <= killedAt && b.at > killedAt - LOSS_WINDOW_MS,
  ).length;
  say(`    answered ${killAnswered}, counted ${killCounted}: lost ${killLoss}, bound ${killBound}`);

  const generatedRps = generated.reduce((sum, g) => sum + g.rps, 0);
  const result = {
    at: new Date().toISOString(),
    machine: machineFacts(
      loadBefore,
      'a shared 2-core machine running all of it (4 adplane processes, PostgreSQL, Redis, ClickHouse, the load) while other engineers built and tested',
    ),
    seconds: SECONDS,
    edges: EDGES,
    rps: generatedRps + played.rps,
    // each edge's VAST p99 as the load generator measured it (the players' own, VAST and /ev, under load.players)
    p99Ms: generated.map((g) => g.p99Ms),
    budgetsHeld,
    reportsExact,
    killLoss,
    killBound,
    killLossHeld: killLoss >= 0 && killLoss <= killBound,
    load: {
      how: `${PLAYERS} players per edge (VAST, then each fill's /ev to the next edge; keep-alive http.Agent) beside the pipelining load generator (4 connections x 4 in flight per edge, VAST from GB, never rendered); every process unpinned on the 2 cores`,
      players: played,
      generator: generated.map(({ requests, rps, errors, statuses, p50Ms, p99Ms, maxMs }) => ({
        requests,
        rps,
        errors,
        statuses,
        p50Ms,
        p99Ms,
        maxMs,
      })),
    },
    budgets,
    caps: {
      cap: CAP,
      mostViewsOfAViewer: mostViews,
      viewersOverCap: [...views.values()].filter((n) => n > CAP).length,
      viewersServed: views.size,
      bound: CAP + EDGES,
      held: mostViews <= CAP + EDGES,
    },
    reports: { beaconsAnswered: answered, reportedImps: afterLoad.total },
    kill: {
      flushSeconds: FLUSH_S,
      lossWindowMs: LOSS_WINDOW_MS,
      beaconsAnswered: killAnswered,
      counted: killCounted,
      countedTwice: killCounted > killAnswered,
      players: killPlayed,
    },
    runMs: Date.now() - started,
  };
  await stopAll();
  writeResult('deployment', result);
  sayTable({
    load: { rps: result.rps, p99Ms: result.p99Ms.join('/'), beacons: answered },
    budgets: { held: budgetsHeld, over: budgets.map((b) => b.overImps).join('/') },
    caps: { held: result.caps.held, most: mostViews },
    reports: { exact: reportsExact, reported: afterLoad.total },
    kill: { lost: killLoss, bound: killBound, held: result.killLossHeld },
  });
  process.exit(budgetsHeld && reportsExact && result.killLossHeld && result.caps.held ? 0 : 1);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void stopAll().then(() => process.exit(130)));

main().catch(async (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  await stopAll();
  process.exit(1);
});
