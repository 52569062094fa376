/**
 * What the edge benchmarks share: output, a seeded random, entity writes, and the child processes
 * (the server, the bare baseline, local demand) pinned to their cores and asked questions over IPC.
 */
import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Session } from 'node:inspector';
import { fileURLToPath } from 'node:url';
import { RESOURCES } from '@adplane/shared';
import { OWN_CORE_V8_FLAGS } from '../../packages/server/src/cluster/workerFlags.js';
import { serverPath } from '../../packages/server/src/serverRoot.js';
import { type EntityWrite } from '../../packages/server/src/store/entities.js';
import { type EntityKind } from '../../packages/server/src/store/entityTables.js';
import { cpuSeconds, kernelCpuSeconds, threadCpuSeconds, threadCpuSince } from '../workers/servers.js';

export const say = (text: string) => process.stdout.write(`${text}\n`);
export const sayTable = (rows: Record<string, Record<string, unknown>>) => {
  for (const [name, row] of Object.entries(rows))
    say(
      `${name.padEnd(14)} ${Object.entries(row)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join('  ')}`,
    );
};

/** What a sampling heap profile keeps: everything allocated, what outlived the young generation (promoted), or what is still alive. */
export type HeapSampled = 'allocated' | 'promoted' | 'live';

/**
 * Starts V8's sampling heap profiler in this process (an allocation about every `interval` bytes
 * sampled); the answer stops it and returns the profile (open it in DevTools' Memory tab).
 * `promoted` keeps the samples no scavenge collected: what outlived the young generation, dead or
 * alive at the end, which is what makes the full collections come.
 */
export async function startHeapSampling(
  sampled: HeapSampled,
  interval = 4096,
): Promise<() => Promise<{ head: HeapNode }>> {
  const session = new Session();
  session.connect();
  const post = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post('HeapProfiler.startSampling', {
    samplingInterval: interval,
    includeObjectsCollectedByMajorGC: sampled !== 'live',
    includeObjectsCollectedByMinorGC: sampled === 'allocated',
  });
  return async () => {
    const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: { head: HeapNode } };
    session.disconnect();
    return profile;
  };
}

export interface HeapNode {
  selfSize: number;
  children: HeapNode[];
}

/** The bytes a sampling heap profile holds. */
export const sampledBytes = (node: HeapNode): number =>
  node.children.reduce((sum, c) => sum + sampledBytes(c), node.selfSize);

/** The machine a run measured on and what else ran meanwhile (load averages before and after), as each result records it. */
export function machineFacts(loadAverageBefore: number[], note: string) {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? '',
    node: process.version,
    loadAverageBefore,
    loadAverageAfter: loadavg(),
    note,
  };
}

/** Writes a run's result to bench/results/<name>.json (in git: the docs quote it). */
export function writeResult(name: string, result: unknown): void {
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}.json`, `${JSON.stringify(result, null, 2)}\n`);
}

export function rnd(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1_664_525 + 1_013_904_223) >>> 0) / 2 ** 32;
}

export function toWrite(kind: EntityKind, value: Record<string, unknown>): EntityWrite {
  const def = RESOURCES[kind];
  const { name, status, ...data } = value;
  const refs = def.refs.flatMap((ref) =>
    [...new Set(ref.ids(value))].map((id) => ({ field: ref.field, kind: ref.kind, id })),
  );
  return { name: String(name), status: status === 0 ? 0 : 1, subId: null, advId: null, data, refs };
}

export function pin(pid: number, cpu: number): void {
  spawnSync('taskset', ['-acp', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** The children a run started: stopped when it ends, however it ends (a failed run left its servers running). */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const proc of started) if (proc.exitCode === null && proc.signalCode === null) proc.kill();
});

/** A child process on the same loader as this one (tsx), or on plain node (`plain`: a bundle). */
export function child(
  args: string[],
  extraExecArgv: string[] = [],
  plain = false,
): Promise<{ proc: ChildProcess; msg: Record<string, unknown> }> {
  const proc = fork(args[0]!, args.slice(1), {
    execArgv: [...(plain ? [] : process.execArgv), ...extraExecArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env },
  });
  started.add(proc);
  proc.once('exit', () => started.delete(proc));
  return new Promise((resolve, reject) => {
    proc.once('message', (msg) => resolve({ proc, msg: msg as Record<string, unknown> }));
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

/**
 * The server under test (edge.bench.ts `--serve`: the real app over the filled store), run as
 * production runs it: bundled by the server's build (src/scripts/buildServer.ts) and started by plain
 * node, without the TypeScript loader. `BENCH_TSX=1` runs the sources through tsx instead.
 */
export async function serverChild(
  extraExecArgv: string[],
): Promise<{ proc: ChildProcess; msg: Record<string, unknown> }> {
  const entry = fileURLToPath(new URL('../edge.bench.ts', import.meta.url));
  if (process.env.BENCH_TSX === '1') return child([entry, '--serve'], extraExecArgv);
  // imported here, not at the top: the server child (which imports this module) never loads esbuild
  const { bundleServer } = await import('../../packages/server/src/scripts/buildServer.js');
  const bundle = await bundleServer(entry, serverPath('dist/bench-edge.mjs'));
  // --expose-gc only for the last question ('memory': the live heap after a full collection)
  // with glibc's arenas capped as `npm run serve` caps them (README), unless the run says otherwise
  process.env.MALLOC_ARENA_MAX ??= '2';
  // the server has one core, as a worker of `--workers N` on N cores has: it runs with that worker's
  // V8 flags (cluster/workerFlags.ts; BENCH_NODE_FLAGS=--no-single-threaded-gc runs it without)
  return child([bundle, '--serve'], ['--expose-gc', ...OWN_CORE_V8_FLAGS, ...extraExecArgv], true);
}

/** A question to the server child; a child that exits or does not answer within a minute fails the run. */
export function ask(proc: ChildProcess, msg: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not answer '${msg}' within 60 s`)), 60_000);
    const exited = (code: number | null, signal: string | null) =>
      reject(new Error(`the server exited (${code ?? signal}) before answering '${msg}'`));
    proc.once('exit', exited);
    proc.once('message', (m) => {
      clearTimeout(timer);
      proc.off('exit', exited);
      resolve(m as Record<string, unknown>);
    });
    proc.send(msg);
  });
}

export function rssMb(pid: number): number {
  const status = spawnSync('cat', [`/proc/${pid}/status`]).stdout.toString();
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/**
 * A case's load with the CPU the server process used meanwhile: on a shared machine the rate
 * follows the share of the core the server got, its requests per CPU-second much less so.
 */
export async function measured<T extends { requests: number }>(pid: number, load: () => Promise<T>) {
  const cpu0 = cpuSeconds(pid);
  const kernel0 = kernelCpuSeconds(pid);
  const threads0 = threadCpuSeconds(pid);
  const got = await load();
  const serverCpuS = Math.round((cpuSeconds(pid) - cpu0) * 100) / 100;
  // of which the kernel's (socket syscalls), and which threads used it: the event loop, and the others (V8's collector, DuckDB's workers)
  const serverKernelCpuS = Math.round((kernelCpuSeconds(pid) - kernel0) * 100) / 100;
  return {
    ...got,
    serverCpuS,
    serverKernelCpuS,
    perServerCpuS: serverCpuS > 0 ? Math.round(got.requests / serverCpuS) : 0,
    serverThreadsCpuS: threadCpuSince(threads0, threadCpuSeconds(pid)),
  };
}
