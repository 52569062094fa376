import { systemClock } from '../../clock.js';
import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Checkpoint, restoreSaved, saveAtStop, type SavedStateLog, syncFolderOf } from '../../ops/savedFile.js';
import { type ImpressionReplayGuard, ReplayGuard, TRACKING_LIFETIME_HOURS } from './replayGuard.js';

/**
 * The in-process impression replay guard across a restart or a crash (docs/delivery.md, "Restarts"):
 * without Redis, the events already counted are remembered in the process, and a beacon replayed
 * after a deploy, with a token still valid for up to a day, would count again. The process that
 * holds the guard (the edge, or the primary of `--workers`) keeps it under DATA_DIR in two files:
 *
 * - the whole guard (`REPLAY_FILE`), written when the process stops and every minute while it runs
 *   (ops/savedFile.ts), and
 * - a journal of the events it answered as new since (`<REPLAY_FILE>.journal.<n>`), appended and
 *   synced to disk before every write of counts (`persist`: the counters call it), so that no count
 *   reaches the stats store before its event is on disk here. A crash then can lose counts (those
 *   the counters held, a flush's worth) but never make a counted event countable again.
 *
 * A checkpoint starts a new journal file and, once its own file is in place, deletes the journals
 * it covers; a start reads the whole guard, then every journal left (replaying a mark twice is harmless).
 */
export const REPLAY_FILE = 'replay-guard.bin';

const WHAT = 'impression replay guard';
const HOUR_MS = 3_600_000;

function restoreReplay(guard: ReplayGuard, file: string, nowMs: number, log: SavedStateLog): void {
  restoreSaved(file, WHAT, log, (data) => guard.restore(data, nowMs));
}

/** Writes the whole guard; true when the file is written. */
function saveReplay(guard: ReplayGuard, file: string, nowMs: number, log: SavedStateLog): boolean {
  return saveAtStop(file, WHAT, log, () => guard.savedParts(nowMs));
}

/** The journal files of `file`, each with its number, in the order they were written. */
function journals(file: string): { path: string; n: number }[] {
  const prefix = `${basename(file)}.journal.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => ({ path: join(dirname(file), name), n: Number(name.slice(prefix.length)) }))
    .sort((a, b) => a.n - b.n);
}

/**
 * The events a guard answered as new, appended to a journal file: one JSON line `[ms, key]` an event.
 * `note` is synchronous and cheap (a string append); `persist` writes what was noted and syncs it.
 */
export class ReplayJournal {
  private noted = '';
  /** The journal file new lines go to. */
  private n: number;
  /** Writes one after the other, each to the file that was current when it was asked. */
  private writing: Promise<void> = Promise.resolve();
  /** The journal file whose name is synced in its folder (a new file's entry must survive the machine going down too). */
  private synced = 0;

  constructor(private readonly file: string) {
    this.n = (journals(file).at(-1)?.n ?? 0) + 1;
  }

  note(key: string, nowMs: number): void {
    this.noted += `${JSON.stringify([nowMs, key])}\n`;
  }

  /** Resolves once every line noted so far is on disk (synced); rejects when it could not be written. */
  persist(): Promise<void> {
    const text = this.noted;
    this.noted = '';
    const n = this.n;
    const path = `${this.file}.journal.${n}`;
    const write = this.writing.then(async () => {
      if (!text) return;
      const handle = await open(path, 'a');
      try {
        await handle.write(text);
        await handle.datasync();
        if (this.synced !== n) {
          await syncFolderOf(path);
          this.synced = n;
        }
      } catch (error) {
        // not on disk: kept for the next persist, ahead of what came since
        this.noted = text + this.noted;
        throw error;
      } finally {
        await handle.close();
      }
    });
    this.writing = write.catch(() => undefined);
    return write;
  }

  /** New lines go to a new file from now on; the number returned is the last file a checkpoint made now covers. */
  rotate(): number {
    return this.n++;
  }

  /** Deletes the journal files up to `n` (a checkpoint covers them); every file when `n` is omitted. */
  drop(n = Infinity): void {
    for (const j of journals(this.file)) {
      if (j.n > n) continue;
      try {
        unlinkSync(j.path);
      } catch {
        // gone already
      }
    }
  }

  /** Marks every journal's events in `guard` (after the whole guard was restored); a line cut by a crash is skipped. */
  static replay(file: string, guard: ReplayGuard, nowMs: number, log: SavedStateLog): void {
    const oldest = nowMs - TRACKING_LIFETIME_HOURS * HOUR_MS;
    let events = 0;
    const found = journals(file);
    for (const { path } of found) {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        log.warn(
          { file: path, err: error instanceof Error ? error.message : String(error) },
          `${WHAT}: a journal could not be read`,
        );
        continue;
      }
      for (const line of text.split('\n')) {
        if (!line) continue;
        let entry: unknown;
        try {
          entry = JSON.parse(line);
        } catch {
          continue;
        }
        if (!Array.isArray(entry) || typeof entry[0] !== 'number' || typeof entry[1] !== 'string' || entry[0] <= oldest)
          continue;
        guard.firstTime(entry[1], entry[0]);
        events++;
      }
    }
    if (found.length)
      log.info(
        { file, journals: found.length, events },
        `${WHAT}: events since the last save read back from the journal`,
      );
  }
}

/**
 * This process's guard, kept in `file` and its journal: read back now, a checkpoint every `everyMs`,
 * the journal synced at every `persist`, the whole guard written when it closes.
 */
export class KeptReplayGuard implements ImpressionReplayGuard {
  readonly guard = new ReplayGuard();
  private readonly journal: ReplayJournal;
  private readonly checkpoint: Checkpoint;

  constructor(
    private readonly file: string,
    private readonly log: SavedStateLog,
    everyMs?: number,
    private readonly clock: () => number = systemClock.now,
  ) {
    restoreReplay(this.guard, file, clock(), log);
    ReplayJournal.replay(file, this.guard, clock(), log);
    this.journal = new ReplayJournal(file);
    let covered = 0;
    this.checkpoint = new Checkpoint(
      file,
      WHAT,
      log,
      () => {
        // every event noted before this is in the pages the checkpoint writes: their journals go once it is in place
        covered = this.journal.rotate();
        return this.guard.savedParts(this.clock());
      },
      everyMs,
      () => this.journal.drop(covered),
    );
  }

  firstTime(id: string, nowMs: number): boolean {
    const first = this.guard.firstTime(id, nowMs);
    if (first) this.journal.note(id, nowMs);
    return first;
  }

  persist(): Promise<void> {
    return this.journal.persist();
  }

  /** Writes a checkpoint now, as the timer does (resolves once it is in place and its journals are gone). */
  checkpointNow(): Promise<void> {
    return this.checkpoint.write();
  }

  /** Writes the whole guard; the journals go only once it is written (a failed save keeps them for the next start). */
  async close(): Promise<void> {
    await this.checkpoint.stop();
    await this.journal.persist().catch(() => undefined);
    if (saveReplay(this.guard, this.file, this.clock(), this.log)) this.journal.drop();
  }
}
