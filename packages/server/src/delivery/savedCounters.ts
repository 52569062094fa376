import { readSavedFile, writeSavedFile } from '../ops/savedFile.js';
import { type MemoryCounterStore, SAVED_VERSION, type SavedCounters } from './sharedCounters.js';
import { type DeliveryLog } from './types.js';

/**
 * The embedded counters across a restart (docs/delivery.md, "Restarts"): without Redis, the counters
 * that decide delivery live in the process, and a deploy would forget every open frequency window
 * and the day's spend per hour (the stats store gives back the day's and the campaign's spend, not
 * who saw what). The process that holds them (the edge, or the primary of `--workers`) writes them
 * to this file under DATA_DIR when it stops and reads them when it starts. A file that is missing,
 * of another version or damaged is left aside with a warning: the counters start empty, as before.
 */
export const COUNTERS_FILE = 'delivery-counters.json';

export function restoreCounters(store: MemoryCounterStore, file: string, now: number, log: DeliveryLog): void {
  try {
    const text = readSavedFile(file);
    if (!text) return; // none yet
    const saved = JSON.parse(text.toString('utf8')) as SavedCounters;
    if (saved?.version !== SAVED_VERSION || !Array.isArray(saved.spent) || !Array.isArray(saved.hourly) || !Array.isArray(saved.expiry) || !Array.isArray(saved.frequency)) {
      log.warn({ file }, 'delivery counters: the saved counters are not of this version; starting empty');
      return;
    }
    store.restore(saved, now);
    log.info({ file, savedAt: new Date(saved.savedAt).toISOString(), frequencyWindows: saved.frequency.length }, 'delivery counters: restored from the last stop');
  } catch (error) {
    log.warn({ file, err: error instanceof Error ? error.message : String(error) }, 'delivery counters: the saved counters could not be read; starting empty');
  }
}

export function saveCounters(store: MemoryCounterStore, file: string, now: number, log: DeliveryLog): void {
  try {
    writeSavedFile(file, JSON.stringify(store.saved(now)));
  } catch (error) {
    log.warn({ file, err: error instanceof Error ? error.message : String(error) }, 'delivery counters: could not save the counters at stop');
  }
}
