import { restoreSaved, saveAtStop, type SavedStateLog } from '../../ops/savedFile.js';
import { type ImpressionReplayGuard, ReplayGuard } from './replayGuard.js';

/**
 * The in-process impression replay guard across a restart (docs/delivery.md, "Restarts"): without
 * Redis, the events already counted are remembered in the process, and a beacon replayed after a
 * deploy, with a token still valid for up to a day, would count again. The process that holds the
 * guard (the edge, or the primary of `--workers`) writes it under DATA_DIR when it stops and reads it
 * back when it starts (ops/savedFile.ts).
 */
export const REPLAY_FILE = 'replay-guard.bin';

const WHAT = 'impression replay guard';

export function restoreReplay(guard: ReplayGuard, file: string, nowMs: number, log: SavedStateLog): void {
  restoreSaved(file, WHAT, log, (data) => guard.restore(data, nowMs));
}

export function saveReplay(guard: ReplayGuard, file: string, nowMs: number, log: SavedStateLog): void {
  saveAtStop(file, WHAT, log, () => guard.saved(nowMs));
}

/** This process's guard, read back from `file` now and written to it when it closes. */
export function keptReplayGuard(file: string, log: SavedStateLog): ImpressionReplayGuard {
  const guard = new ReplayGuard();
  restoreReplay(guard, file, Date.now(), log);
  return {
    firstTime: (id, nowMs) => guard.firstTime(id, nowMs),
    close: () => {
      saveReplay(guard, file, Date.now(), log);
      return Promise.resolve();
    },
  };
}
