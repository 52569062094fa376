import { readSavedFile, writeSavedFile } from '../../ops/savedFile.js';
import { type ImpressionReplayGuard, ReplayGuard } from './replayGuard.js';

/**
 * The in-process impression replay guard across a restart (docs/delivery.md, "Restarts"): without
 * Redis, the events already counted are remembered in the process, and a beacon replayed after a
 * deploy, with a token still valid for up to a day, would count again. The process that holds the
 * guard (the edge, or the primary of `--workers`) writes it under DATA_DIR when it stops and reads it
 * back when it starts. A missing file starts empty; a damaged one is left aside with a warning.
 */
export const REPLAY_FILE = 'replay-guard.bin';

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export function restoreReplay(guard: ReplayGuard, file: string, nowMs: number, log: Log): void {
  try {
    const data = readSavedFile(file);
    if (!data) return;
    const held = guard.restore(data, nowMs);
    log.info({ file, ...held }, 'impression replay guard: restored from the last stop');
  } catch (error) {
    log.warn({ file, err: error instanceof Error ? error.message : String(error) }, 'impression replay guard: the saved guard could not be read; starting empty');
  }
}

export function saveReplay(guard: ReplayGuard, file: string, nowMs: number, log: Log): void {
  try {
    writeSavedFile(file, guard.saved(nowMs));
  } catch (error) {
    log.warn({ file, err: error instanceof Error ? error.message : String(error) }, 'impression replay guard: could not save the guard at stop');
  }
}

/** This process's guard, read back from `file` now and written to it when it closes. */
export function keptReplayGuard(file: string, log: Log): ImpressionReplayGuard {
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
