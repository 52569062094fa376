import { systemClock } from '../clock.js';
import { Checkpoint, restoreSaved, saveAtStop, type SavedStateLog } from '../ops/savedFile.js';
import { type MemoryCounterStore, SAVED_VERSION, type SavedCounters } from './sharedCounters.js';

/**
 * The embedded counters across a restart (docs/delivery.md, "Restarts"): without Redis, the counters
 * that decide delivery live in the process, and a deploy would forget every open frequency window
 * and the day's spend per hour (the stats store gives back the day's and the campaign's spend, not
 * who saw what). The process that holds them (the edge, or the primary of `--workers`) writes them
 * to this file under DATA_DIR when it stops, and every minute while it runs (a crash loses that
 * much), and reads them when it starts (ops/savedFile.ts).
 */
export const COUNTERS_FILE = 'delivery-counters.json';
const WHAT = 'delivery counters';

export function restoreCounters(store: MemoryCounterStore, file: string, now: number, log: SavedStateLog): void {
  restoreSaved(file, WHAT, log, (data) => {
    const saved = JSON.parse(data.toString('utf8')) as SavedCounters;
    if (
      saved?.version !== SAVED_VERSION ||
      !Array.isArray(saved.spent) ||
      !Array.isArray(saved.hourly) ||
      !Array.isArray(saved.expiry) ||
      !Array.isArray(saved.frequency)
    ) {
      throw new Error('not saved counters of this version');
    }
    store.restore(saved, now);
    return { savedAt: new Date(saved.savedAt).toISOString(), frequencyWindows: saved.frequency.length };
  });
}

export function saveCounters(store: MemoryCounterStore, file: string, now: number, log: SavedStateLog): void {
  saveAtStop(file, WHAT, log, () => store.savedParts(now));
}

/** The counters written every `everyMs` while the process runs (ops/savedFile.ts Checkpoint). */
export function checkpointCounters(
  store: MemoryCounterStore,
  file: string,
  log: SavedStateLog,
  everyMs?: number,
  clock: () => number = systemClock.now,
): Checkpoint {
  return new Checkpoint(file, WHAT, log, () => store.savedParts(clock()), everyMs);
}
