import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArgs } from '../src/main.js';
import { type DemandServer, startDemandServer } from './demandServers.js';
import { programArgs } from './program.js';
import { childPids, probeUntil, type RunningAdplane, startAdplane, callProgram } from './adplaneCommand.js';
import { hasRedisServer, type OwnRedis, redisForProgram } from './deliveryEngines.js';
import { seedDemoStore } from './demoStore.js';
import { DEMO_PASSWORD } from './helpers.js';

/**
 * `adplane --workers 2` as an operator runs it (a real primary and two real workers on one port,
 * node's cluster handing each new connection to the next worker): both workers answer, an API
 * write in one is served by both within a second (through the change feed: the polling is slowed to
 * 10 minutes), a daily budget, a frequency cap and a demand
 * tag's QPS limit hold across the two, an impression beacon sent to both counts once, reports in
 * either worker see the impressions of both, and the stats land in the one DuckDB file. Once on the in-process counters (the primary holds
 * them), once on Redis (a redis-server of its own when there is one, else REDIS_URL).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const BID = 50_000_000; // $50 CPM: above the demo campaigns
const PER_IMP = BID / 1000;
const BUDGET_IMPS = 20;
const TAG_QPS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const call = callProgram;

interface Cluster extends RunningAdplane {
  dataDir: string;
}

async function startCluster(env: Record<string, string>): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'adplane-workers-'));
  // the demo workspace (users, one tenant's entities), without the demo history (slow, not needed)
  await seedDemoStore(dataDir);
  const running = await startAdplane(
    programArgs('--workers', '2'),
    {
      DATA_DIR: dataDir,
      ADPLANE_DEMO: '0',
      ADPLANE_WEB_DIST: join(dataDir, 'none'),
      // the config store's polling at 10 minutes: a write reaches the other worker in the test's seconds only through the change feed (the primary's relay, or Redis pub/sub)
      ADPLANE_CONFIG_POLL_MS: '600000',
      ...env,
    },
    { cwd: ROOT, workers: 2 },
  );
  return { ...running, dataDir };
}

const cmdlineOf = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

/** The impression URL of a VAST answer when the creative `media` won, else null. */
function impressionOf(vast: string, media: string): string | null {
  if (!vast.includes(media)) return null;
  const url = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(vast)?.[1];
  return url ? url.slice(url.indexOf('/ev')) : null;
}

/** The demo tenant's zone (store/seed.ts): its campaigns' days, and their daily budgets, turn at its midnight. */
const TENANT_TZ = -5;

/** A campaign's impressions in the stats by the tenant's day, oldest first: two days when its midnight fell within the test. */
async function impsByDay(dataDir: string, campaignId: number): Promise<number[]> {
  const instance = await DuckDBInstance.create(join(dataDir, 'stats.duckdb'));
  const connection = await instance.connect();
  try {
    const rows = (
      await connection.runAndReadAll(
        `SELECT CAST(hour AS VARCHAR) AS hour, sum(imps)::INTEGER AS n FROM hourly_stats WHERE campaign_id = ${campaignId} GROUP BY hour`,
      )
    ).getRowObjectsJS();
    const days = new Map<string, number>();
    for (const row of rows) {
      const day = new Date(Date.parse(`${String(row.hour).slice(0, 19).replace(' ', 'T')}Z`) + TENANT_TZ * 3_600_000)
        .toISOString()
        .slice(0, 10);
      days.set(day, (days.get(day) ?? 0) + Number(row.n));
    }
    return [...days.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, n]) => n);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function imps(dataDir: string, campaignId: number): Promise<number> {
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

const redisPresent = hasRedisServer() || !!process.env.REDIS_URL;
const ENGINES = ['memory', ...(redisPresent ? ['redis'] : [])] as const;

describe.each(ENGINES)('adplane --workers 2 (%s counters)', (engine) => {
  let cluster: Cluster;
  let own: OwnRedis | null = null;
  let demand: DemandServer;
  let cookie = '';

  beforeAll(async () => {
    let redisUrl = '';
    if (engine === 'redis') ({ url: redisUrl, own } = await redisForProgram());
    demand = await startDemandServer();
    cluster = await startCluster({ REDIS_URL: redisUrl });
    const login = await call(cluster.port, '/api/auth/login', {
      method: 'POST',
      body: { username: 'demand', password: DEMO_PASSWORD },
    });
    expect(login.status, login.body).toBe(200);
    cookie = login.cookie!;
  }, 120_000);

  afterAll(async () => {
    if (cluster?.proc.exitCode === null) await cluster.stop();
    if (cluster) rmSync(cluster.dataDir, { recursive: true, force: true });
    await demand?.close();
    await own?.stop();
  });

  const create = async (kind: string, body: Record<string, unknown>): Promise<{ id: number; uid: string }> => {
    const res = await call(cluster.port, `/api/demand/${kind}`, { method: 'POST', cookie, body });
    expect(res.status, res.body).toBe(201);
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
          url: `https://cdn.example.com/${name}.mp4`,
          mime: 'video/mp4',
          duration: 15,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });

  it("starts the workers with V8's collector on their own thread when they fill the cores (cluster/workerFlags.ts)", () => {
    const workers = childPids(cluster.proc.pid!)
      .map(cmdlineOf)
      .filter((args) => args.includes(programArgs()[0]!));
    expect(workers).toHaveLength(2);
    for (const args of workers) expect(args.includes('--single-threaded-gc')).toBe(2 >= availableParallelism());
  });

  it('serves on both workers; budgets, caps, QPS limits and impression counts hold across them; stats land in one store', {
    timeout: 120_000,
  }, async () => {
    const { port } = cluster;
    /** Until both workers have answered `path` (a new viewer each call) as `ok` says: a row written through the API has reached both. */
    let probes = 0;
    const onBothWorkers = async (
      what: string,
      path: (device: string) => string,
      ok: (res: { status: number; body: string }) => boolean,
    ) => {
      const seen = new Set<string>();
      await probeUntil(
        `${what} on both workers`,
        async () => {
          const res = await call(port, path(`probe${probes++}`));
          if (ok(res)) seen.add(res.worker);
          return seen.size === 2 ? true : null;
        },
        10_000,
      );
    };
    // both workers answer
    const workers = new Set<string>();
    for (let i = 0; i < 20 && workers.size < 2; i++) workers.add((await call(port, '/healthz')).worker);
    expect([...workers].sort()).toHaveLength(2);

    // an API write in one worker is served by both within a second
    const spot = await creative('budget-spot');
    const channel = await create('channels', {
      name: 'Workers CTV',
      vastVersion: '4.2',
      demandMode: 'auction',
      timeoutMs: 1000,
      demand: [],
    });
    const vastPath = (device: string) => `/vast/${channel.uid}?w=640&h=360&ip=8.8.8.8&device_id=${device}`;
    const budgeted = await create('campaigns', {
      name: 'Twenty a day',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: BID,
      channelScope: 'all',
      dailyBudget: BUDGET_IMPS * PER_IMP,
      pacing: 'asap',
      creativeIds: [spot.id],
    });
    const written = Date.now();
    const servedBy = new Map<string, number>();
    const pending: string[] = [];
    while (servedBy.size < 2 && Date.now() - written < 3_000) {
      const res = await call(port, vastPath(`d${pending.length}`));
      const impression = impressionOf(res.body, 'budget-spot.mp4');
      if (impression) {
        pending.push(impression);
        if (!servedBy.has(res.worker)) servedBy.set(res.worker, Date.now() - written);
      }
    }
    expect(servedBy.size).toBe(2);
    for (const ms of servedBy.values()) expect(ms).toBeLessThan(1_000);

    // the daily budget: decisions on both workers, each impression beacon to whichever worker the next connection reaches
    let counted = 0;
    const fire = async (impression: string) => {
      const res = await call(port, impression);
      expect(res.status).toBe(200);
      counted++;
    };
    for (const impression of pending.splice(0)) await fire(impression);
    // until refused for 6 s: the last impressions may wait for an idle worker's lease to go back (5 s, docs/delivery.md)
    for (let i = 0, lastWin = Date.now(); Date.now() - lastWin < 6_000 && i < 1_000; i++) {
      const res = await call(port, vastPath(`b${i}`));
      const impression = impressionOf(res.body, 'budget-spot.mp4');
      if (impression) {
        lastWin = Date.now();
        await fire(impression);
      } else await sleep(30); // a worker without a lease asks the primary (or Redis) in the background
    }

    // the frequency cap (3 a day per viewer): at most one more, from a worker whose count was a tick old
    const capped = await creative('capped-spot');
    const cappedCampaign = await create('campaigns', {
      name: 'Three per viewer',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: BID,
      channelScope: 'all',
      pacing: 'asap',
      frequencyCap: { count: 3, periodHours: 24 },
      creativeIds: [capped.id],
    });
    await onBothWorkers('the capped campaign', vastPath, (res) => res.body.includes('capped-spot.mp4'));
    let views = 0;
    const cappedImpressions: string[] = [];
    let refusedInARow = 0;
    for (let i = 0; refusedInARow < 10 && i < 100; i++) {
      const res = await call(port, vastPath('one-viewer'));
      const impression = impressionOf(res.body, 'capped-spot.mp4');
      if (impression) {
        refusedInARow = 0;
        views++;
        cappedImpressions.push(impression);
        expect((await call(port, impression)).status).toBe(200);
      } else {
        refusedInARow++;
        await sleep(50);
      }
    }
    expect(views).toBeGreaterThanOrEqual(3);
    expect(views).toBeLessThanOrEqual(4);

    // the same beacons again, each to both workers: not counted again (checked in the stats below)
    for (const impression of cappedImpressions) {
      const seen = new Set<string>();
      for (let i = 0; i < 6 && seen.size < 2; i++) {
        const res = await call(port, impression);
        expect(res.status).toBe(200);
        seen.add(res.worker);
      }
      expect(seen.size).toBe(2);
    }

    // a demand tag's QPS limit: requests spread over both workers, the tag is called at most its limit a second
    const tag = await create('tags', {
      name: 'Five a second',
      vastUrl: `${demand.url}/empty`,
      price: { type: 'cpm', cpm: 1_000_000 },
      qpsLimit: TAG_QPS,
      timeoutMs: 500,
    });
    const tagChannel = await create('channels', {
      name: 'Workers QPS',
      demandMode: 'auction',
      timeoutMs: 500,
      demand: [{ tagId: tag.id, priority: 1 }],
    });
    await onBothWorkers(
      'the QPS channel',
      (device) => `/vast/${tagChannel.uid}?w=640&h=360&ip=8.8.8.8&device_id=${device}`,
      (res) => res.status === 200,
    );
    const start = Date.now();
    const perSecond: number[] = [];
    let before = demand.calls.length;
    let second = 0;
    while (Date.now() - start < 4_000) {
      await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          call(port, `/vast/${tagChannel.uid}?w=640&h=360&ip=8.8.8.8&device_id=q${i}`),
        ),
      );
      const now = Math.floor((Date.now() - start) / 1000);
      if (now > second) {
        perSecond[second] = demand.calls.length - before;
        before = demand.calls.length;
        second = now;
      }
    }
    // the first second starts each worker on its share; after it the two shares add up to the limit
    for (const n of perSecond.slice(1)) {
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(TAG_QPS * 1.2 + 2);
    }

    // reports in either worker see every worker's impressions (the stats store is the primary's; counters flush every 5 s)
    const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const reported = new Map<string, number>();
    for (
      const until = Date.now() + 20_000;
      Date.now() < until && !(reported.size === 2 && [...reported.values()].every((n) => n === counted));
    ) {
      const res = await call(port, '/api/rrun', {
        method: 'POST',
        cookie,
        body: {
          startDate: isoDay(Date.now() - 86_400_000),
          endDate: isoDay(Date.now() + 86_400_000),
          dimensions: ['campaign'],
          metrics: ['imps'],
        },
      });
      expect(res.status, res.body).toBe(200);
      const row = (JSON.parse(res.body) as Record<string, unknown>[]).find((r) => r.campaign === budgeted.id);
      reported.set(res.worker, Number(row?.imps ?? 0));
      await sleep(250);
    }
    expect([...reported.values()]).toEqual([counted, counted]);

    // the Prebid cache: what an auction on one worker cached answers on both (the page's GET may reach either)
    const auction = await call(port, '/openrtb2/auction', {
      method: 'POST',
      body: {
        id: 'pbjs-1',
        tmax: 1000,
        site: { page: 'https://news.example.com/story', domain: 'news.example.com' },
        device: { ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/124.0', ip: '8.8.8.8', ifa: 'cache-viewer' },
        imp: [
          {
            id: 'v1',
            video: { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360, plcmt: 1 },
            ext: { prebid: { bidder: { adplane: { channel: channel.uid } } } },
          },
        ],
        ext: { prebid: { cache: { vastxml: {} }, targeting: { includewinners: true } } },
      },
    });
    expect(auction.status, auction.body).toBe(200);
    const cached = (
      JSON.parse(auction.body) as {
        seatbid: { bid: { adm: string; ext: { prebid: { cache: { vastXml: { url: string } } } } }[] }[];
      }
    ).seatbid[0]!.bid[0]!;
    const cachePath =
      new URL(cached.ext.prebid.cache.vastXml.url).pathname + new URL(cached.ext.prebid.cache.vastXml.url).search;
    const answeredBy = new Set<string>();
    for (let i = 0; i < 10 && answeredBy.size < 2; i++) {
      const got = await call(port, cachePath);
      expect(got.status, `worker ${got.worker}: ${got.body}`).toBe(200);
      expect(got.body).toBe(cached.adm);
      answeredBy.add(got.worker);
    }
    expect(answeredBy.size).toBe(2);

    // stop: the workers drain (their counters go to the primary's store), the primary exits cleanly
    expect(await cluster.stop()).toBe(0);
    // the daily budget held on each of the tenant's days the test ran on (its midnight may fall within
    // the test: the next day's budget is spent whole then too); the stated bound: one in-flight impression per process
    const byDay = await impsByDay(cluster.dataDir, budgeted.id);
    expect(byDay.reduce((a, b) => a + b, 0)).toBe(counted);
    for (const n of byDay) expect(n).toBeLessThanOrEqual(BUDGET_IMPS + 2);
    expect(byDay.at(-1)).toBeGreaterThanOrEqual(BUDGET_IMPS - 1);
    expect(await imps(cluster.dataDir, cappedCampaign.id)).toBe(views);
  });
});

describe('the workers flag', () => {
  it('defaults to one worker per core for the edge role and to one otherwise; refuses what is not 1..64', () => {
    expect(readArgs(['--role', 'edge'], 8)).toEqual({ role: 'edge', workers: 8 });
    expect(readArgs(['--role', 'edge'], 200)).toEqual({ role: 'edge', workers: 64 });
    expect(readArgs([], 8)).toEqual({ role: 'all', workers: 1 });
    expect(readArgs(['--role', 'api', '--workers', '3'], 8)).toEqual({ role: 'api', workers: 3 });
    for (const bad of ['0', '65', '1.5', 'two', '-2', ''])
      expect(() => readArgs([`--workers=${bad}`], 2)).toThrow(
        `--workers must be a whole number from 1 to 64 (got '${bad}')`,
      );
    expect(() => readArgs(['--role', 'bidder'], 2)).toThrow("--role must be one of api, edge, all (got 'bidder')");
  });
});
