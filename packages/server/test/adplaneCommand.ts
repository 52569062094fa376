import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
// (not from main.ts: importing it starts the program where it is bundled, as bench/ bundles this module)
import { WORKER_HEADER } from '../src/cluster/protocol.js';
import { freePort } from './localServer.js';

/** The `adplane` command running in a child process on a free port (workers.test, productionBuild.test, rolesOnRedis.test). */
export interface RunningAdplane {
  proc: ChildProcess;
  port: number;
  /** The exit code, once the process is gone. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts node with `args` (the sources through tsx, or the bundle) on a free port, without the
 * machine's Redis, ClickHouse or PostgreSQL unless `env` gives them, and waits for the line saying
 * it listens with `workers` workers (1: the single process of `--workers 1`, whose line names no workers).
 * A port taken between its pick and the listen (EADDRINUSE: another test's process got it) is picked
 * again, twice at most.
 */
export async function startAdplane(
  args: string[],
  env: Record<string, string>,
  options: { cwd: string; workers: number },
): Promise<RunningAdplane> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const started = await startOnFreePort(args, env, options);
    if (started !== 'port_taken') return started;
  }
  throw new Error(`adplane ${args.join(' ')}: three ports picked were taken before it listened`);
}

async function startOnFreePort(
  args: string[],
  env: Record<string, string>,
  options: { cwd: string; workers: number },
): Promise<RunningAdplane | 'port_taken'> {
  const port = await freePort();
  const proc = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: {
      ...process.env,
      PORT: String(port),
      ADPLANE_HOST: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
      REDIS_URL: '',
      CLICKHOUSE_URL: '',
      DATABASE_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // its errors still reach the test's output; a taken port is told apart by them
  let portTaken = false;
  proc.stderr!.on('data', (chunk: Buffer) => {
    if (chunk.includes('EADDRINUSE')) portTaken = true;
    process.stderr.write(chunk);
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const listening = options.workers > 1 ? `${options.workers} workers) listening on` : ') listening on';
  const outcome = await new Promise<'listening' | 'port_taken'>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`adplane ${args.join(' ')} did not listen within 90 s`)), 90_000);
    void exited.then((code) => {
      clearTimeout(timer);
      if (portTaken) resolve('port_taken');
      else reject(new Error(`adplane ${args.join(' ')} exited (${code}) before listening`));
    });
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (line.includes(listening)) {
        clearTimeout(timer);
        resolve('listening');
      }
    });
  });
  if (outcome === 'port_taken') return outcome;
  return {
    proc,
    port,
    exited,
    stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** The processes whose parent is `pid` (a primary's workers), read from /proc. */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** An answer of the running program: its status, the worker that answered (its header), the body and the session cookie it set. */
export interface ProgramAnswer {
  status: number;
  worker: string;
  body: string;
  cookie: string | null;
}

/**
 * One request on a connection of its own (so that a cluster picks the next worker for it), with a
 * JSON body and a session cookie when given.
 */
export function callProgram(
  port: number,
  path: string,
  options: { method?: string; cookie?: string; body?: unknown } = {},
): Promise<ProgramAnswer> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? null : JSON.stringify(options.body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        agent: false,
        headers: {
          ...(options.cookie ? { cookie: options.cookie } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const set = res.headers['set-cookie']?.[0];
          resolve({
            status: res.statusCode ?? 0,
            worker: String(res.headers[WORKER_HEADER] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
            cookie: set ? set.split(';')[0]! : null,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload ?? undefined);
  });
}

/**
 * Asks `probe` every 50 ms until it gives a value (null, or a throw, is "not yet"), failing after `ms`
 * with "timed out waiting for <what>": for a program's state seen from outside (it listens, a
 * channel reached its snapshot).
 */
export async function probeUntil<T>(what: string, probe: () => Promise<T | null>, ms = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const got = await probe().catch(() => null);
    if (got !== null) return got;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
