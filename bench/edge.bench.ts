/**
 * The edge under load (the speed targets of docs/performance.md), in one run, beside a bare node:http server:
 *
 *   npx tsx bench/edge.bench.ts          (or: npm run bench:edge)
 *
 * Fills a fresh SQLite store with 10,000 channels, 20,000 demand tags and 100,000 campaigns over
 * 100 tenants (through the repository, every document parsed by its schema), starts the real app in
 * a child pinned to CPU 0 and drives it from this process pinned to CPU 1 with a pipelining
 * raw-socket client (bench/edge/loadClient.ts). Measures: R (the bare server), VAST filled from our
 * campaigns (throughput), tracking events, a channel calling 5 VAST demand tags that answer in 20 ms
 * (p99 added), the tail (VAST, OpenRTB bid requests and tracking events each paced where the server's
 * core is at most half busy, for BENCH_TAIL_SECONDS, beside the bare server paced alike, while the
 * counters flush and a campaign edited through the API is rebuilt into the snapshot), the snapshot
 * rebuild and the resident memory. Results: bench/results/edge.json and a table on stdout (see
 * docs/performance.md). `BENCH_CASES=tail,memory` runs some cases (floor, vast, events, tags, tail,
 * memory) and replaces only their fields in the file; `BENCH_ONLY=<case>` runs one case alone for a
 * profile and writes nothing; `BENCH_STALLS=1` has the server time each event-loop stall and what
 * ran during it (bench/edge/serverWatch.ts), reported in the tail's windows. `BENCH_FEATURES=1` fills
 * the store with the yield features on (FEATURES below) and writes bench/results/edge-features.json.
 */
import { writeHeapSnapshot } from 'node:v8';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { sql } from 'kysely';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CampaignInput,
  ChannelInput,
  CreativeInput,
  iplistsKind,
  SupplierInput,
  supplydealsKind,
  TagInput,
  TargetingInput,
} from '@adplane/shared';
import { buildApp } from '../packages/server/src/app.js';
import type {} from '../packages/server/src/edge/doors/edge.js';
import { tuneHeap } from '../packages/server/src/ops/heapTuning.js';
import { keepServingThreadFirst } from '../packages/server/src/ops/threadPriority.js';
import { loadSettings } from '../packages/server/src/settings.js';
import { openStore } from '../packages/server/src/store/db.js';
import { insertEntities } from '../packages/server/src/store/entities.js';
import { ENTITY_TABLES, type EntityKind } from '../packages/server/src/store/entityTables.js';
import { migrateToLatest } from '../packages/server/src/store/migrations/index.js';
import { seedIfEmpty } from '../packages/server/src/store/seed.js';
import {
  ask,
  child,
  measured,
  serverChild,
  pin,
  rnd,
  rssMb,
  say,
  sayTable,
  startHeapSampling,
  toWrite,
} from './edge/harness.js';
import { OWN_CORE_V8_FLAGS } from '../packages/server/src/cluster/workerFlags.js';
import { addedOverHolds, jsonPost, runLoad } from './edge/loadClient.js';
import { type WindowReport, watchServer } from './edge/serverWatch.js';
import { bidRequest } from './edge/bidRequest.js';
import { cpuSeconds } from './workers/servers.js';

const TENANTS = Number(process.env.BENCH_TENANTS ?? 100);
const CHANNELS = 100;
const TAGS = 200;
const CAMPAIGNS = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
/**
 * The demand-tag case warms up longer than the others (not measured): the first seconds of calls
 * open the connections to the demand partner and run the fetch and parse code cold (not yet
 * optimised by V8), a backlog the target (added latency at p99, steady state) is not about.
 */
const TAGS_WARMUP_MS = Number(process.env.BENCH_TAGS_WARMUP_S ?? 5) * 1000;
const here = dirname(fileURLToPath(import.meta.url));
/** Every bench user's password (tenant<n>). */
const BENCH_PASSWORD = 'bench-password-1';
/** The edge's cheapest answer: /ev naming no event (a 400 with its reason, before any token work). */
const FLOOR_PATH = '/ev?e=none';

const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
/**
 * BENCH_FEATURES=1: the yield features on in every tenant, for the bench of their cost: a quarter of
 * the channels each with floor rules, an A/B split and an optimised order; a supply deal over ten
 * channels; targetings by an IP list and by key-values; a fifth of the campaigns assigned to
 * channels (half only these, half all but these).
 */
const FEATURES = process.env.BENCH_FEATURES === '1';
const FEATURE_TARGETS = (ipList: number) => [
  { ipLists: { mode: 'exclude', ids: [ipList] }, countries: { mode: 'include', values: ['US'] } },
  { keyValues: { mode: 'exclude', values: ['genre=news'] } },
];
/** A channel's yield settings under BENCH_FEATURES, by its place `i` in the tenant. */
function channelFeatures(i: number, demand: { tagId: number; priority: number }[]): Record<string, unknown> {
  if (!FEATURES) return {};
  if (i % 4 === 0)
    return {
      floorMode: 'rules',
      floorRules: {
        schema: { fields: ['country', 'deviceType'] },
        values: { 'US|desktop': 2.5, 'US|*': 1.5, '*|mobile': 1 },
        default: 0.5,
      },
    };
  if (i % 4 === 1) return { split: { percent: 20, demand, demandMode: 'priority' } };
  if (i % 4 === 2) return { optimise: {} };
  return {};
}
const TARGETS = [
  { countries: { mode: 'include', values: ['US'] } },
  {
    countries: { mode: 'include', values: ['US', 'CA'] },
    devices: { mode: 'include', values: ['desktop', 'smarttv'] },
  },
  { countries: { mode: 'include', values: ['GB', 'DE', 'FR'] } },
  { countries: { mode: 'exclude', values: ['CN', 'RU'] }, playerSizes: ['large', 'xlarge'] },
  { devices: { mode: 'include', values: ['mobile'] } },
  { os: { mode: 'include', values: ['windows', 'macos'] } },
  {},
];

/** Inserts one kind's rows for the tenant being filled (each body parsed by the kind's schema); answers their ids. */
export type Insert = (
  kind: EntityKind,
  bodies: Record<string, unknown>[],
  schema: { parse(v: unknown): unknown },
) => Promise<number[]>;
/** Uids of rows just inserted. */
export type Uids = (kind: EntityKind, ids: number[]) => Promise<string[]>;

/** More rows for another benchmark: per campaign tenant, and one more tenant after them all. */
export interface FillHooks {
  perTenant?: (insert: Insert, uids: Uids, t: number) => Promise<void>;
  extraTenant?: (insert: Insert, uids: Uids) => Promise<void>;
}

/** A fill hook adding a video and display supplier to each tenant, its uid pushed to `into` (bid requests come in through /rtb/bid/<supplier>). */
export function supplierPerTenant(into: string[]): NonNullable<FillHooks['perTenant']> {
  return async (insert, uids) => {
    const [id] = await insert(
      'sups',
      [{ name: 'Bench supplier', formats: ['video', 'display'], marginPercent: 20 }],
      SupplierInput,
    );
    into.push(...(await uids('sups', [id!])));
  };
}

export async function fill(
  dataDir: string,
  demandUrl: string,
  hooks: FillHooks = {},
): Promise<{
  channelUids: string[];
  tagChannelUid: string;
  fillMs: number;
  /** The first campaign of tenant 0 (its owner signs in as `tenant0` with BENCH_PASSWORD) and the body it was made with. */
  editable: { id: number; body: Record<string, unknown> };
}> {
  const settings = loadSettings({
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    ADPLANE_DEMO: '0',
    ADPLANE_WEB_DIST: join(dataDir, 'none'),
    ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
  });
  const store = await openStore(settings);
  const started = performance.now();
  await migrateToLatest(store);
  const password = BENCH_PASSWORD;
  const { users } = await seedIfEmpty(store, { demo: false, demoPassword: password, adminPassword: password }, [
    async (ctx) => {
      for (let t = 0; t <= TENANTS + (hooks.extraTenant ? 1 : 0); t++)
        await ctx.addUser(
          { type: 'demand', username: `tenant${t}`, name: `Tenant ${t}`, uid: `t${t}`, showDsp: true },
          password,
        );
    },
  ]);
  const channelUids: string[] = [];
  let tagChannelUid = '';
  const editable: { id: number; body: Record<string, unknown> } = { id: 0, body: {} };
  for (let t = 0; t <= TENANTS + (hooks.extraTenant ? 1 : 0); t++) {
    const tenant = users.find((u) => u.username === `tenant${t}`)!;
    const r = rnd(t + 1);
    await store.db.transaction().execute(async (trx) => {
      const insert: Insert = (kind, bodies, schema) =>
        insertEntities(
          trx,
          kind,
          tenant.id,
          bodies.map((b) => toWrite(kind, schema.parse(b) as Record<string, unknown>)),
          { uid: true, userId: tenant.id },
        );
      const uids: Uids = async (kind, ids) =>
        (
          (await trx
            .selectFrom(ENTITY_TABLES[kind] as never)
            .select(['id', 'uid'] as never)
            .where('id' as never, 'in', ids as never)
            .execute()) as { id: number; uid: string }[]
        )
          .sort((a, b) => ids.indexOf(Number(a.id)) - ids.indexOf(Number(b.id)))
          .map((x) => x.uid);
      if (t === TENANTS + 1) {
        await hooks.extraTenant!(insert, uids);
        return;
      }
      if (t === TENANTS) {
        // the demand-tag tenant: one channel calling 5 VAST tags that answer in 20 ms, no campaigns
        const tags = await insert(
          'tags',
          Array.from({ length: 5 }, (_, i) => ({
            name: `Local demand ${i}`,
            integration: 'VAST',
            vastUrl: `${demandUrl}/inline?price=${3 + i}&delay=20&w={{width}}&rid={{device_id}}`,
            price: { type: 'revshare', percent: 80 },
            timeoutMs: 500,
          })),
          TagInput,
        );
        const [id] = await insert(
          'channels',
          [
            {
              name: 'Five demand tags',
              demandMode: 'auction',
              timeoutMs: 500,
              demand: tags.map((tagId) => ({ tagId, priority: 1 })),
            },
          ],
          ChannelInput,
        );
        tagChannelUid = (await uids('channels', [id!]))[0]!;
        return;
      }
      const ipList = FEATURES
        ? (
            await insert(
              'iplists',
              [{ name: 'Blocked addresses', items: ['10.0.0.0/8', '192.0.2.1'] }],
              iplistsKind.schema,
            )
          )[0]!
        : 0;
      const targetings = await insert(
        'targetings',
        [...TARGETS, ...(FEATURES ? FEATURE_TARGETS(ipList) : [])].map((rules, i) => ({
          name: `Targeting ${i}`,
          rules,
        })),
        TargetingInput,
      );
      const creatives = await insert(
        'creatives',
        Array.from({ length: 10 }, (_, i) => ({
          name: `Spot ${i}`,
          approval: 'approved',
          clickUrl: 'https://brand.example.com/',
          mediaFiles: [
            {
              url: `https://cdn.bench.test/${t}/${i}.mp4`,
              mime: 'video/mp4',
              duration: 15 + i,
              width: 1280,
              height: 720,
              bitrate: 2000,
            },
          ],
        })),
        CreativeInput,
      );
      // RTB partners behind the campaigns: each channel is a waterfall (our campaigns first, then its
      // two tags), so a filled request never calls out; an unfilled one meets a partner that is down
      // (connection refused at once on the discard port), as the VAST case measures our own campaigns.
      const tags = await insert(
        'tags',
        Array.from({ length: TAGS }, (_, i) => ({
          name: `RTB partner ${i}`,
          integration: 'RTB',
          endpoint: `http://127.0.0.1:9/${t}/${i}`,
          price: { type: 'revshare', percent: 80 },
        })),
        TagInput,
      );
      const channelIds = await insert(
        'channels',
        Array.from({ length: CHANNELS }, (_, i) => {
          const demand = [
            { tagId: tags[(i * 2) % TAGS]!, priority: 1 },
            { tagId: tags[(i * 2 + 1) % TAGS]!, priority: 2 },
          ];
          return { name: `Channel ${t}-${i}`, demandMode: 'priority', demand, ...channelFeatures(i, demand) };
        }),
        ChannelInput,
      );
      if (FEATURES)
        await insert(
          'supplydeals',
          [
            {
              name: `Bench deal ${t}`,
              dealId: `bench-deal-${t}`,
              floorCpm: 2_000_000,
              auctionType: 1,
              channelIds: channelIds.slice(0, 10),
            },
          ],
          supplydealsKind.schema,
        );
      const campaigns = Array.from({ length: CAMPAIGNS }, (_, i) => ({
        name: `Campaign ${t}-${i}`,
        startDate: day(-10),
        endDate: r() < 0.9 ? day(30) : day(-2),
        bidCpm: 1_000_000 + Math.floor(r() * 9) * 1_000_000,
        creativeIds: [creatives[i % creatives.length]],
        targetingId: r() < 0.8 ? targetings[Math.floor(r() * targetings.length)] : null,
        ...(FEATURES && i % 5 === 0
          ? { channelScope: i % 10 === 0 ? 'include' : 'exclude', channelIds: [channelIds[i % channelIds.length]] }
          : { channelScope: 'all' }),
      }));
      const campaignIds = await insert('campaigns', campaigns, CampaignInput);
      if (t === 0) Object.assign(editable, { id: campaignIds[0]!, body: campaigns[0]! });
      channelUids.push(...(await uids('channels', channelIds)));
      await hooks.perTenant?.(insert, uids, t);
    });
  }
  await store.close();
  return { channelUids, tagChannelUid, fillMs: Math.round(performance.now() - started), editable };
}

/** The child: the real app over the filled store. */
async function serve(): Promise<void> {
  // the heap growth the adplane command sets for itself (ops/heapTuning.ts)
  tuneHeap();
  const dataDir = process.env.BENCH_DATA!;
  const settings = loadSettings({
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    ADPLANE_DEMO: '0',
    ADPLANE_WEB_DIST: join(dataDir, 'none'),
    ADPLANE_HOST: 'http://127.0.0.1:1',
    ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
  });
  const store = await openStore(settings);
  const app = await buildApp({ settings, store, role: 'edge' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  // as main.ts does: the process's other threads yield the core to the serving one
  keepServingThreadFirst();
  const address = app.server.address();
  const snap = app.edge.snapshots.current!;
  process.send!({
    port: typeof address === 'object' && address ? address.port : 0,
    buildMs: snap.buildMs,
    channels: snap.channels.size,
    tags: snap.tags.size,
    campaigns: snap.campaigns.size,
  });
  // event-loop stalls per case: what a request waits behind (flushes, rebuilds, GC); with BENCH_STALLS=1
  // also each stall and what ran meanwhile (serverWatch.ts)
  const watch = watchServer(app, process.env.BENCH_STALLS === '1');
  // BENCH_HEAP_PROMOTED=<file>: a sampling heap profile, from the first case on, of what outlived the young
  // generation (what makes the full collections come), written at 'memory'; with BENCH_HEAP_SAMPLED=allocated,
  // of everything allocated (what makes the young collections come)
  let promoted: Promise<() => Promise<unknown>> | null = null;
  process.on('message', async (m) => {
    if (process.env.BENCH_HEAP_PROMOTED)
      promoted ??= startHeapSampling(process.env.BENCH_HEAP_SAMPLED === 'allocated' ? 'allocated' : 'promoted', 8192);
    if (m === 'loop') {
      const { loopP99Ms, loopMaxMs } = watch.window();
      process.send!({ loopP99Ms, loopMaxMs });
    } else if (m === 'window') {
      // the loop's delay, the flushes and rebuilds (and with BENCH_STALLS, the stalls) since the last question
      process.send!(watch.window());
    } else if (m === 'rebuild') {
      // one campaign changes, as an edit through the API would stamp it; the rebuild must pick it up
      await sql`update campaigns set updated_at = ${new Date().toISOString()} where id = (select min(id) from campaigns)`.execute(
        store.db,
      );
      const t0 = performance.now();
      await app.edge.snapshots.rebuild();
      process.send!({ rebuildMs: Math.round(performance.now() - t0), buildMs: app.edge.snapshots.current!.buildMs });
    } else if (m === 'memory') {
      if (promoted) writeFileSync(process.env.BENCH_HEAP_PROMOTED!, JSON.stringify(await (await promoted)()));
      // where the resident memory is: V8's heap, buffers outside it, and the rest (code, native stores)
      const mb = (n: number) => Math.round(n / 1_048_576);
      const u = process.memoryUsage();
      // and what is live after a full collection (the child runs with --expose-gc: harness.ts serverChild)
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      const live = gc ? { liveHeapMb: mb(process.memoryUsage().heapUsed) } : {};
      // BENCH_HEAP_SNAPSHOT=<file>: what is live at the end of the run, for DevTools' Memory tab
      if (process.env.BENCH_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT);
      // DuckDB's own memory (its buffer manager: the stats store's blocks), outside V8's heap
      const duckdb =
        app.stats.engine === 'duckdb'
          ? await app.stats.select('SELECT sum(memory_usage_bytes) AS b FROM duckdb_memory()').then(
              (r) => ({ duckdbMb: mb(Number(r[0]?.b ?? 0)) }),
              () => ({}),
            )
          : {};
      process.send!({
        rssMb: mb(u.rss),
        heapTotalMb: mb(u.heapTotal),
        heapUsedMb: mb(u.heapUsed),
        externalMb: mb(u.external),
        arrayBuffersMb: mb(u.arrayBuffers),
        ...live,
        ...duckdb,
      });
    } else if (m === 'stop') {
      await app.close();
      await store.close();
      process.exit(0);
    }
  });
}

/** The cases of a run, in their order. `BENCH_CASES=<case,case>` runs some of them: their fields are merged into bench/results/edge.json. */
const CASES = ['floor', 'vast', 'events', 'tags', 'tail', 'memory'] as const;
type Case = (typeof CASES)[number];

function casesWanted(): Set<Case> {
  const asked = (process.env.BENCH_CASES ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  for (const c of asked)
    if (!(CASES as readonly string[]).includes(c))
      throw new Error(`BENCH_CASES: no case '${c}' (the cases: ${CASES.join(', ')})`);
  return new Set((asked.length ? asked : CASES) as Case[]);
}

/**
 * The tail case: each kind of request paced one at a time per connection on TAIL_CONNECTIONS
 * connections, at a rate where the server's core is at most half busy, for BENCH_TAIL_SECONDS
 * (default 60), beside the bare server paced alike.
 */
const TAIL_SECONDS = Number(process.env.BENCH_TAIL_SECONDS ?? 60);
const TAIL_CONNECTIONS = 64;
/**
 * The bound on the server's share of its core while paced, and the share the probes set the rate
 * for: a margin under it for what a window holds beyond a probe (the rebuild) and for the machine.
 */
const TAIL_MAX_CPU_SHARE = 0.5;
const TAIL_AIM_CPU_SHARE = 0.4;
/** A probe of a rate: long enough to hold one of the counters' flushes (every 5 s). */
const TAIL_PROBE_MS = 5500;
/** Each kind's p99 at most this many ms above the bare server's at the same rate. */
const TAIL_ADDED_MS = { vast: 3, openrtb: 5, events: 2 } as const;
/** The longest event-loop stall allowed in every kind's window. */
const TAIL_LOOP_MAX_MS = 20;
type TailKind = keyof typeof TAIL_ADDED_MS;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The session cookie of a bench user signed in through the API. */
async function signIn(base: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('adplane_sid='));
  if (response.status !== 200 || !cookie)
    throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return cookie.split(';')[0]!;
}

async function main(): Promise<void> {
  const cases = casesWanted();
  pin(process.pid, 1);
  const loadBefore = loadavg();
  const dataDir = mkdtempSync(join(tmpdir(), 'adplane-edge-bench-'));
  const demand = await child([join(here, 'edge/children.ts'), 'demand']);
  pin(demand.proc.pid!, 1);
  const bare = await child([join(here, 'edge/children.ts'), 'bare']);
  pin(bare.proc.pid!, 0);
  say('filling the store...');
  // a supplier per tenant: the tail case's bid requests come in through /rtb/bid/<supplier>, as in openrtb.bench.ts
  const suppliers: string[] = [];
  const filled = await fill(dataDir, String(demand.msg.url), {
    perTenant: supplierPerTenant(suppliers),
  });
  say(`filled in ${filled.fillMs} ms; starting the server`);
  process.env.BENCH_DATA = dataDir;
  // BENCH_PROFILE=<dir>: the server writes a V8 CPU profile there when it stops (open it in Chrome's DevTools).
  // BENCH_NODE_FLAGS: V8 flags for the server (e.g. --max-semi-space-size=64: fewer scavenges, more memory;
  // --trace-gc: each collection on stdout)
  const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const server = await serverChild([
    ...nodeFlags,
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
  ]);
  pin(server.proc.pid!, 0);
  const port = Number(server.msg.port);
  say(`server up: ${JSON.stringify(server.msg)}`);
  const duration = SECONDS * 1000;

  /** Throughput: 32 connections with 8 requests in flight each (the bare server's R is measured so too). */
  const closedLoop = (p: number, paths: string[]) =>
    runLoad({ port: p, paths, connections: 32, depth: 8, durationMs: duration });
  /** One request at a time per connection, paced at `rate` (BENCH_ONLY with BENCH_RATE). */
  const pacedLoad = (paths: string[], rate: number) =>
    runLoad({ port, paths, connections: 32, rate, durationMs: duration });
  const r = rnd(99);
  const IPS = ['8.8.8.8', '81.2.69.160', '24.24.24.24', '1.1.1.1'];
  const vastPaths = Array.from(
    { length: 2000 },
    () =>
      `/vast/${filled.channelUids[Math.floor(r() * filled.channelUids.length)]}?w=${[320, 640, 1280][Math.floor(r() * 3)]}&h=360&ip=${IPS[Math.floor(r() * IPS.length)]}`,
  );
  /**
   * Tracking URLs taken from real answers: four beacons a decision (impression, start, midpoint,
   * complete), one after the other as a player fires them, from 12,000 decisions, more than the /ev
   * path keeps verified (2 x VERIFIED_CAP tokens): each round, a decision's first beacon has its
   * token verified from the signature and the next three find it kept, as a real player's beacons do
   * (those are 5 to 8 a decision: this is the harder mix). `BENCH_EVENT_DECISIONS` sets how many.
   */
  const eventPaths = async () => {
    const paths: string[] = [];
    const sources = Array.from(
      { length: Number(process.env.BENCH_EVENT_DECISIONS ?? 12_000) },
      (_, i) => vastPaths[i % vastPaths.length]!,
    );
    let next = 0;
    const worker = async () => {
      while (next < sources.length) {
        const body = await (await fetch(`http://127.0.0.1:${port}${sources[next++]!}`)).text();
        for (const m of body.matchAll(
          /<!\[CDATA\[http:\/\/127\.0\.0\.1:1(\/ev\?e=(?:impression|start|midpoint|complete)&[^\]]+)\]\]>/g,
        ))
          paths.push(m[1]!);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    if (!paths.length) throw new Error('no tracking URL in the VAST answers: did any of them fill?');
    return paths;
  };
  /**
   * The five-tag case: 200 requests/s, each with its own device id, which the tags pass on to the
   * demand partner (`rid`); the partner says how long it held each request's slowest call (its 20 ms,
   * plus its own timer's lateness on the busy client core). What the edge adds to the slowest answer
   * is then each request's latency minus that hold, not minus 20 ms.
   */
  const tagLoad = async () => {
    const count = Math.ceil((200 * (TAGS_WARMUP_MS + duration)) / 1000) + 400;
    const tagPaths = Array.from(
      { length: count },
      (_, i) => `/vast/${filled.tagChannelUid}?w=640&h=360&ip=8.8.8.8&device_id=r${i}`,
    );
    const latency = new Map<number, number>();
    await ask(demand.proc, 'holds');
    const load = await runLoad({
      port,
      paths: tagPaths,
      connections: 16,
      rate: 200,
      durationMs: duration,
      warmupMs: TAGS_WARMUP_MS,
      onAnswer: (which, ms) => latency.set(which, ms),
    });
    const holds = (await ask(demand.proc, 'holds')) as Record<string, number>;
    return { ...load, ...addedOverHolds(latency, holds, (which) => `r${which}`) };
  };

  /** A load with the share of a core the server process used meanwhile (its CPU time over the wall time). */
  const withShare = async <T extends { requests: number }>(pid: number, load: () => Promise<T>) => {
    const t0 = performance.now();
    const got = await measured(pid, load);
    return { ...got, cpuShare: round2(got.serverCpuS / ((performance.now() - t0) / 1000)) };
  };
  type Load = { paths: string[] } | { requests: Buffer[] };
  /**
   * One kind's tail: its paced capacity (one request at a time per connection, closed loop), then a
   * rate set from it and checked by probes until the server's core is at most TAIL_AIM_CPU_SHARE busy,
   * then TAIL_SECONDS at that rate with a campaign edited through the API a quarter in (the edge
   * rebuilds its snapshot) and the counters' flushes on their timer; then the bare server at that rate.
   */
  const tailOf = async (kind: TailKind, load: Load, edit: () => Promise<void>) => {
    const pid = server.proc.pid!;
    const paced = { port, ...load, connections: TAIL_CONNECTIONS };
    say(`tail, ${kind}: paced capacity...`);
    const capacity = await withShare(pid, () => runLoad({ ...paced, depth: 1, durationMs: Math.min(duration, 5000) }));
    let rate = Math.max(
      100,
      Math.round((capacity.rps * TAIL_AIM_CPU_SHARE) / Math.max(capacity.cpuShare, TAIL_AIM_CPU_SHARE)),
    );
    say(`  capacity ${capacity.rps}/s at server CPU ${capacity.cpuShare}`);
    for (let probe = 0; probe < 4; probe++) {
      const p = await withShare(pid, () => runLoad({ ...paced, rate, durationMs: TAIL_PROBE_MS, warmupMs: 500 }));
      say(`  probe at ${rate}/s: server CPU ${p.cpuShare}`);
      if (p.cpuShare <= TAIL_AIM_CPU_SHARE + 0.03) break;
      rate = Math.max(100, Math.round((rate * TAIL_AIM_CPU_SHARE) / p.cpuShare));
    }
    say(`  ${TAIL_SECONDS} s at ${rate}/s...`);
    await ask(server.proc, 'window');
    // (a quarter in: the rebuild it starts, slower under load, still lands in a short trial's window)
    const editing = new Promise((resolve) => setTimeout(resolve, 1000 + TAIL_SECONDS * 250)).then(edit).then(
      () => null,
      (error: unknown) => error,
    );
    const edge = await withShare(pid, () => runLoad({ ...paced, rate, durationMs: TAIL_SECONDS * 1000 }));
    const editFailed = await editing;
    if (editFailed) throw editFailed;
    const window = (await ask(server.proc, 'window')) as unknown as WindowReport;
    say(`  the bare server at ${rate}/s...`);
    const bareRun = await withShare(bare.proc.pid!, () =>
      runLoad({ ...paced, port: Number(bare.msg.port), rate, durationMs: TAIL_SECONDS * 1000 }),
    );
    const addedP99Ms = round2(edge.p99Ms - bareRun.p99Ms);
    const { longestStalls, byCause, jobs, ...loop } = window;
    return {
      rateRps: rate,
      pacedCapacityRps: capacity.rps,
      serverCpuShare: edge.cpuShare,
      p50Ms: edge.p50Ms,
      p99Ms: edge.p99Ms,
      maxMs: edge.maxMs,
      bareP50Ms: bareRun.p50Ms,
      bareP99Ms: bareRun.p99Ms,
      bareMaxMs: bareRun.maxMs,
      addedP99Ms,
      ...loop,
      target: `p99 <= the bare server's + ${TAIL_ADDED_MS[kind]} ms, longest stall <= ${TAIL_LOOP_MAX_MS} ms, server CPU <= ${TAIL_MAX_CPU_SHARE}`,
      met:
        addedP99Ms <= TAIL_ADDED_MS[kind] &&
        loop.loopMaxMs <= TAIL_LOOP_MAX_MS &&
        edge.cpuShare <= TAIL_MAX_CPU_SHARE &&
        edge.errors === 0,
      ...(longestStalls ? { stalls: { longest: longestStalls, byCause, jobs } } : {}),
      load: edge,
      bare: bareRun,
    };
  };
  /** The tail case: VAST, OpenRTB bid requests and tracking events in turn, each in its own window. */
  const tailCase = async (evPaths: string[]) => {
    const loadAverageBefore = loadavg();
    const api = await child([join(here, 'edge/children.ts'), 'api', dataDir]);
    pin(api.proc.pid!, 1);
    const apiUrl = String(api.msg.url);
    const cookie = await signIn(apiUrl, 'tenant0', BENCH_PASSWORD);
    let edits = 0;
    /** One edit through the API, as an operator's: the campaign's bid moves (and back at the next), so the edge rebuilds. */
    const edit = async () => {
      const { id, body } = filled.editable;
      const res = await fetch(`${apiUrl}/api/demand/campaigns/${id}`, {
        method: 'PUT',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, bidCpm: Number(body.bidCpm) + (++edits % 2 ? 10_000 : 0) }),
      });
      if (res.status !== 200) throw new Error(`the tail case's campaign edit: HTTP ${res.status} ${await res.text()}`);
    };
    const rb = rnd(7);
    const bids = Array.from({ length: 1000 }, (_, i) =>
      jsonPost(`/rtb/bid/${suppliers[i % suppliers.length]}`, bidRequest(i, rb)),
    );
    const vast = await tailOf('vast', { paths: vastPaths }, edit);
    const openrtb = await tailOf('openrtb', { requests: bids }, edit);
    const events = await tailOf('events', { paths: evPaths }, edit);
    api.proc.kill();
    const kinds = [vast, openrtb, events];
    return {
      at: new Date().toISOString(),
      loadAverageBefore,
      loadAverageAfter: loadavg(),
      seconds: TAIL_SECONDS,
      connections: TAIL_CONNECTIONS,
      // the busiest window's share of the server's core
      serverCpuShare: Math.max(...kinds.map((k) => k.serverCpuShare)),
      vast,
      openrtb,
      events,
      flushes: kinds.reduce((n, k) => n + k.flushes, 0),
      rebuilds: kinds.reduce((n, k) => n + k.rebuilds, 0),
      met: kinds.every((k) => k.met && k.flushes > 0 && k.rebuilds > 0),
    };
  };

  const only = process.env.BENCH_ONLY;
  if (only === 'tags' || only === 'vast' || only === 'events' || only === 'floor') {
    // one case alone, for profiling (BENCH_PROFILE): nothing is written to bench/results
    const paths = only === 'events' ? await eventPaths() : only === 'floor' ? [FLOOR_PATH] : vastPaths;
    // BENCH_RATE=<n>: the case paced at n requests/s, one at a time per connection
    const rate = Number(process.env.BENCH_RATE ?? 0);
    await ask(server.proc, 'loop');
    const demandCpu0 = cpuSeconds(demand.proc.pid!);
    const load = await measured(server.proc.pid!, () =>
      only === 'tags' ? tagLoad() : rate ? pacedLoad(paths, rate) : closedLoop(port, paths),
    );
    const demandCpuS = Math.round((cpuSeconds(demand.proc.pid!) - demandCpu0) * 100) / 100;
    say(`${only}: ${JSON.stringify({ ...load, demandCpuS, eventLoop: await ask(server.proc, 'loop') })}`);
    if (rate) {
      // the bare server paced alike: what the instrument and node:http cost at that rate
      const bareLoad = await measured(bare.proc.pid!, () =>
        runLoad({ port: Number(bare.msg.port), paths: ['/'], connections: 32, rate, durationMs: duration }),
      );
      say(`bare at that rate: ${JSON.stringify(bareLoad)}`);
    }
    say(`memory: ${JSON.stringify({ rssMb: rssMb(server.proc.pid!), ...(await ask(server.proc, 'memory')) })}`);
    await ask(server.proc, 'stop').catch(() => undefined);
    demand.proc.kill();
    bare.proc.kill();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }

  const result: Record<string, unknown> = {};
  const table: Record<string, Record<string, unknown>> = {};
  if (cases.has('floor') || cases.has('vast') || cases.has('events')) {
    say('measuring bareLoad...');
    const bareLoad = await measured(bare.proc.pid!, () => closedLoop(Number(bare.msg.port), ['/']));
    say(`bare: ${JSON.stringify(bareLoad)}`);
    const R = bareLoad.rps;
    Object.assign(result, { R, bare: bareLoad });
    table.bare = { rps: R, p99: bareLoad.p99Ms, perCpuS: bareLoad.perServerCpuS };
    /** A case's requests per server CPU-second as a share of the bare server's: the ratio a free core would show. */
    const perCpuOfR = (c: { perServerCpuS: number }) =>
      bareLoad.perServerCpuS ? round2(c.perServerCpuS / bareLoad.perServerCpuS) : 0;
    const ofR = (c: { rps: number; perServerCpuS: number }) => ({
      ofR: round2(c.rps / R),
      ofRPerCpu: perCpuOfR(c),
    });

    if (cases.has('floor')) {
      // The edge's floor: its cheapest answer through its own dispatch (an /ev call naming no event, a
      // 400 before any token work). No edge path can be faster than this on node:http.
      say('measuring edgeFloor...');
      const edgeFloor = await measured(server.proc.pid!, () => closedLoop(port, [FLOOR_PATH]));
      result.edgeFloor = { ...edgeFloor, ...ofR(edgeFloor) };
      table.edgeFloor = { rps: edgeFloor.rps, ...ofR(edgeFloor), perCpuS: edgeFloor.perServerCpuS };
    }
    if (cases.has('vast')) {
      say('measuring vastMax...');
      await ask(server.proc, 'loop');
      const vastMax = await measured(server.proc.pid!, () => closedLoop(port, vastPaths));
      const vastMaxLoop = await ask(server.proc, 'loop');
      say(`vast: ${JSON.stringify(vastMax)}`);
      result.vastCampaigns = { ...vastMax, ...ofR(vastMax), target: '>= 0.6 R', eventLoop: vastMaxLoop };
      table.vastCampaigns = {
        rps: vastMax.rps,
        ...ofR(vastMax),
        perCpuS: vastMax.perServerCpuS,
        p99: vastMax.p99Ms,
        errors: vastMax.errors,
        loopMax: vastMaxLoop.loopMaxMs,
      };
    }
  }

  let evPaths: string[] | null = null;
  if (cases.has('events')) {
    evPaths = await eventPaths();
    say('measuring events...');
    await ask(server.proc, 'loop');
    const events = await measured(server.proc.pid!, () => closedLoop(port, evPaths!));
    const eventsLoop = await ask(server.proc, 'loop');
    const R = result.R as number;
    const bareLoad = result.bare as { perServerCpuS: number };
    const ofR = {
      ofR: round2(events.rps / R),
      ofRPerCpu: bareLoad.perServerCpuS ? round2(events.perServerCpuS / bareLoad.perServerCpuS) : 0,
    };
    result.events = { ...events, ...ofR, target: '>= 0.85 R', eventLoop: eventsLoop };
    table.events = {
      rps: events.rps,
      ...ofR,
      perCpuS: events.perServerCpuS,
      p99: events.p99Ms,
      loopMax: eventsLoop.loopMaxMs,
    };
  }

  if (cases.has('tags')) {
    say('measuring tags...');
    await ask(server.proc, 'loop');
    const tags = await tagLoad();
    const tagsLoop = await ask(server.proc, 'loop');
    // added: each request's latency minus its slowest call's hold at the partner (tagLoad); addedOverNominalP99Ms: the p99 minus 20 ms, as measured before
    result.fiveDemandTags = {
      ...tags,
      demandDelayMs: 20,
      addedP99Ms: tags.added.p99Ms,
      addedOverNominalP99Ms: round2(tags.p99Ms - 20),
      target: 'added <= 3 ms at p99',
      eventLoop: tagsLoop,
    };
    table.fiveTags = {
      rps: tags.rps,
      p99: tags.p99Ms,
      slowestHoldP99: tags.slowestHold.p99Ms,
      added: tags.added.p99Ms,
      overNominal: round2(tags.p99Ms - 20),
      loopMax: tagsLoop.loopMaxMs,
    };
  }

  if (cases.has('tail')) {
    const tail = await tailCase(evPaths ?? (await eventPaths()));
    result.tail = tail;
    for (const kind of ['vast', 'openrtb', 'events'] as const) {
      const k = tail[kind];
      table[`tail ${kind}`] = {
        rate: k.rateRps,
        cpu: k.serverCpuShare,
        p99: k.p99Ms,
        bareP99: k.bareP99Ms,
        added: k.addedP99Ms,
        loopMax: k.loopMaxMs,
        flushes: k.flushes,
        rebuilds: k.rebuilds,
        met: k.met,
      };
    }
    for (const kind of ['vast', 'openrtb', 'events'] as const)
      if (tail[kind].stalls) say(`tail ${kind} stalls: ${JSON.stringify(tail[kind].stalls, null, 1)}`);
  }
  bare.proc.kill();

  if (cases.has('memory')) {
    // resident memory while serving (after the load cases), then around a rebuild, which holds the
    // current snapshot and the next one while it builds: just after the swap, and 10 s later
    const rss = rssMb(server.proc.pid!);
    const rebuild = await ask(server.proc, 'rebuild');
    const rssAfterRebuild = rssMb(server.proc.pid!);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const rssSettled = rssMb(server.proc.pid!);
    const memory = await ask(server.proc, 'memory');
    Object.assign(result, {
      snapshot: {
        channels: server.msg.channels,
        tags: server.msg.tags,
        campaigns: server.msg.campaigns,
        startBuildMs: server.msg.buildMs,
        rebuildMs: rebuild.rebuildMs,
      },
      rssMb: rss,
      rssAfterRebuildMb: rssAfterRebuild,
      rssSettledAfterRebuildMb: rssSettled,
      memory,
    });
    say(
      `snapshot: ${JSON.stringify(result.snapshot)}  rss: ${rss} MB (after the rebuild ${rssAfterRebuild} MB, 10 s later ${rssSettled} MB)  memory: ${JSON.stringify(memory)}`,
    );
  }
  await ask(server.proc, 'stop').catch(() => undefined);
  demand.proc.kill();
  rmSync(dataDir, { recursive: true, force: true });

  const file = join(here, FEATURES ? 'results/edge-features.json' : 'results/edge.json');
  const whole = cases.size === CASES.length;
  // a run of some cases replaces their fields in the last whole run's file and keeps the rest
  const before = !whole && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  // a field no case writes any more (the paced tail is the tail case's)
  delete before.vastCampaignsHalfLoad;
  const machine = {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? '',
    node: process.version,
    serverCpu: 0,
    clientCpu: 1,
    serverNodeFlags: [...OWN_CORE_V8_FLAGS, ...nodeFlags],
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadavg(),
  };
  const order = [
    'snapshot',
    'R',
    'bare',
    'edgeFloor',
    'vastCampaigns',
    'events',
    'fiveDemandTags',
    'tail',
    'rssMb',
    'rssAfterRebuildMb',
    'rssSettledAfterRebuildMb',
    'memory',
  ];
  const merged: Record<string, unknown> = {
    at: whole ? new Date().toISOString() : (before.at ?? new Date().toISOString()),
    machine: whole ? machine : (before.machine ?? machine),
  };
  for (const key of order) if (key in result || key in before) merged[key] = result[key] ?? before[key];
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
  sayTable(table);
  process.exit(0);
}

if (process.argv.includes('--serve')) void serve();
else if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
