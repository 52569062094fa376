import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * State a process keeps across its restarts under DATA_DIR (the in-process delivery counters, the
 * impression replay guard): written whole to a temporary file, then renamed over the last one, so
 * that a crash mid-write leaves the last one; read back at the next start.
 */
export function writeSavedFile(file: string, data: string | Uint8Array): void {
  const part = `${file}.${process.pid}.part`;
  writeFileSync(part, data);
  renameSync(part, file);
}

/** The saved file, or null when there is none yet. */
export function readSavedFile(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
