import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, it } from 'vitest';
import { type DeliveryCounters, type DeliveryLog } from '../src/delivery/types.js';
import { openDeliveryCounters, type OpenDeliveryOptions } from '../src/delivery/openDelivery.js';
import { MemoryCounterStore } from '../src/delivery/sharedCounters.js';

export type DeliveryEngineName = 'memory' | 'redis';

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
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
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

function openTestDelivery(engine: DeliveryEngineName): TestDelivery {
  const opened: DeliveryCounters[] = [];
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
      const memoryStore = new MemoryCounterStore();
      return {
        redisUrl,
        prefix,
        async open(options = {}) {
          const counters = await openDeliveryCounters({ redisUrl }, { log: testLog(), prefix, memoryStore, ...options });
          opened.push(counters);
          return counters;
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
  } else if (process.env.CI === 'true') {
    describe('redis', () => {
      it('needs REDIS_URL on CI', () => {
        throw new Error('CI=true but REDIS_URL is unset: the Redis delivery tests cannot run. Start it with .ci/redis.sh and set REDIS_URL=redis://127.0.0.1:16379 (see .ci/run).');
      });
    });
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
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

export async function ownRedisServer(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'adplane-redis-'));
  let child: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  const ping = async (): Promise<boolean> => {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
    probe.on('error', () => {});
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  };
  const kill = async () => {
    if (!child) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = null;
  };
  return {
    url,
    port,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
      for (let i = 0; i < 100; i++) {
        if (await ping()) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`redis-server did not start on port ${port}`);
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
