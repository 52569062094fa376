/**
 * "A list of 10,000 rows stays quick": list-page latency of the real app over real HTTP.
 *
 *   npx tsx bench/lists.bench.ts            (or: npm run bench)
 *   DATABASE_URL=postgres://... npx tsx bench/lists.bench.ts   (SQLite, then PostgreSQL)
 *
 * For each engine the script fills a fresh store itself (SQLite in a temp folder; PostgreSQL in a
 * throw-away schema): migrations, a bench tenant with 10,000 tags and 10,000 channels calling them
 * (batched inserts through the repository, every document parsed by its zod schema) and a second
 * tenant with 2,000 of each, so that tenant scoping is part of every query. It then forks itself to
 * run the app over that store on 127.0.0.1:<free port>, signs in over HTTP and drives each case with
 * Node's fetch: a warm-up, then up to 200 requests at concurrency 4, bounded in time, every answer
 * checked. Memory (RSS) and CPU time are sampled in the server process, so neither the fill nor the
 * load generator is counted. BENCH_REQUESTS and BENCH_CONCURRENCY change the load.
 *
 * Results go to bench/results/lists-<engine>.json and a table on stdout. Not part of `npm test`:
 * timings belong here, never in assertions (see docs/performance.md for targets).
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { ChannelInput, RESOURCES, TagInput } from '@adplane/shared';
import { buildApp } from '../packages/server/src/app.js';
import { loadSettings } from '../packages/server/src/settings.js';
import { type Dialect, dropPgSchema, openStore, type Store } from '../packages/server/src/store/db.js';
import { type EntityWrite, insertEntities, setEntityArchived } from '../packages/server/src/store/entities.js';
import { type EntityKind } from '../packages/server/src/store/entityTables.js';
import { migrateToLatest } from '../packages/server/src/store/migrations/index.js';
import { seedIfEmpty } from '../packages/server/src/store/seed.js';

const ROWS = 10_000;
const OTHER_TENANT_ROWS = 2_000;
const ARCHIVED_SHARE = 0.05;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const WARMUP = 20;
const CASE_TIME_LIMIT_MS = 30_000;
/** Targets of docs/performance.md (10,000 rows, concurrency 4); a miss makes the exit code 1. */
const TARGETS = { pageP95Ms: 50, listP95Ms: 500, namesP95Ms: 100, peakRssMb: 512 };
const kindOf = (id: string): 'page' | 'list' | 'names' =>
  id.endsWith('names.list') ? 'names' : id.endsWith('.list') ? 'list' : 'page';

const out = (line = '') => process.stdout.write(`${line}\n`);
const here = dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------------
// Child: the server, over a store filled with 10,000 rows of each kind.

interface Ready {
  type: 'ready';
  port: number;
}
interface Memory {
  type: 'memory';
  rssMb: number;
  peakRssMb: number;
  heapUsedMb: number;
  /** CPU time the server process has used so far (user + system), in ms. */
  cpuMs: number;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const PUBLISHERS = [
  'Harbor Video',
  'Lakeside Streaming',
  'Pinecrest Sports',
  'Granite News',
  'Summit TV',
  'Bayview Kids',
  'Redwood Music',
  'Atlas Weather',
  'Meridian Docs',
  'Crescent Auto Network',
  'Tidewater Cooking',
  'Northwind O&O',
];
const PLACEMENTS: {
  name: string;
  environment: 'ctv' | 'app' | 'web';
  format: 'video' | 'display';
  integration: 'VAST' | 'RTB' | 'PreBid';
}[] = [
  { name: 'Roku CTV preroll', environment: 'ctv', format: 'video', integration: 'VAST' },
  { name: 'Fire TV midroll', environment: 'ctv', format: 'video', integration: 'VAST' },
  { name: 'Samsung Tizen FAST', environment: 'ctv', format: 'video', integration: 'RTB' },
  { name: 'iOS app preroll', environment: 'app', format: 'video', integration: 'RTB' },
  { name: 'Android app interstitial', environment: 'app', format: 'display', integration: 'RTB' },
  { name: 'web outstream', environment: 'web', format: 'video', integration: 'PreBid' },
  { name: 'web instream', environment: 'web', format: 'video', integration: 'VAST' },
  { name: 'web display 300x250', environment: 'web', format: 'display', integration: 'PreBid' },
];
const DEMAND = ['Beacon DSP', 'Crestline Exchange', 'Meridian Ad Exchange', 'Tidewater RTB', 'AppNexus', 'PubMatic'];
const GEOS = ['US', 'CA', 'UK', 'DE', 'FR', 'LATAM', 'APAC'];

/** A generator the same on every run, so that both engines see the same rows. */
function seededRandom(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The write of a parsed body, as entityService prepares it: name and status are columns, the rest is the document. */
function toWrite(kind: EntityKind, value: Record<string, unknown>): EntityWrite {
  const def = RESOURCES[kind];
  const { name, status, ...data } = value;
  const refs = def.refs.flatMap((ref) =>
    [...new Set(ref.ids(value))].map((id) => ({ field: ref.field, kind: ref.kind, id })),
  );
  const assigned = (field: string | undefined) =>
    field && typeof value[field] === 'number' ? (value[field] as number) : null;
  return {
    name: String(name),
    status: status === 0 ? 0 : 1,
    subId: assigned(def.assignedTo?.sub),
    advId: assigned(def.assignedTo?.adv),
    data,
    refs,
  };
}

function tagBody(i: number, rnd: () => number): Record<string, unknown> {
  const demand = DEMAND[i % DEMAND.length];
  const geo = GEOS[Math.floor(rnd() * GEOS.length)];
  const base = {
    name: `${demand} - ${geo} ${i % 3 === 0 ? 'CTV' : i % 3 === 1 ? 'in-app' : 'web'} - ${String(i).padStart(5, '0')}`,
    status: rnd() < 0.8 ? 1 : 0,
  };
  const money = {
    floorCpm: Math.round(rnd() * 12) * 250_000,
    timeoutMs: 300 + Math.floor(rnd() * 12) * 100,
    priority: 1 + Math.floor(rnd() * 10),
  };
  if (demand === 'AppNexus')
    return {
      ...base,
      ...money,
      integration: 'PreBid',
      partner: 'appnexusP',
      partnerParams: { placement_id: 20_000_000 + i },
      price: { type: 'revshare', percent: 90 },
    };
  if (demand === 'PubMatic')
    return {
      ...base,
      ...money,
      integration: 'PreBid',
      partner: 'pubmaticP',
      partnerParams: { publisherId: '161243', adSlot: `slot_${i}@640x480` },
      price: { type: 'revshare', percent: 88 },
    };
  if (i % 2 === 0)
    return {
      ...base,
      ...money,
      integration: 'RTB',
      endpoint: `https://bid.${demand.split(' ')[0].toLowerCase()}.test/openrtb2?sid=${i}`,
      price: { type: 'revshare', percent: 80 },
    };
  return {
    ...base,
    ...money,
    integration: 'VAST',
    vastUrl: `https://vast.${demand.split(' ')[0].toLowerCase()}.test/v4?sid=${i}&w={{width}}&h={{height}}&cb={{cachebuster}}`,
    price: { type: 'cpm', cpm: Math.round(rnd() * 20) * 500_000 },
  };
}

function channelBody(i: number, rnd: () => number, tagIds: number[]): Record<string, unknown> {
  const publisher = PUBLISHERS[i % PUBLISHERS.length];
  const p = PLACEMENTS[Math.floor(rnd() * PLACEMENTS.length)];
  const first = tagIds[Math.floor(rnd() * tagIds.length)];
  const second = tagIds[Math.floor(rnd() * tagIds.length)];
  return {
    name: `${publisher} - ${p.name} (${p.integration}) ${String(i).padStart(5, '0')}`,
    status: rnd() < 0.8 ? 1 : 0,
    integration: p.integration,
    environment: p.environment,
    format: p.format,
    domain: `${publisher.toLowerCase().replace(/[^a-z]+/g, '')}.test`,
    floorCpm: Math.round(rnd() * 40) * 250_000,
    payout:
      rnd() < 0.7
        ? { type: 'revshare', value: 50 + Math.floor(rnd() * 30) }
        : { type: 'cpm', value: Math.round(rnd() * 20) * 250_000 },
    demandMode: rnd() < 0.5 ? 'priority' : 'auction',
    demand:
      first === second
        ? [{ tagId: first, priority: 1 }]
        : [
            { tagId: first, priority: 1 },
            { tagId: second, priority: 2 },
          ],
  };
}

/** `count` tags, then `count` channels calling them, for one tenant; 5% of each archived. */
async function fillTenant(store: Store, tenantId: number, userId: number, count: number, seed: number): Promise<void> {
  const rnd = seededRandom(seed);
  await store.db.transaction().execute(async (trx) => {
    const tags = Array.from({ length: count }, (_, i) =>
      toWrite('tags', TagInput.parse(tagBody(i + 1, rnd)) as Record<string, unknown>),
    );
    const tagIds = await insertEntities(trx, 'tags', tenantId, tags, { uid: true, userId });
    const channels = Array.from({ length: count }, (_, i) =>
      toWrite('channels', ChannelInput.parse(channelBody(i + 1, rnd, tagIds)) as Record<string, unknown>),
    );
    const channelIds = await insertEntities(trx, 'channels', tenantId, channels, { uid: true, userId });
    const step = Math.round(1 / ARCHIVED_SHARE);
    for (let i = 0; i < count; i += step) {
      await setEntityArchived(trx, 'channels', channelIds[i], true, userId);
      await setEntityArchived(trx, 'tags', tagIds[i], true, userId);
    }
  });
}

/** Where a filled store lives: the parent fills it, the server child opens it. */
interface BenchStore {
  engine: Dialect;
  dataDir: string;
  /** PostgreSQL only: the throw-away schema. */
  pgSchema: string;
  databaseUrl: string;
}

const settingsOf = (b: BenchStore) =>
  loadSettings({
    LOG_LEVEL: 'warn',
    DATA_DIR: b.dataDir,
    DATABASE_URL: b.databaseUrl,
    ADPLANE_WEB_DIST: join(b.dataDir, 'no-console'),
  });
const open = (b: BenchStore) => openStore(settingsOf(b), b.databaseUrl ? { pgSchema: b.pgSchema } : {});

/** A fresh store with the bench tenant (10,000 of each) and a neighbour tenant; returns the sign-in. */
async function fill(b: BenchStore): Promise<{ username: string; password: string; fillMs: number }> {
  const store = await open(b);
  try {
    await migrateToLatest(store);
    const password = randomBytes(12).toString('base64url');
    const { users } = await seedIfEmpty(store, { demo: false, demoPassword: password, adminPassword: password }, [
      async (ctx) => {
        await ctx.addUser(
          { type: 'demand', username: 'bench', name: 'Bench Media', uid: 'bench1', showDsp: true },
          password,
        );
        await ctx.addUser({ type: 'demand', username: 'neighbour', name: 'Neighbour Video', uid: 'bench2' }, password);
      },
    ]);
    const bench = users.find((u) => u.username === 'bench')!;
    const neighbour = users.find((u) => u.username === 'neighbour')!;
    const started = performance.now();
    await fillTenant(store, neighbour.id, neighbour.id, OTHER_TENANT_ROWS, 7);
    await fillTenant(store, bench.id, bench.id, ROWS, 42);
    const fillMs = Math.round(performance.now() - started);
    // A settled table, as autovacuum leaves it on a live PostgreSQL after such an import (statistics,
    // visibility map for index-only scans). SQLite gets its planner statistics the same way.
    await (store.dialect === 'postgres' ? sql`vacuum analyze` : sql`analyze`).execute(store.db);
    return { username: bench.username, password, fillMs };
  } finally {
    await store.close();
  }
}

async function removeStore(b: BenchStore): Promise<void> {
  if (b.engine === 'postgres') await dropPgSchema(b.databaseUrl, b.pgSchema);
  rmSync(b.dataDir, { recursive: true, force: true });
}

/** The child: the real app over the filled store, on 127.0.0.1 and a free port, until told to stop. */
async function serve(): Promise<void> {
  const b = JSON.parse(process.env.BENCH_STORE ?? '') as BenchStore;
  const settings = settingsOf(b);
  const store = await open(b);
  const app = await buildApp({ settings, store });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  process.on('message', (message: { type: string }) => {
    if (message.type === 'memory') {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.rss);
      const cpu = process.cpuUsage();
      process.send!({
        type: 'memory',
        rssMb: mb(m.rss),
        peakRssMb: mb(peak),
        heapUsedMb: mb(m.heapUsed),
        cpuMs: (cpu.user + cpu.system) / 1000,
      } satisfies Memory);
    }
    if (message.type === 'stop') {
      clearInterval(sampler);
      void app
        .close()
        .then(() => store.close())
        .then(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', port } satisfies Ready);
}

// ---------------------------------------------------------------------------------------------------
// Parent: the load, the numbers, the report.

interface Case {
  id: string;
  label: string;
  path: string;
  /** What a correct answer looks like; a wrong answer counts as an error. */
  check: (body: unknown) => boolean;
}

interface CaseResult {
  id: string;
  label: string;
  path: string;
  requests: number;
  errors: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  reqPerSec: number;
  responseKb: number;
  /** Server CPU time per request (the Node process; PostgreSQL's own work is not in it). */
  serverCpuMsPerReq: number;
  serverRssMb: number;
}

const isPage = (size: number) => (b: unknown) => {
  const p = b as { items?: unknown[]; total?: number };
  return Array.isArray(p.items) && p.items.length === size && typeof p.total === 'number';
};
const isSortedBy = (field: string, order: 'asc' | 'desc') => (b: unknown) => {
  const items = (b as { items?: Record<string, number>[] }).items ?? [];
  return (
    items.length === 20 &&
    items.every(
      (r, i) => i === 0 || (order === 'desc' ? items[i - 1][field] >= r[field] : items[i - 1][field] <= r[field]),
    )
  );
};

function cases(): Case[] {
  const ch = RESOURCES.channels.api;
  const tg = RESOURCES.tags.api;
  const active = ROWS - Math.ceil(ROWS * ARCHIVED_SHARE);
  return [
    {
      id: 'channels.page1.default',
      label: 'channels: page 1, newest first',
      path: `${ch}?page=1&pageSize=20`,
      check: isPage(20),
    },
    {
      id: 'channels.page1.name',
      label: 'channels: page 1 by name',
      path: `${ch}?page=1&pageSize=20&sort=name&order=asc`,
      check: isPage(20),
    },
    {
      id: 'channels.page250.name',
      label: 'channels: page 250 by name',
      path: `${ch}?page=250&pageSize=20&sort=name&order=asc`,
      check: isPage(20),
    },
    {
      id: 'channels.search',
      label: "channels: search 'roku'",
      path: `${ch}?page=1&pageSize=20&sort=name&order=asc&search=roku`,
      check: isPage(20),
    },
    {
      id: 'channels.status',
      label: 'channels: status=paused',
      path: `${ch}?page=1&pageSize=20&status=paused`,
      check: isPage(20),
    },
    {
      id: 'channels.sort.floorCpm',
      label: 'channels: sort by floorCpm',
      path: `${ch}?page=1&pageSize=20&sort=floorCpm&order=desc`,
      check: isSortedBy('floorCpm', 'desc'),
    },
    {
      id: 'channels.page1.size100',
      label: 'channels: 100 rows by updatedAt',
      path: `${ch}?page=1&pageSize=100&sort=updatedAt&order=desc`,
      check: isPage(100),
    },
    {
      id: 'channels.list',
      label: 'channels: /list (all rows)',
      path: `${ch}/list`,
      check: (b) =>
        Array.isArray(b) && b.length === ROWS && b.filter((r: { archived: boolean }) => !r.archived).length === active,
    },
    {
      id: 'tags.page1.name',
      label: 'tags: page 1 by name',
      path: `${tg}?page=1&pageSize=20&sort=name&order=asc`,
      check: isPage(20),
    },
    {
      id: 'tags.page250.name',
      label: 'tags: page 250 by name',
      path: `${tg}?page=250&pageSize=20&sort=name&order=asc`,
      check: isPage(20),
    },
    {
      id: 'tags.search',
      label: "tags: search 'pubmatic'",
      path: `${tg}?page=1&pageSize=20&sort=name&order=asc&search=pubmatic`,
      check: isPage(20),
    },
    {
      id: 'tags.sort.priority',
      label: 'tags: sort by priority',
      path: `${tg}?page=1&pageSize=20&sort=priority&order=asc`,
      check: isSortedBy('priority', 'asc'),
    },
    {
      id: 'tags.list',
      label: 'tags: /list (all rows)',
      path: `${tg}/list`,
      check: (b) => Array.isArray(b) && b.length === ROWS,
    },
    {
      id: 'tags.tagnames.list',
      label: 'tags: /tagnames/list (names)',
      path: '/api/demand/tagnames/list',
      check: (b) => Array.isArray(b) && b.length === ROWS,
    },
  ];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}
const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

class Server {
  private pending = new Map<string, (m: Memory) => void>();
  constructor(private readonly child: ReturnType<typeof fork>) {
    child.on('message', (m: { type: string }) => {
      if (m.type === 'memory') this.pending.get('memory')?.(m as Memory);
    });
  }
  memory(): Promise<Memory> {
    return new Promise((resolve) => {
      this.pending.set('memory', resolve);
      this.child.send({ type: 'memory' });
    });
  }
  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.send({ type: 'stop' });
    });
  }
}

async function start(b: BenchStore): Promise<{ server: Server; port: number }> {
  const env = { ...process.env, BENCH_STORE: JSON.stringify(b) };
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    env,
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.on('message', (m: { type: string }) => m.type === 'ready' && resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`bench server exited with code ${code} before it was ready`)));
  });
  return { server: new Server(child), port: ready.port };
}

async function signIn(base: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('adplane_sid='));
  if (response.status !== 200 || !cookie)
    throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return cookie.split(';')[0];
}

async function runCase(base: string, cookie: string, c: Case, server: Server): Promise<CaseResult> {
  const call = async () => {
    const t0 = performance.now();
    const response = await fetch(`${base}${c.path}`, { headers: { cookie, accept: 'application/json' } });
    const text = await response.text();
    const ms = performance.now() - t0;
    let ok = response.status === 200;
    if (ok) {
      try {
        ok = c.check(JSON.parse(text));
      } catch {
        ok = false;
      }
    }
    return { ms, ok, bytes: text.length };
  };
  for (let i = 0; i < WARMUP; i++) await call();

  const before = await server.memory();
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  let issued = 0;
  const started = performance.now();
  const deadline = started + CASE_TIME_LIMIT_MS;
  const worker = async () => {
    while (issued < REQUESTS && performance.now() < deadline) {
      issued++;
      const r = await call();
      latencies.push(r.ms);
      bytes = r.bytes;
      if (!r.ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const wallMs = performance.now() - started;
  const sorted = [...latencies].sort((a, b) => a - b);
  const memory = await server.memory();
  return {
    id: c.id,
    label: c.label,
    path: c.path,
    requests: latencies.length,
    errors,
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
    p99Ms: round(percentile(sorted, 99)),
    meanMs: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
    maxMs: round(sorted[sorted.length - 1] ?? 0),
    reqPerSec: round((latencies.length / wallMs) * 1000, 0),
    responseKb: round(bytes / 1024),
    serverCpuMsPerReq: round((memory.cpuMs - before.cpuMs) / Math.max(1, latencies.length), 2),
    serverRssMb: memory.rssMb,
  };
}

function table(results: CaseResult[]): string[] {
  const header = ['case', 'p50 ms', 'p95 ms', 'p99 ms', 'req/s', 'CPU ms/req', 'KB', 'RSS MB', 'errors'];
  const rows = results.map((r) =>
    [r.label, r.p50Ms, r.p95Ms, r.p99Ms, r.reqPerSec, r.serverCpuMsPerReq, r.responseKb, r.serverRssMb, r.errors].map(
      String,
    ),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

async function benchEngine(engine: 'sqlite' | 'postgres'): Promise<boolean> {
  out(
    `\n== ${engine}: filling the store (${ROWS.toLocaleString('en-US')} channels and tags for one tenant, ${OTHER_TENANT_ROWS.toLocaleString('en-US')} of each for another) ...`,
  );
  const b: BenchStore = {
    engine,
    dataDir: mkdtempSync(join(tmpdir(), 'adplane-bench-')),
    pgSchema: `adplane_bench_${process.pid}_${randomBytes(3).toString('hex')}`,
    databaseUrl: engine === 'postgres' ? (process.env.DATABASE_URL ?? '') : '',
  };
  try {
    const { username, password, fillMs } = await fill(b);
    return await measure(engine, b, username, password, fillMs);
  } finally {
    await removeStore(b);
  }
}

async function measure(
  engine: 'sqlite' | 'postgres',
  b: BenchStore,
  username: string,
  password: string,
  fillMs: number,
): Promise<boolean> {
  const loadBefore = loadavg().map((v) => round(v, 2));
  if (loadBefore[0] > cpus().length * 0.5)
    out(
      `   warning: load average ${loadBefore.join(' ')} on ${cpus().length} CPUs: other work competes with the benchmark`,
    );
  const { server, port } = await start(b);
  try {
    const base = `http://127.0.0.1:${port}`;
    const idle = await server.memory();
    out(
      `   filled in ${fillMs} ms; server started, RSS ${idle.rssMb} MB; ${REQUESTS} requests per case at concurrency ${CONCURRENCY}`,
    );
    const cookie = await signIn(base, username, password);
    const results: CaseResult[] = [];
    for (const c of cases()) results.push(await runCase(base, cookie, c, server));
    const memory = await server.memory();
    out('');
    for (const line of table(results)) out(line);
    const limit = { page: TARGETS.pageP95Ms, list: TARGETS.listP95Ms, names: TARGETS.namesP95Ms };
    const missed = results
      .filter((r) => r.errors > 0 || r.p95Ms >= limit[kindOf(r.id)])
      .map((r) => `${r.label} (p95 ${r.p95Ms} ms, ${r.errors} errors)`);
    if (memory.peakRssMb >= TARGETS.peakRssMb) missed.push(`peak RSS ${memory.peakRssMb} MB`);
    const pass = missed.length === 0;
    const worstPage = results.filter((r) => kindOf(r.id) === 'page').reduce((a, b) => (b.p95Ms > a.p95Ms ? b : a));
    out(
      `\n   server RSS idle ${idle.rssMb} MB, after the run ${memory.rssMb} MB, peak ${memory.peakRssMb} MB (heap used ${memory.heapUsedMb} MB)`,
    );
    out(
      `   targets: list pages p95 < ${TARGETS.pageP95Ms} ms (worst: ${worstPage.label}, ${worstPage.p95Ms} ms), /list p95 < ${TARGETS.listP95Ms} ms, name lists p95 < ${TARGETS.namesP95Ms} ms, peak RSS < ${TARGETS.peakRssMb} MB`,
    );
    out(`   -> ${pass ? 'all met' : `MISSED: ${missed.join('; ')}`}`);

    const report = {
      benchmark: 'lists',
      engine,
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        memoryGb: round(totalmem() / 1024 ** 3),
        freeMemoryGb: round(freemem() / 1024 ** 3),
        os: `${platform()} ${release()}`,
        node: process.version,
        loadAverageBefore: loadBefore,
        loadAverageAfter: loadavg().map((v) => round(v, 2)),
      },
      settings: {
        requestsPerCase: REQUESTS,
        concurrency: CONCURRENCY,
        warmup: WARMUP,
        caseTimeLimitMs: CASE_TIME_LIMIT_MS,
        archivedShare: ARCHIVED_SHARE,
      },
      rows: {
        tenantChannels: ROWS,
        tenantTags: ROWS,
        otherTenantChannels: OTHER_TENANT_ROWS,
        otherTenantTags: OTHER_TENANT_ROWS,
      },
      fillMs,
      memory: {
        idleRssMb: idle.rssMb,
        finalRssMb: memory.rssMb,
        peakRssMb: memory.peakRssMb,
        heapUsedMb: memory.heapUsedMb,
      },
      targets: { ...TARGETS, met: pass, missed },
      cases: results,
    };
    const dir = join(here, 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `lists-${engine}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    out(`   written to ${file}`);
    return pass;
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const engines: ('sqlite' | 'postgres')[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  out(
    `adplane list benchmark: ${cpus().length} CPU(s), Node ${process.version}${process.env.DATABASE_URL ? '' : ' (set DATABASE_URL to also run PostgreSQL)'}`,
  );
  let allMet = true;
  for (const engine of engines) allMet = (await benchEngine(engine)) && allMet;
  if (!allMet) process.exitCode = 1;
}

if (process.argv.includes('--serve')) {
  serve().catch((error: unknown) => {
    process.stderr.write(
      `bench server failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
} else {
  main().catch((error: unknown) => {
    process.stderr.write(
      `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
