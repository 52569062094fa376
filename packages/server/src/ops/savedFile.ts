import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * State a process keeps across its restarts under DATA_DIR (the in-process delivery counters, the
 * impression replay guard): written whole to a temporary file, synced to disk, then renamed over the
 * last one and the folder synced, so that a crash mid-write (of the process or of the machine)
 * leaves the last one whole, and a rename that returned survives the machine going down; read back
 * at the next start. Written when the process
 * stops, and every CHECKPOINT_MS while it runs (Checkpoint), so that a crash loses that much at most. A missing file starts
 * empty; one that cannot be read (damaged, another version's) is left aside with a warning.
 */
export interface SavedStateLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Hands the file saved at the last stop to `take`, which restores it (throwing on a damaged or
 * foreign file) and says what it took, for the log. `what` names the state in the log lines.
 */
export function restoreSaved(file: string, what: string, log: SavedStateLog, take: (data: Buffer) => object): void {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      log.warn({ file, err: errorText(error) }, `${what}: the saved state could not be read; starting empty`);
    return;
  }
  try {
    log.info({ file, ...take(data) }, `${what}: restored from the last stop`);
  } catch (error) {
    log.warn({ file, err: errorText(error) }, `${what}: the saved state could not be read; starting empty`);
  }
}

/**
 * A state's bytes, in the parts its maker hands them out: a large state (a million frequency windows
 * make some 40 MB of JSON) is made a slice at a time, so that a checkpoint never holds the event loop
 * for long (each part is made when the last one is written).
 */
export type StateParts = Generator<string | Uint8Array, void, undefined> | readonly (string | Uint8Array)[];

/** Writes what `data` makes, at stop; a failure is logged, never thrown (the process is stopping). True when the file is written. */
export function saveAtStop(file: string, what: string, log: SavedStateLog, data: () => StateParts): boolean {
  try {
    const part = `${file}.${process.pid}.part`;
    const fd = openSync(part, 'w');
    try {
      for (const chunk of data()) writeSync(fd, typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(part, file);
    syncFolder(file);
    return true;
  } catch (error) {
    log.warn({ file, err: errorText(error) }, `${what}: could not save the state at stop`);
    return false;
  }
}

let checkpoints = 0;

/** How often a running process writes its state: what a crash (a kill, the machine going down) may lose. */
const CHECKPOINT_MS = 60_000;

/**
 * A running process's state written every `everyMs` besides at stop: each part made on the event loop
 * and written off it (libuv's pool), the next made once the last is written, so that requests are
 * served between them (a state that changes meanwhile is caught part by part: a checkpoint is a recent
 * state, not one instant's); to a part file of its own, then renamed over the last file. A checkpoint
 * still being written when the next is due is not started twice; one still being written at stop is
 * not renamed (the stop's own write is the newer). A failure is logged.
 */
export class Checkpoint {
  private readonly timer: NodeJS.Timeout;
  private writing: Promise<void> | null = null;
  private stopped = false;
  /** Its part file's own name: two holders of one file in a process (tests) never share one. */
  private readonly id = ++checkpoints;

  constructor(
    private readonly file: string,
    private readonly what: string,
    private readonly log: SavedStateLog,
    private readonly data: () => StateParts,
    everyMs = CHECKPOINT_MS,
    /** Called once a checkpoint's file is in place (renamed over the last one). */
    private readonly saved?: () => void,
  ) {
    this.timer = setInterval(() => void this.write(), everyMs);
    this.timer.unref();
  }

  /** Writes one checkpoint now (at most one at a time); resolves when it is on disk. */
  write(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (!this.writing) this.writing = this.writeOnce().finally(() => (this.writing = null));
    return this.writing;
  }

  private async writeOnce(): Promise<void> {
    const part = `${this.file}.${process.pid}.${this.id}.checkpoint`;
    try {
      const handle = await open(part, 'w');
      try {
        for (const chunk of this.data()) {
          if (this.stopped) break;
          await handle.write(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
        }
        if (!this.stopped) await handle.sync();
      } finally {
        await handle.close();
      }
      // (renamed on the event loop, so that it cannot land after the stop's write)
      if (!this.stopped) {
        renameSync(part, this.file);
        await syncFolderOf(this.file);
        this.saved?.();
      } else await unlink(part).catch(() => undefined);
    } catch (error) {
      this.log.warn({ file: this.file, err: errorText(error) }, `${this.what}: could not write a checkpoint`);
    }
  }

  /**
   * No more checkpoints (the caller saves at stop next). Resolves when a write under way has given up
   * and removed its part file (it is never renamed over the stop's own write).
   */
  stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    return this.writing ?? Promise.resolve();
  }
}

/** Syncs the folder holding `file`, so that a rename into it survives the machine going down. */
function syncFolder(file: string): void {
  const fd = openSync(dirname(file), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The same off the event loop (libuv's pool): a file created or renamed into the folder is there after the machine goes down. */
export async function syncFolderOf(file: string): Promise<void> {
  const handle = await open(dirname(file), 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
