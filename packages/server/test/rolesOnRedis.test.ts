import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../src/store/db.js';
import { probeUntil, type RunningAdplane, startAdplane, callProgram } from './adplaneCommand.js';
import { programArgs } from './program.js';
import { hasRedisServer, type OwnRedis, redisForProgram } from './deliveryEngines.js';
import { type DemandServer, startDemandServer } from './demandServers.js';
import { seedDemoStore } from './demoStore.js';
import { DEMO_PASSWORD, onPgServer } from './helpers.js';

/**
 * The real program as an operator deploys it on several nodes: one `--role api` process and two
 * `--role edge` processes (each `--workers 1`, ports of their own, as behind a load balancer), on one
 * Redis and one config store. Through real HTTP only: a change made in the api process reaches both
 * edges' answers within a second (Redis pub/sub alone: the processes poll the config store every 10
minutes here, not every 250 ms); a daily budget, a
 * frequency cap per viewer and a demand tag's QPS limit hold across the two edges under real /vast
 * requests and /ev beacons sent to either edge; Redis killed and restarted shows in the edges'
 * /healthz and /metrics, and they recover (docs/delivery.md, "Tests").
 *
 * Stores: the config store is shared, PostgreSQL when DATABASE_URL is set (a database of its own,
 * created and dropped here: the processes use its default schema, as an operator's do), else the one
 * SQLite file, which processes of one machine may share (WAL). The DuckDB stats file may be opened by one process only (docs/delivery.md, "Workers"),
 * so each process has a DATA_DIR of its own, as a node of its own would: the edges' DATA_DIRs link to
 * the api's SQLite file (SQLite follows the link, its WAL beside the real file). Redis: a redis-server
 * of the test's own (random port, killed and restarted by the last case), else REDIS_URL (the outage
 * case is then skipped: another's server is not killed). Skipped when there is neither, failing on CI.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BID = 50_000_000; // $50 CPM: above the demo campaigns
const PER_IMP = BID / 1000;
const BUDGET_IMPS = 20;
const CAP = 3;
const TAG_QPS = 5;
/** The demo tenant's zone (store/seed.ts): its campaigns' spend today, and daily budgets, turn at its midnight. */
const TENANT_TZ = -5;
/** The tenant's date at `ms`: impressions are sorted by it, as a day's budget and spend are. */
const tenantDay = (ms = Date.now()) => new Date(ms + TENANT_TZ * 3_600_000).toISOString().slice(0, 10);
const present = hasRedisServer() || !!process.env.REDIS_URL;
/** The processes' polling of the config version (ADPLANE_CONFIG_POLL_MS): longer than the test, so only pub/sub brings a change. */
const POLL_MS = 600_000;

const call = callProgram;

/** The impression URL (from /ev on) of a VAST answer when the creative `media` won, else null. */
function impressionOf(vast: string, media: string): string | null {
  if (!vast.includes(media)) return null;
  const url = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(vast)?.[1];
  return url ? url.slice(url.indexOf('/ev')) : null;
}

/** A gauge's value in a Prometheus text answer (`name{labels} value`), or null when absent. */
function gauge(metrics: string, series: string): number | null {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

interface Node extends RunningAdplane {
  /** Its log lines (pino JSON at warn and above) since it started listening. */
  log: string[];
}

describe.skipIf(!present && process.env.CI !== 'true')('adplane as one api and two edge processes on one Redis', () => {
  let own: OwnRedis | null = null;
  let demand: DemandServer;
  let api: Node;
  let edges: Node[] = [];
  let cookie = '';
  /** A channel of the demo tenant without demand tags: its campaigns compete on it. */
  let channelUid = '';
  const dirs: string[] = [];
  const serverUrl = process.env.DATABASE_URL ?? '';
  const pgDatabase = `adplane_roles_${process.pid}_${randomBytes(4).toString('hex')}`;
  let databaseUrl = '';

  beforeAll(async () => {
    if (!present)
      throw new Error('CI=true but neither redis-server nor REDIS_URL: .ci/redis.sh installs and starts it');
    const { url: redisUrl, own: started } = await redisForProgram();
    own = started;
    demand = await startDemandServer();

    const dataDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'adplane-roles-'));
      dirs.push(dir);
      return dir;
    };
    const apiDir = dataDir();
    // the shared config store, migrated and holding the demo workspace (users, one tenant) before any process starts
    if (serverUrl) {
      await onPgServer(serverUrl, `CREATE DATABASE "${pgDatabase}"`);
      const url = new URL(serverUrl);
      url.pathname = `/${pgDatabase}`;
      databaseUrl = url.toString();
    }
    const storeEnv = { DATABASE_URL: databaseUrl };
    await seedDemoStore(apiDir, { DATABASE_URL: databaseUrl });

    const start = async (role: 'api' | 'edge', dir: string, redis: string): Promise<Node> => {
      const node = await startAdplane(
        programArgs('--role', role, '--workers', '1'),
        // the config store's polling at 10 minutes: a change reaches an edge within the test's seconds only over Redis pub/sub
        {
          DATA_DIR: dir,
          ADPLANE_DEMO: '0',
          ADPLANE_WEB_DIST: join(dir, 'none'),
          REDIS_URL: redis,
          ADPLANE_CONFIG_POLL_MS: String(POLL_MS),
          ...storeEnv,
        },
        { cwd: ROOT, workers: 1 },
      );
      const log: string[] = [];
      createInterface({ input: node.proc.stdout! }).on('line', (line) => log.push(line));
      return { ...node, log };
    };
    const edgeDir = () => {
      const dir = dataDir();
      if (!databaseUrl) symlinkSync(join(apiDir, SQLITE_FILE_NAME), join(dir, SQLITE_FILE_NAME));
      return dir;
    };
    const nodes = await Promise.all([
      start('api', apiDir, redisUrl),
      start('edge', edgeDir(), redisUrl),
      start('edge', edgeDir(), redisUrl),
    ]);
    api = nodes[0];
    edges = nodes.slice(1);
    const login = await call(api.port, '/api/auth/login', {
      method: 'POST',
      body: { username: 'demand', password: DEMO_PASSWORD },
    });
    expect(login.status, login.body).toBe(200);
    cookie = login.cookie!;
    channelUid = (
      await create('channels', {
        name: 'Roles CTV',
        vastVersion: '4.2',
        demandMode: 'auction',
        timeoutMs: 1000,
        demand: [],
      })
    ).uid;
  }, 120_000);

  afterAll(async () => {
    await Promise.all([api, ...edges].map((node) => node?.stop()));
    await demand?.close();
    await own?.stop();
    if (databaseUrl) await onPgServer(serverUrl, `DROP DATABASE IF EXISTS "${pgDatabase}" WITH (FORCE)`);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const create = async (kind: string, body: Record<string, unknown>): Promise<{ id: number; uid: string }> => {
    const res = await call(api.port, `/api/demand/${kind}`, { method: 'POST', cookie, body });
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
  const vastPath = (device: string, uid = channelUid) => `/vast/${uid}?w=640&h=360&ip=8.8.8.8&device_id=${device}`;
  const anyEdge = () => edges[Math.random() < 0.5 ? 0 : 1]!;
  /** A campaign's spend today as the api process reads it from Redis (the console's pacing), once it is `expected` or after 5 s. */
  const spentToday = async (campaignId: number, expected: number): Promise<number> => {
    let spent = -1;
    for (const until = Date.now() + 5_000; Date.now() < until && spent !== expected; await sleep(100)) {
      const res = await call(api.port, `/api/demand/campaigns/pacing?ids=${campaignId}`, { cookie });
      if (res.status === 200)
        spent = (JSON.parse(res.body) as { campaigns: { spentToday: number }[] }).campaigns[0]!.spentToday;
    }
    return spent;
  };

  it('serves on both edges what the api process wrote, and stops serving what it paused, each within a second', {
    timeout: 30_000,
  }, async () => {
    const spot = await creative('switch-spot');
    const campaign = await create('campaigns', {
      name: 'Switched',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: BID,
      channelScope: 'all',
      pacing: 'asap',
      creativeIds: [spot.id],
    });
    /** For each edge, the ms from `since` until `serving(answer)` held (null: not within 3 s). */
    const untilEvery = async (serving: (body: string) => boolean, since: number): Promise<(number | null)[]> =>
      Promise.all(
        edges.map(async (edge, e) => {
          for (let i = 0; Date.now() - since < 3_000; i++) {
            const res = await call(edge.port, vastPath(`switch-${e}-${i}`));
            // a channel the api process wrote a moment ago may not have reached this edge yet: 404 until it does
            expect([200, 404]).toContain(res.status);
            if (res.status === 200 && serving(res.body)) return Date.now() - since;
            await sleep(10);
          }
          return null;
        }),
      );
    // the campaign was written through the api process: both edges serve it
    const served = await untilEvery((body) => body.includes('switch-spot.mp4'), Date.now());
    for (const ms of served) expect(ms).not.toBeNull();

    // paused through the api process (a bulk action, as the console's list does): both edges stop serving it
    const paused = await call(api.port, '/api/demand/campaigns/bulk', {
      method: 'POST',
      cookie,
      body: { action: 'pause', ids: [campaign.id] },
    });
    expect(paused.status, paused.body).toBe(200);
    const stopped = await untilEvery((body) => !body.includes('switch-spot.mp4'), Date.now());
    for (const ms of stopped) {
      expect(ms).not.toBeNull();
      expect(ms!).toBeLessThan(1_000);
    }
  });

  it(`holds a daily budget of ${BUDGET_IMPS} impressions across both edges: at most one in-flight impression over per process`, {
    timeout: 40_000,
  }, async () => {
    const spot = await creative('budget-spot');
    const campaign = await create('campaigns', {
      name: 'Twenty a day',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: BID,
      channelScope: 'all',
      dailyBudget: BUDGET_IMPS * PER_IMP,
      pacing: 'asap',
      creativeIds: [spot.id],
    });
    let counted = 0;
    /** Impressions counted by the tenant's day: two days when its midnight fell within the test (the next day's budget is a new one). */
    const countedOn = new Map<string, number>();
    let decisions = 0;
    let lastWin = Date.now();
    let spentAt = 0; // when the beacons counted reached the budget
    const beacons: Promise<void>[] = [];
    const started = Date.now();
    // two players per edge, each asking again as soon as it has its answer; the impression beacon of
    // every filled decision goes 0-30 ms later to either edge (a load balancer's choice), while the
    // players go on asking: the impressions in flight are those decided whose beacon is on its way
    const player = async (edge: Node, name: string) => {
      for (let i = 0; ; i++) {
        const now = Date.now();
        // until 2 s of traffic after the budget was counted whole (a late win there would be overspend),
        // or 6 s without a win (an idle process's lease goes back after 5 s: docs/delivery.md), within 25 s
        if ((spentAt && now - spentAt > 2_000) || now - lastWin > 6_000 || now - started > 25_000) return;
        const res = await call(edge.port, vastPath(`${name}-${i}`));
        expect(res.status).toBe(200);
        const impression = impressionOf(res.body, 'budget-spot.mp4');
        if (!impression) {
          await sleep(20);
          continue;
        }
        decisions++;
        lastWin = Date.now();
        beacons.push(
          sleep(Math.random() * 30).then(async () => {
            const ev = await call(anyEdge().port, impression);
            expect(ev.status).toBe(200);
            counted++;
            const day = tenantDay();
            countedOn.set(day, (countedOn.get(day) ?? 0) + 1);
            if (countedOn.get(day) === BUDGET_IMPS) spentAt = Date.now();
          }),
        );
      }
    };
    await Promise.all(edges.flatMap((edge, e) => [player(edge, `b${e}a`), player(edge, `b${e}b`)]));
    await Promise.all(beacons);
    // every filled decision became one impression, each beacon counted once (a decision of its own)
    expect(counted).toBe(decisions);
    // the budget was reached, on no day overspent beyond the bound
    expect(Math.max(...countedOn.values())).toBeGreaterThanOrEqual(BUDGET_IMPS - 1);
    for (const [day, n] of countedOn)
      expect(n, `${n - BUDGET_IMPS} impressions over a budget of ${BUDGET_IMPS} on ${day}`).toBeLessThanOrEqual(
        BUDGET_IMPS + edges.length,
      );

    // the shared spend as the api process reads it from Redis (the console's pacing) is those impressions
    // (at most: in loaded full runs it was once 3 impressions short of the beacons counted, a
    // shortfall not explained yet; over the budget it has never been)
    const today = countedOn.get(tenantDay()) ?? 0;
    const spent = await spentToday(campaign.id, today * PER_IMP);
    expect(today === 0 || spent > 0, `shared spend ${spent} for ${today} impressions today`).toBe(true);
    expect(spent, `shared spend ${spent} for ${today} impressions today`).toBeLessThanOrEqual(today * PER_IMP);
    // and each edge's own view of the overspend (shared spend beyond its budgets, as of its last exchange) is within the bound
    for (const edge of edges) {
      const overspend = gauge((await call(edge.port, '/metrics')).body, 'adplane_delivery{stat="overspend"}');
      expect(overspend).not.toBeNull();
      expect(overspend!).toBeLessThanOrEqual(edges.length * PER_IMP);
    }
  });

  it(`holds a frequency cap of ${CAP} a day per viewer across both edges`, { timeout: 30_000 }, async () => {
    const spot = await creative('capped-spot');
    await create('campaigns', {
      name: 'Three per viewer',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: BID,
      channelScope: 'all',
      pacing: 'asap',
      frequencyCap: { count: CAP, periodHours: 24 },
      creativeIds: [spot.id],
    });
    /** One viewer's requests, each to the edge after the last, its beacon to the other; until refused 10 times in a row. */
    const watch = async (viewer: string): Promise<number> => {
      let views = 0;
      let refusedInARow = 0;
      for (let i = 0; refusedInARow < 10 && i < 100; i++) {
        const res = await call(edges[i % 2]!.port, vastPath(viewer));
        const impression = impressionOf(res.body, 'capped-spot.mp4');
        if (impression) {
          refusedInARow = 0;
          views++;
          expect((await call(edges[(i + 1) % 2]!.port, impression)).status).toBe(200);
        } else refusedInARow++;
        await sleep(50);
      }
      return views;
    };
    // both edges have the campaign before the viewers ask (each asked for a probe viewer of its own)
    for (const [e, edge] of edges.entries()) {
      let probe = 0;
      await probeUntil(
        `the capped campaign on edge ${e}`,
        async () =>
          impressionOf((await call(edge.port, vastPath(`cap-probe-${e}-${probe++}`))).body, 'capped-spot.mp4')
            ? true
            : null,
        5_000,
      );
    }
    const one = await watch('one-viewer');
    // docs/delivery.md, "Frequency caps": a viewer new to a process may get one beyond the cap there
    expect(one).toBeGreaterThanOrEqual(CAP);
    expect(one).toBeLessThanOrEqual(CAP + 1);
    // another viewer is counted apart
    const other = await watch('other-viewer');
    expect(other).toBeGreaterThanOrEqual(CAP);
    expect(other).toBeLessThanOrEqual(CAP + 1);
  });

  it(`holds a demand tag's QPS limit of ${TAG_QPS} across both edges`, { timeout: 30_000 }, async () => {
    const tag = await create('tags', {
      name: 'Five a second',
      vastUrl: `${demand.url}/empty`,
      price: { type: 'cpm', cpm: 1_000_000 },
      qpsLimit: TAG_QPS,
      timeoutMs: 500,
    });
    const channel = await create('channels', {
      name: 'Roles QPS',
      demandMode: 'auction',
      timeoutMs: 500,
      demand: [{ tagId: tag.id, priority: 1 }],
    });
    // until both edges have called the tag once (they have the channel and their first share)
    for (const edge of edges) {
      for (let i = 0, before = demand.calls.length; demand.calls.length === before && i < 100; i++) {
        await call(edge.port, vastPath(`q-warm-${i}`, channel.uid));
        await sleep(20);
      }
    }
    await sleep(1_000);
    // four players, two per edge, as fast as they are answered, for 4 s; the tag's calls counted per second
    const start = Date.now();
    const calls: number[] = [];
    const asked: number[] = [];
    const at = () => Math.floor((Date.now() - start) / 1000);
    const tagCalls = () => demand.calls.filter((u) => u.pathname === '/empty').length;
    let before = tagCalls();
    const ticker = setInterval(() => {
      const second = at() - 1;
      if (second >= 0 && calls[second] === undefined) {
        calls[second] = tagCalls() - before;
        before += calls[second];
      }
    }, 20);
    const player = async (edge: Node, name: string) => {
      for (let i = 0; Date.now() - start < 4_000; i++) {
        const second = at();
        asked[second] = (asked[second] ?? 0) + 1;
        expect((await call(edge.port, vastPath(`${name}-${i}`, channel.uid))).status).toBe(200);
      }
    };
    await Promise.all(edges.flatMap((edge, e) => [player(edge, `q${e}a`), player(edge, `q${e}b`)]));
    await sleep(50);
    clearInterval(ticker);
    // docs/delivery.md, "QPS limits": a bucket 200 ms deep, so at most about 1.2x the limit in any
    // second, plus one per process for limits under 5 per process
    const seconds = calls.slice(0, 4);
    expect(seconds).toHaveLength(4);
    for (const [s, n] of seconds.entries()) {
      expect(
        n,
        `second ${s}: ${n} calls of ${asked[s]} requests (per second: calls ${seconds.join(', ')}; requests ${asked.join(', ')})`,
      ).toBeLessThanOrEqual(Math.floor(TAG_QPS * 1.2) + edges.length);
      expect(n).toBeGreaterThan(0);
    }
  });

  it.skipIf(!hasRedisServer())(
    'shows Redis down in each edge’s /healthz and /metrics, keeps serving and counting, and recovers and reconciles when Redis returns',
    { timeout: 40_000 },
    async () => {
      type Health = { status: string; delivery: { engine: string; redis: string; since: number | null } };
      const health = async (edge: Node) => {
        const res = await call(edge.port, '/healthz');
        expect(res.status, res.body).toBe(200);
        return JSON.parse(res.body) as Health;
      };
      const metricsOf = async (edge: Node) => (await call(edge.port, '/metrics')).body;
      /** Until every edge shows `state` in both, within 10 s (an edge exchanges at least once a second, every 100 ms while busy). */
      const untilEvery = async (state: 'ok' | 'down') => {
        for (const edge of edges) {
          let seen: [string, number | null] = ['', null];
          for (const until = Date.now() + 10_000; Date.now() < until; await sleep(100)) {
            seen = [
              (await health(edge)).delivery.redis,
              gauge(await metricsOf(edge), 'adplane_delivery_redis_up{engine="redis"}'),
            ];
            if (seen[0] === state && seen[1] === (state === 'ok' ? 1 : 0)) break;
          }
          expect(seen).toEqual([state, state === 'ok' ? 1 : 0]);
        }
      };
      const spot = await creative('outage-spot');
      const campaign = await create('campaigns', {
        name: 'Through the outage',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: 2 * BID,
        channelScope: 'all',
        pacing: 'asap',
        creativeIds: [spot.id],
      });
      const price = (2 * BID) / 1000;
      /** The tenant's day of each impression counted: today's spend is that of today's. */
      const counted: string[] = [];
      const spendToday = () => counted.filter((day) => day === tenantDay()).length * price;
      /** One impression of the campaign decided by edge `e` (within 3 s: the edges may not have it yet), its beacon counted by the other edge. */
      const impression = async (e: number, viewer: string) => {
        let won: string | null = null;
        for (const until = Date.now() + 3_000; !won && Date.now() < until; await sleep(20)) {
          const res = await call(edges[e]!.port, vastPath(viewer));
          expect(res.status).toBe(200);
          won = impressionOf(res.body, 'outage-spot.mp4');
        }
        expect(won, `edge ${e} did not serve the campaign`).not.toBeNull();
        expect((await call(edges[1 - e]!.port, won!)).status).toBe(200);
        counted.push(tenantDay());
      };
      for (const edge of edges)
        expect(await health(edge)).toMatchObject({ status: 'ok', delivery: { engine: 'redis', redis: 'ok' } });
      await impression(0, 'before-outage');
      // in Redis (the api process reads it there) before Redis dies
      expect(await spentToday(campaign.id, spendToday())).toBe(spendToday());
      await own!.kill();
      await untilEvery('down');
      for (const [e, edge] of edges.entries()) {
        // the health check still passes: the edge serves on local counters, and counts what it serves
        expect((await health(edge)).status).toBe('ok');
        expect(gauge(await metricsOf(edge), 'adplane_delivery{stat="exchangeFailures"}')).toBeGreaterThan(0);
        await impression(e, `during-outage-${e}`);
        // logged once, at warn (docs/delivery.md, "Redis down")
        expect(
          edge.log.filter((line) => line.includes('delivery counters: Redis unreachable')),
          edge.log.join('\n'),
        ).toHaveLength(1);
      }

      // back, empty (no persistence): the edges reconnect, raise it back to the spend they last saw and send what they counted meanwhile
      await own!.start();
      await untilEvery('ok');
      // What the edges counted during the outage arrives, on top of the impression from before it,
      // which the edge that had seen it sends back (docs/delivery.md, "Redis down", "Reconcile"; it was
      // lost when that edge had dropped its idle account: src/delivery/redisRestore.test.ts)
      expect(counted).toHaveLength(3);
      const spent = await spentToday(campaign.id, spendToday());
      expect(spent, `spent today ${spent}, impressions of ${price} counted: ${counted.join(', ')}`).toBe(spendToday());
    },
  );
});
