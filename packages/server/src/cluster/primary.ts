import { systemClock } from '../clock.js';
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { type StatsStore } from '../stats/statsStore.js';
import { PrimaryHub } from './primaryHub.js';
import { workerExecArgv } from './workerFlags.js';

/**
 * The primary of `adplane --workers N`: forks the workers (each listens on the same port; node's
 * cluster hands connections to them in turn), serves what they share (PrimaryHub), restarts a worker
 * that dies, and on SIGINT/SIGTERM lets every worker drain (each stops accepting, finishes its
 * requests and flushes its counters through the hub) before closing the stores and exiting.
 */
export interface PrimaryOptions {
  workers: number;
  logLevel: string;
  /** The stats store the workers write through (DuckDB); null when each opens ClickHouse itself. */
  stats: StatsStore | null;
  /** Where the workers' in-process delivery counters and replay guard are saved at stop and read back at start (null: they share Redis). */
  kept: { counters: string; replay: string } | null;
  /** How long a worker may take to drain before it is killed (its own grace period plus a margin). */
  drainMs: number;
  /** Once every worker listens, with its address. */
  onListening(address: string): void;
  /** After the last worker exited: the primary's stores. */
  closeStores(): Promise<void>;
}

/** A worker that dies this soon after it was started is restarted after a pause (a crash loop would spin). */
const EARLY_EXIT_MS = 10_000;
const RESTART_PAUSE_MS = 1_000;

const LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};
let threshold = 30;

/** pino's line shape, so that the primary's few lines read like the workers' logs (LOG_LEVEL applies). */
export function logLine(level: 'info' | 'warn' | 'error', fields: object, msg: string): void {
  const n = LEVELS[level]!;
  if (n < threshold) return;
  process.stderr.write(
    `${JSON.stringify({ level: n, time: systemClock.now(), pid: process.pid, role: 'primary', ...fields, msg })}\n`,
  );
}

export function runPrimary(options: PrimaryOptions): void {
  threshold = LEVELS[options.logLevel] ?? 30;
  const hub = new PrimaryHub(options.stats, options.kept, {
    info: (o, m) => logLine('info', o, m),
    warn: (o, m) => logLine('warn', o, m),
    error: (o, m) => logLine('error', o, m),
  });
  const started = new Map<Worker, number>();
  let stopping = false;
  const listening = new Set<Worker>();
  let announced = false;

  // a worker per core: each runs V8's collector on its own thread (workerFlags.ts)
  cluster.setupPrimary({
    serialization: 'advanced',
    execArgv: workerExecArgv(process.execArgv, options.workers, availableParallelism()),
  });
  const fork = () => {
    const worker = cluster.fork();
    started.set(worker, systemClock.now());
    hub.attach(worker);
    worker.on('listening', (address) => {
      listening.add(worker);
      if (announced || stopping || listening.size < options.workers) return;
      announced = true;
      options.onListening(`${address.address ?? '0.0.0.0'}:${address.port}`);
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    hub.detach(worker);
    listening.delete(worker);
    const ranMs = systemClock.now() - (started.get(worker) ?? 0);
    started.delete(worker);
    if (stopping) return;
    logLine(
      'warn',
      { worker: worker.id, workerPid: worker.process.pid, code, signal, ranMs },
      'worker exited: starting another',
    );
    setTimeout(fork, ranMs < EARLY_EXIT_MS ? RESTART_PAUSE_MS : 0);
  });

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logLine('info', { signal, workers: started.size }, 'shutting down: the workers drain');
    const exited = new Promise<void>((resolve) => {
      const check = () => {
        if (started.size === 0) resolve();
      };
      cluster.on('exit', check);
      check();
    });
    for (const worker of started.keys()) worker.process.kill(signal);
    const timer = setTimeout(() => {
      logLine('warn', { drainMs: options.drainMs }, 'workers still running after the drain time: killed');
      for (const worker of started.keys()) worker.process.kill('SIGKILL');
    }, options.drainMs);
    await exited;
    clearTimeout(timer);
    // every worker has drained and sent its last counts and replay checks: kept for the next start
    await hub
      .saveState()
      .catch((error: unknown) =>
        logLine(
          'error',
          { err: error instanceof Error ? error.message : String(error) },
          'saving the state at stop failed',
        ),
      );
    try {
      await options.closeStores();
      process.exit(0);
    } catch (error) {
      logLine('error', { err: error instanceof Error ? error.message : String(error) }, 'closing the stores failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  for (let i = 0; i < options.workers; i++) fork();
}
