import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * The serving thread first. A process's other threads (the stats thread, libuv's threads that run
 * DuckDB's inserts and rollups and the report files' queries, the report-file thread, V8's helpers)
 * run at a lower priority than its serving thread, so that where they share a core with it (an edge
 * given one core, a busy machine) a request waits behind a scheduler's slice of their work, not
 * behind their whole burst. Their work still runs whenever the core has room. In the tail bench
 * (docs/performance.md) a counters flush held VAST's event loop up to 230 ms with them at the
 * serving thread's priority, and VAST's added p99 fell from 171 ms to 30 with them at nice 10
 * (bench/results/tail-priority.json).
 *
 * Linux gives each thread its own nice value (`setpriority` on a thread id), and a thread started
 * later takes its starter's: the threads are looked at again every few seconds. Elsewhere (no
 * `/proc/self/task`) nothing changes.
 */

/** The nice value given to the other threads: about a tenth of a core's share beside the serving thread. */
export const BACKGROUND_NICE = 10;
/** How often threads started since are looked for. */
const RECHECK_MS = 5_000;

/** Gives every thread of this process but its main (serving) thread `nice`, where it runs higher; answers how many it changed. */
export function lowerOtherThreads(nice = BACKGROUND_NICE): number {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let changed = 0;
  for (const name of tids) {
    const tid = Number(name);
    if (!Number.isInteger(tid) || tid === process.pid) continue;
    try {
      if (getPriority(tid) >= nice) continue;
      setPriority(tid, nice);
      changed++;
    } catch {
      // a thread that ended meanwhile
    }
  }
  return changed;
}

/** Lowers the other threads now and every few seconds, for the process's life, without holding it open. */
export function keepServingThreadFirst(nice = BACKGROUND_NICE): void {
  lowerOtherThreads(nice);
  setInterval(() => lowerOtherThreads(nice), RECHECK_MS).unref();
}
