import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  type Admission,
  type DeliveryCounters,
  type DeliveryHealth,
  type DeliveryLog,
  type Refusal,
} from '../src/delivery/types.js';
import { openDeliveryCounters, type OpenDeliveryOptions } from '../src/delivery/openDelivery.js';
import { RedisShared } from '../src/delivery/redisShared.js';
import { type Dialect } from '../src/store/db.js';
import { openTestStore, postgresMissingOnCi, type TestStore } from './helpers.js';
import { MemoryCounterStore, MemoryShared, type SharedCounters } from '../src/delivery/sharedCounters.js';

type DeliveryEngineName = 'memory' | 'redis';

/** A logger that keeps its lines, so a test can see what was logged (and how often). */
export interface TestLog extends DeliveryLog {
  lines: { level: 'info' | 'warn' | 'error'; msg: string; obj: object }[];
}

export function testLog(): TestLog {
  const lines: TestLog['lines'] = [];
  return {
    lines,
    info: (obj, msg) => lines.push({ level: 'info', msg, obj }),
    warn: (obj, msg) => lines.push({ level: 'warn', msg, obj }),
    error: (obj, msg) => lines.push({ level: 'error', msg, obj }),
  };
}

/** One deployment: processes opened on it share its counters (one in-process store, or one Redis key prefix). */
export interface TestDeployment {
  /** Open one "process" on the deployment (closed after the block). */
  open(options?: Partial<OpenDeliveryOptions>): Promise<DeliveryCounters>;
  /** One process's view of the shared counters alone, without an engine (connected on Redis; closed after the block). */
  openShared(pid: string): Promise<SharedCounters>;
  /**
   * The shared counters lose their data: the deployment's Redis keys are deleted (a Redis flushed,
   * or restarted without persistence), or the in-process store is replaced by an empty one (a new
   * generation, as at a restart): views opened before keep the old store, so open them again.
   */
  loseShared(): Promise<void>;
  /** The live leases of a budget at `now`, by process (read from the store itself, not through an exchange). */
  leases(key: string, now: number): Promise<Record<string, number>>;
  readonly redisUrl: string | null;
  readonly prefix: string;
}

export interface TestDelivery {
  readonly engine: DeliveryEngineName;
  /** A fresh deployment: nothing counted yet. */
  deployment(): TestDeployment;
}

const testPrefix = () => `adplane-test:${process.pid}:${randomBytes(4).toString('hex')}:`;

/** Deletes every key under `prefix` (a test's namespace). */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = await testRedisClient(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** A test's own ioredis connection (to read, flush or delete keys), connected; the caller disconnects it. */
export async function testRedisClient(url: string): Promise<Redis> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    throw err;
  }
  return client;
}

/** A budget's live leases in an in-process store, by process. */
export function memoryLeases(store: MemoryCounterStore, key: string, now: number): Record<string, number> {
  return Object.fromEntries(
    [...(store.leases.get(key) ?? [])].filter(([, l]) => l.expires > now).map(([pid, l]) => [pid, l.amount]),
  );
}

/** A budget's live leases in Redis (`<budget key>:l` amounts, `:e` expiries), by process. */
async function redisLeases(url: string, budgetKey: string, now: number): Promise<Record<string, number>> {
  const redis = await testRedisClient(url);
  try {
    const [amounts, expiries] = [await redis.hgetall(`${budgetKey}:l`), await redis.hgetall(`${budgetKey}:e`)];
    return Object.fromEntries(
      Object.entries(amounts)
        .filter(([pid]) => Number(expiries[pid] ?? 0) > now)
        .map(([pid, amount]) => [pid, Number(amount)]),
    );
  } finally {
    redis.disconnect();
  }
}

function openTestDelivery(engine: DeliveryEngineName): TestDelivery {
  const opened: { close(): Promise<void> }[] = [];
  const prefixes: string[] = [];
  const redisUrl = engine === 'redis' ? (process.env.REDIS_URL ?? '') : null;
  afterAll(async () => {
    for (const counters of opened) await counters.close();
    if (redisUrl) for (const prefix of prefixes) await dropRedisPrefix(redisUrl, prefix);
  });
  return {
    engine,
    deployment() {
      const prefix = testPrefix();
      prefixes.push(prefix);
      let memoryStore = new MemoryCounterStore();
      return {
        redisUrl,
        prefix,
        async open(options = {}) {
          const counters = await openDeliveryCounters(
            { redisUrl },
            { log: testLog(), prefix, memoryStore, ...options },
          );
          opened.push(counters);
          return counters;
        },
        async openShared(pid) {
          if (!redisUrl) return new MemoryShared(memoryStore, pid, 5_000);
          const shared = new RedisShared({ url: redisUrl, prefix, pid, leaseTtlMs: 5_000 });
          opened.push(shared);
          if (!(await shared.connect())) throw new Error(`Redis at ${redisUrl} did not answer`);
          return shared;
        },
        async loseShared() {
          if (redisUrl) await dropRedisPrefix(redisUrl, prefix);
          else memoryStore = new MemoryCounterStore();
        },
        async leases(key, now) {
          return redisUrl ? redisLeases(redisUrl, `${prefix}b:${key}`, now) : memoryLeases(memoryStore, key, now);
        },
      };
    },
  };
}

/**
 * Run `fn`'s tests on the in-process counters and, when REDIS_URL is set, on Redis (a key prefix of
 * their own, deleted after), as forEachStore does for SQLite and PostgreSQL. With CI=true and no
 * REDIS_URL, the Redis block fails.
 */
export function forEachDeliveryEngine(fn: (t: TestDelivery) => void): void {
  describe('memory', () => fn(openTestDelivery('memory')));
  if (process.env.REDIS_URL) {
    describe('redis', () => fn(openTestDelivery('redis')));
  } else {
    redisMissingOnCi();
  }
}

/**
 * The tests of an API over a config store (SQLite, PostgreSQL) and delivery control's counters
 * (in process, Redis) on pairs that give each store and each engine a block, not on their cross
 * product: the counters never read the config store (delivery control is handed the snapshot's
 * campaigns and caps), so what one does does not depend on the other's kind. The in-process
 * counters meet SQLite (the embedded set-up), Redis meets PostgreSQL (the scale-out set-up), or
 * SQLite where DATABASE_URL is unset. What CI lacks fails as in forEachStore and forEachDeliveryEngine.
 */
export function forEachStoreAndDeliveryEngine(fn: (engine: TestDelivery, t: TestStore) => void): void {
  const pair = (engine: DeliveryEngineName, store: Dialect) =>
    describe(`${engine} + ${store}`, () => fn(openTestDelivery(engine), openTestStore(store, true)));
  pair('memory', 'sqlite');
  const postgres = Boolean(process.env.DATABASE_URL);
  if (process.env.REDIS_URL) pair('redis', postgres ? 'postgres' : 'sqlite');
  else {
    redisMissingOnCi();
    if (postgres) pair('memory', 'postgres');
  }
  if (!postgres) postgresMissingOnCi();
}

/** With CI=true and no REDIS_URL, a block whose one test fails, saying how to start Redis. */
function redisMissingOnCi(): void {
  if (process.env.CI === 'true') {
    describe('redis', () => {
      it('needs REDIS_URL on CI', () => {
        throw new Error(
          'CI=true but REDIS_URL is unset: the Redis delivery tests cannot run. Start it with .ci/redis.sh and set REDIS_URL=redis://127.0.0.1:16379 (see .ci/run).',
        );
      });
    });
  }
}

/** Whether Debian's redis-server binary is on this machine. */
export function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A redis-server of a test's own (random port, no persistence, files in a temporary folder), to kill and restart. */
export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  start(): Promise<void>;
  /** SIGKILL: no goodbye to the clients. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The Redis a test's program runs on: a redis-server of the test's own when the binary is here (the
 * program uses the default key prefix, which no other test may see), else REDIS_URL. `own` is the
 * server to stop (or kill) afterwards, null for REDIS_URL's.
 */
export async function redisForProgram(): Promise<{ url: string; own: OwnRedis | null }> {
  if (!hasRedisServer()) return { url: process.env.REDIS_URL ?? '', own: null };
  const own = await ownRedisServer();
  await own.start();
  return { url: own.url, own };
}

/**
 * The ports of the tests' own redis-servers: below Linux's ephemeral range (32768-60999 by default),
 * so that no port the system hands out (a listen on port 0 in a test file running beside this one,
 * an outgoing connection) can land on one, in particular while its server is down between a kill
 * and a restart on the same port. Test files running at once pick at random among them.
 */
const OWN_REDIS_PORTS = { from: 20_000, count: 10_000 };

/** Whether nothing listens on 127.0.0.1:`port` now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createTcpServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

async function unusedOwnRedisPort(): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const port = OWN_REDIS_PORTS.from + randomInt(OWN_REDIS_PORTS.count);
    if (await portIsFree(port)) return port;
  }
  throw new Error(
    `no free port for a redis-server of the test's own in ${OWN_REDIS_PORTS.from}-${OWN_REDIS_PORTS.from + OWN_REDIS_PORTS.count - 1}`,
  );
}

export async function ownRedisServer(): Promise<OwnRedis> {
  const port = await unusedOwnRedisPort();
  const dir = mkdtempSync(join(tmpdir(), 'adplane-redis-'));
  let child: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  /** Whether the redis-server answering on the port is `pid` (not one that another test file started there meanwhile). */
  const answersAs = async (pid: number): Promise<boolean> => {
    // (commandTimeout: a listener there that is not a redis-server never answers)
    const probe = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 500,
      commandTimeout: 500,
    });
    probe.on('error', () => {});
    try {
      await probe.connect();
      return /^process_id:(\d+)\r?$/m.exec(await probe.info('server'))?.[1] === String(pid);
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  };
  const kill = async () => {
    const running = child;
    if (!running) return;
    // (a server that exited by itself, one that could not bind the port, has no exit left to wait for)
    if (running.exitCode === null && running.signalCode === null) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    }
    child = null;
  };
  return {
    url,
    port,
    async start() {
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      );
      child = started;
      let exit: string | null = null;
      started.once('exit', (code, signal) => (exit = `${code ?? signal}`));
      for (let i = 0; i < 100 && exit === null; i++) {
        if (await answersAs(started.pid!)) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      await kill();
      throw new Error(
        exit === null
          ? `redis-server did not start on port ${port}`
          : `redis-server exited (${exit}) at its start on port ${port}: is the port taken?`,
      );
    },
    kill,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A simulated clock. */
export function testClock(start: number): { now: () => number; advance(ms: number): number; set(ms: number): number } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms), set: (ms) => (t = ms) };
}

/**
 * A describe block with a redis-server of its own (started before its tests, stopped after), which
 * `fn`'s tests may kill and restart: `redis` stands for that server once the block has started it.
 * Without Debian's binary the block is skipped, except with CI=true (.ci/run always installs it),
 * where it fails.
 */
export function describeWithOwnRedis(title: string, fn: (redis: OwnRedis) => void): void {
  const present = hasRedisServer();
  let own: OwnRedis | null = null;
  const started = (): OwnRedis => {
    if (!own) throw new Error('the own redis-server is not started yet: use it inside a test');
    return own;
  };
  const redis: OwnRedis = {
    get url() {
      return started().url;
    },
    get port() {
      return started().port;
    },
    start: () => started().start(),
    kill: () => started().kill(),
    stop: () => started().stop(),
  };
  describe.skipIf(!present && process.env.CI !== 'true')(title, () => {
    beforeAll(async () => {
      if (!present) throw new Error('CI=true but redis-server is not installed: .ci/redis.sh installs it');
      own = await ownRedisServer();
      await own.start();
    });
    afterAll(async () => {
      await own?.stop();
    });
    fn(redis);
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits (in real time) until `ok()`, failing after `ms` with "timed out waiting for <what>". */
export async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * One take (an admission, a tag request, a post-bid take), tried again after `wait()` while it is
 * refused for a lease still on its way (`budget_lease`), `tries` times at most: the last refusal.
 */
export async function admitThroughLease(
  take: () => Refusal | null,
  wait: () => Promise<unknown>,
  tries = 20,
): Promise<Refusal | null> {
  let refusal = take();
  for (let i = 0; i < tries && refusal === 'budget_lease'; i++) {
    await wait();
    refusal = take();
  }
  return refusal;
}

/**
 * Starts the killed `redis` again and lets the processes run (`step()` between looks, 100 times at
 * most) until each says Redis is ok: their `health().redis` as it is then.
 */
export async function restartRedisAndRejoin(
  redis: OwnRedis,
  processes: DeliveryCounters[],
  step: () => Promise<unknown>,
): Promise<DeliveryHealth['redis'][]> {
  await redis.start();
  const states = () => processes.map((p) => p.health().redis);
  for (let i = 0; i < 100 && states().some((s) => s !== 'ok'); i++) await step();
  return states();
}

let decisions = 0;
/** A decision: admit, letting a background exchange run (up to three) while the lease is on its way (Redis). */
export async function admitDecision(
  counters: DeliveryCounters,
  admission: Admission,
  now: number,
  id = `d${decisions++}`,
): Promise<Refusal | null> {
  let refusal = counters.admit(id, admission, now);
  for (let i = 0; i < 3 && refusal === 'budget_lease'; i++) {
    await counters.flush();
    refusal = counters.admit(id, admission, now);
  }
  return refusal;
}

/** A decision and its impression at once. */
export async function serveDecision(
  counters: DeliveryCounters,
  admission: Admission,
  now: number,
): Promise<Refusal | null> {
  const id = `d${decisions++}`;
  const refusal = await admitDecision(counters, admission, now, id);
  if (!refusal) counters.commit(id, admission, now);
  return refusal;
}
