import { Checkpoint, restoreSaved, saveAtStop, type SavedStateLog } from '../../ops/savedFile.js';
import { type ImpressionReplayGuard, ReplayGuard } from './replayGuard.js';

/**
 * The in-process impression replay guard across a restart (docs/delivery.md, "Restarts"): without
 * Redis, the events already counted are remembered in the process, and a beacon replayed after a
 * deploy, with a token still valid for up to a day, would count again. The process that holds the
 * guard (the edge, or the primary of `--workers`) writes it under DATA_DIR when it stops, and every
 * minute while it runs (a crash loses that much), and reads it back when it starts (ops/savedFile.ts).
 */
export const REPLAY_FILE = 'replay-guard.bin';

const WHAT = 'impression replay guard';

export function restoreReplay(guard: ReplayGuard, file: string, nowMs: number, log: SavedStateLog): void {
  restoreSaved(file, WHAT, log, (data) => guard.restore(data, nowMs));
}

export function saveReplay(guard: ReplayGuard, file: string, nowMs: number, log: SavedStateLog): void {
  saveAtStop(file, WHAT, log, () => guard.savedParts(nowMs));
}

/** The guard written every `everyMs` while the process runs (ops/savedFile.ts Checkpoint). */
export function checkpointReplay(guard: ReplayGuard, file: string, log: SavedStateLog, everyMs?: number): Checkpoint {
  return new Checkpoint(file, WHAT, log, () => guard.savedParts(Date.now()), everyMs);
}

/** This process's guard, read back from `file` now, written to it every `everyMs` and when it closes. */
export function keptReplayGuard(file: string, log: SavedStateLog, everyMs?: number): ImpressionReplayGuard {
  const guard = new ReplayGuard();
  restoreReplay(guard, file, Date.now(), log);
  const checkpoint = checkpointReplay(guard, file, log, everyMs);
  return {
    firstTime: (id, nowMs) => guard.firstTime(id, nowMs),
    close: () => {
      void checkpoint.stop();
      saveReplay(guard, file, Date.now(), log);
      return Promise.resolve();
    },
  };
}
