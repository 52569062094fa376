import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * State a process keeps across its restarts under DATA_DIR (the in-process delivery counters, the
 * impression replay guard): written whole to a temporary file, then renamed over the last one, so
 * that a crash mid-write leaves the last one; read back at the next start. A missing file starts
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
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log.warn({ file, err: errorText(error) }, `${what}: the saved state could not be read; starting empty`);
    return;
  }
  try {
    log.info({ file, ...take(data) }, `${what}: restored from the last stop`);
  } catch (error) {
    log.warn({ file, err: errorText(error) }, `${what}: the saved state could not be read; starting empty`);
  }
}

/** Writes what `data` makes, at stop; a failure is logged, never thrown (the process is stopping). */
export function saveAtStop(file: string, what: string, log: SavedStateLog, data: () => string | Uint8Array): void {
  try {
    const part = `${file}.${process.pid}.part`;
    writeFileSync(part, data());
    renameSync(part, file);
  } catch (error) {
    log.warn({ file, err: errorText(error) }, `${what}: could not save the state at stop`);
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
