import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { childPids } from '../../packages/server/test/adplaneCommand.js';

/**
 * The workers benchmark's servers: the real `adplane` command (packages/server/src/main.ts) as an
 * operator starts it, `--role edge --workers N`, over a filled store; CPU time read from /proc; and a
 * driver that decides and counts impressions as fast as the server answers (the overspend case).
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface EdgeServer {
  proc: ChildProcess;
  port: number;
  /** The primary and its workers (one pid with --workers 1). */
  pids(): number[];
  stop(): Promise<void>;
}

export async function startEdge(o: {
  dataDir: string;
  port: number;
  workers: number;
  env?: Record<string, string>;
  cpus?: string;
}): Promise<EdgeServer> {
  // BENCH_NODE_FLAGS: node options for the primary, which its workers inherit (--cpu-prof --cpu-prof-dir=... profiles each process)
  const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const args = [
    ...nodeFlags,
    '--import',
    'tsx',
    join(ROOT, 'packages/server/src/main.ts'),
    '--role',
    'edge',
    '--workers',
    String(o.workers),
  ];
  // the store the bench filled (SQLite and DuckDB in dataDir), whatever the shell running it points at
  const env = {
    ...process.env,
    DATA_DIR: o.dataDir,
    DATABASE_URL: '',
    CLICKHOUSE_URL: '',
    PORT: String(o.port),
    ADPLANE_HOST: 'http://127.0.0.1:1',
    ADPLANE_DEMO: '0',
    ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'warn',
    ADPLANE_WEB_DIST: join(o.dataDir, 'none'),
    REDIS_URL: '',
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    ...o.env,
  };
  // taskset before node: the primary and every worker it forks inherit the CPU set
  const proc = o.cpus
    ? spawn('taskset', ['-c', o.cpus, process.execPath, ...args], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      })
    : spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the edge did not listen within 180 s')), 180_000);
    void exited.then(() => reject(new Error('the edge exited before listening')));
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (line.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
      // the workers' warnings and errors (pino on stdout): a Redis outage during a run must show
      else if (/"level":[456]\d/.test(line)) process.stderr.write(`server: ${line}\n`);
    });
  });
  const primary = proc.pid!;
  return {
    proc,
    port: o.port,
    pids: () => [primary, ...childPids(primary)],
    async stop() {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The user and system CPU seconds a `/proc/.../stat` line counts (its fields after the name). */
function statTimes(stat: string): { user: number; system: number } {
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

function statCpuSeconds(stat: string): number {
  const { user, system } = statTimes(stat);
  return user + system;
}

/** A process's CPU times so far; zeros once it is gone. */
function processTimes(pid: number): { user: number; system: number } {
  try {
    return statTimes(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return { user: 0, system: 0 };
  }
}

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  const { user, system } = processTimes(pid);
  return user + system;
}

/** The kernel's part of cpuSeconds (system time: the sockets' syscalls, and on loopback the TCP work of both ends of a connection). */
export function kernelCpuSeconds(pid: number): number {
  return processTimes(pid).system;
}

/** CPU seconds of a process's threads so far: the event loop's, and the others' summed by thread name (V8's collector, DuckDB's and libuv's workers). */
export function threadCpuSeconds(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        // node's helper threads carry the process's name: the event loop is the one whose id is the process's
        const name = tid === String(pid) ? 'event loop' : comm === 'node' ? 'other threads' : comm;
        out[name] = (out[name] ?? 0) + statCpuSeconds(stat);
      } catch {
        // the thread ended
      }
    }
  } catch {
    // the process ended
  }
  return out;
}

/** What each thread name used between two readings of threadCpuSeconds, largest first (0.01 s and more). */
export function threadCpuSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const used = Object.entries(after).map(
    ([name, s]) => [name, Math.round((s - (before[name] ?? 0)) * 100) / 100] as const,
  );
  return Object.fromEntries(used.filter(([, s]) => s >= 0.01).sort((a, b) => b[1] - a[1]));
}

interface Answer {
  status: number;
  body: string;
  worker?: string;
}

/**
 * Each worker's delivery counts (adplane_delivery{stat} of /metrics), asked on new connections until
 * every worker answered once: what explains an overspend (commits unreserved, over the allowance,
 * exchange failures).
 */
export async function deliveryStatsByWorker(
  port: number,
  workers: number,
): Promise<Record<string, Record<string, number>>> {
  const seen: Record<string, Record<string, number>> = {};
  for (let i = 0; i < 20 * workers && Object.keys(seen).length < workers; i++) {
    const agent = new Agent({ keepAlive: false });
    const res = await get(agent, port, '/metrics');
    agent.destroy();
    const stats: Record<string, number> = {};
    for (const m of res.body.matchAll(/^adplane_delivery\{stat="(\w+)"\} (\S+)$/gm)) stats[m[1]!] = Number(m[2]);
    seen[res.worker || '0'] = stats;
  }
  return seen;
}

/** One GET on `agent`'s connections: the status, body and the worker that answered. */
export function get(agent: Agent, port: number, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          worker: String(res.headers['x-adplane-worker'] ?? ''),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Spends a daily budget at full load: `concurrency` loops, each asking for an ad and, when the
 * budgeted campaign's creative (`media`) fills, firing its impression beacon at once (on its own
 * connections: node's cluster gives each connection to a worker in turn, so decision and beacon meet
 * any two workers). Runs until nothing filled for `quietMs`, or `maxMs`. Answers the impressions
 * billed (beacons answered 200: each counts once) and the requests made.
 */
export async function spendBudget(o: {
  port: number;
  paths: string[];
  media: string;
  concurrency: number;
  quietMs: number;
  maxMs: number;
}): Promise<{ impressions: number; requests: number; fills: number; ms: number }> {
  const start = Date.now();
  let lastFill = start;
  let impressions = 0;
  let requests = 0;
  let fills = 0;
  let next = 0;
  const agents = [
    new Agent({ keepAlive: true, maxSockets: o.concurrency }),
    new Agent({ keepAlive: true, maxSockets: o.concurrency }),
  ];
  const loop = async (i: number) => {
    while (Date.now() - lastFill < o.quietMs && Date.now() - start < o.maxMs) {
      const vast = await get(agents[i % 2]!, o.port, o.paths[next++ % o.paths.length]!);
      requests++;
      if (!vast.body.includes(o.media)) continue;
      fills++;
      lastFill = Date.now();
      const url = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(vast.body)?.[1];
      if (!url) continue;
      const ev = await get(agents[(i + 1) % 2]!, o.port, url.slice(url.indexOf('/ev')));
      if (ev.status === 200) impressions++;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, (_, i) => loop(i)));
  for (const a of agents) a.destroy();
  return { impressions, requests, fills, ms: Date.now() - start };
}
