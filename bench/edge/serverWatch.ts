import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { Exchanger } from '../../packages/server/src/delivery/exchange.js';
import { CurrencyFeed } from '../../packages/server/src/edge/ortb/currency.js';
import { Checkpoint } from '../../packages/server/src/ops/savedFile.js';

/**
 * What the bench's server (edge.bench.ts `--serve`) watches in itself between two of the parent's
 * 'window' questions: the event loop's delay (p99 and the longest stall, perf_hooks), how many
 * counters flushes and snapshot rebuilds ran, and, with `stalls` (BENCH_STALLS=1), a timeline of the
 * loop's stalls and of what ran meanwhile: V8's collections (kind and pause), the flush, the
 * rebuild, the config version poll, the state checkpoints (replay guard, delivery counters), the
 * delivery exchanges and the currency refresh. Each stall is reported with the work it overlapped:
 * the attribution the tail case asks for.
 */
export interface WindowReport {
  loopP99Ms: number;
  loopMaxMs: number;
  flushes: number;
  rebuilds: number;
  /**
   * With stalls: the longest stalls (s after the window's start, how long, how much of it the process
   * ran on a CPU, what overlapped them). A stall the process ran through is its own work; one it
   * mostly did not run in is the machine's (another process had the core).
   */
  longestStalls?: { atS: number; ms: number; ranMs: number; during: string[] }[];
  /**
   * With stalls: by cause, how many stalls of 10 ms or more it overlapped and the longest of them,
   * among the stalls the process ran through (at least half of the stall on a CPU); the others are
   * counted under 'machine (not running)'.
   */
  byCause?: Record<string, { stalls: number; maxMs: number }>;
  /** With stalls: each watched job's runs in the window (count, longest wall time, ms). */
  jobs?: Record<string, { runs: number; maxMs: number }>;
}

interface Span {
  what: string;
  start: number;
  end: number;
}

/** The lag sampler's period: a stall is a tick late by more than STALL_MS. */
const TICK_MS = 5;
const STALL_MS = 4;
/** Stalls counted by cause: at least this long. */
const CAUSE_MS = 10;

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'gc major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'gc minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'gc incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'gc weak callbacks',
};

const round = (ms: number) => Math.round(ms * 100) / 100;

/** Wraps `obj[name]` (an async method) so that each call's span is recorded as `what`. */
function timed(obj: object, name: string, what: string, spans: Span[], count?: () => void): void {
  const target = obj as Record<string, (...args: unknown[]) => unknown>;
  const original = target[name]!;
  target[name] = function (this: unknown, ...args: unknown[]) {
    const start = performance.now();
    count?.();
    const done = () => spans.push({ what, start, end: performance.now() });
    const result = original.apply(this, args);
    if (result instanceof Promise) void result.then(done, done);
    else done();
    return result;
  };
}

/** What the watch reads of the app: its edge's counters and snapshot holder. */
interface Watched {
  edge: { counters: object; snapshots: { current: unknown } };
}

export function watchServer(app: Watched, stalls: boolean): { window(): WindowReport } {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let flushes = 0;
  let rebuilds = 0;
  let since = performance.now();
  const spans: Span[] = [];
  const lags: { start: number; end: number; ms: number; ranMs: number }[] = [];
  // the flush as the edge's timer and a full table call it, the rebuild as the poll and a notice call it
  timed(app.edge.counters, 'flush', 'flush', spans, () => flushes++);
  const holder = app.edge.snapshots;
  const current = () => holder.current;
  timed(holder, 'rebuild', 'rebuild', spans);
  // a rebuild is counted when it swapped in a new snapshot (calls while one runs join it)
  let seen = current();
  setInterval(() => {
    if (current() !== seen) {
      seen = current();
      rebuilds++;
    }
  }, 20).unref();
  if (stalls) {
    timed(holder, 'poll', 'config poll', spans);
    timed(Checkpoint.prototype, 'write', 'checkpoint', spans);
    timed(Exchanger.prototype, 'tick', 'delivery exchange', spans);
    timed(CurrencyFeed.prototype, 'load', 'currency refresh', spans);
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
        spans.push({
          what: `${GC_KINDS[kind] ?? 'gc'} ${round(e.duration)} ms`,
          start: e.startTime,
          end: e.startTime + e.duration,
        });
      }
    }).observe({ entryTypes: ['gc'] });
    let last = performance.now();
    let cpuLast = process.cpuUsage();
    setInterval(() => {
      const now = performance.now();
      const cpu = process.cpuUsage();
      const late = now - last - TICK_MS;
      if (late > STALL_MS) {
        const ranMs = (cpu.user - cpuLast.user + cpu.system - cpuLast.system) / 1000;
        lags.push({ start: last, end: now, ms: late, ranMs: Math.min(ranMs, now - last) });
      }
      last = now;
      cpuLast = cpu;
    }, TICK_MS).unref();
  }

  return {
    window() {
      const report: WindowReport = {
        loopP99Ms: round(loop.percentile(99) / 1e6),
        loopMaxMs: round(loop.max / 1e6),
        flushes,
        rebuilds,
      };
      if (stalls) {
        const during = (l: { start: number; end: number }) => [
          ...new Set(spans.filter((s) => s.start < l.end && s.end > l.start).map((s) => s.what)),
        ];
        report.longestStalls = [...lags]
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 12)
          .map((l) => ({
            atS: round((l.start - since) / 1000),
            ms: round(l.ms),
            ranMs: round(l.ranMs),
            during: during(l),
          }));
        const byCause: Record<string, { stalls: number; maxMs: number }> = {};
        for (const l of lags) {
          if (l.ms < CAUSE_MS) continue;
          const ran = l.ranMs >= (l.ms + TICK_MS) / 2;
          const causes = ran ? during(l).map((w) => w.replace(/ [\d.]+ ms$/, '')) : ['machine (not running)'];
          for (const cause of causes.length ? causes : ['nothing watched']) {
            const c = (byCause[cause] ??= { stalls: 0, maxMs: 0 });
            c.stalls++;
            c.maxMs = Math.max(c.maxMs, round(l.ms));
          }
        }
        report.byCause = byCause;
        const jobs: Record<string, { runs: number; maxMs: number }> = {};
        for (const s of spans) {
          if (s.what.startsWith('gc ')) continue;
          const j = (jobs[s.what] ??= { runs: 0, maxMs: 0 });
          j.runs++;
          j.maxMs = Math.max(j.maxMs, round(s.end - s.start));
        }
        report.jobs = jobs;
      }
      loop.reset();
      flushes = 0;
      rebuilds = 0;
      spans.length = 0;
      lags.length = 0;
      since = performance.now();
      return report;
    },
  };
}
