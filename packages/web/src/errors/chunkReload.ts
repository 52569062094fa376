import { CHUNK_RELOAD_GUARD_MS, STORAGE_KEYS } from '@adplane/shared';
import { readStorage, writeStorage } from '../prefs/storage.js';
import { browser } from '../browser.js';

/**
 * A page chunk that fails to load (usually: a new release replaced the hashed files) reloads the
 * page, at most once per CHUNK_RELOAD_GUARD_MS (a file still missing after the reload must not
 * loop). The time of the last reload is kept in session storage so that the guard survives the
 * reload itself.
 */
export function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /dynamically imported module|Importing a module script failed|error loading dynamically|Unable to preload CSS|ChunkLoadError/i.test(
    `${error.name} ${error.message}`,
  );
}

/** True when a reload is allowed now; records the reload time when it is. */
export function claimChunkReload(now: number = Date.now(), storage: Storage = sessionStorage): boolean {
  const last = Number(readStorage(storage, STORAGE_KEYS.chunkReloadAt));
  if (Number.isFinite(last) && last > 0 && now - last < CHUNK_RELOAD_GUARD_MS) return false;
  writeStorage(storage, STORAGE_KEYS.chunkReloadAt, String(now));
  return true;
}

/** Reload for a chunk error if the guard allows it; answers whether a reload was started. */
export function reloadForChunkError(
  reload: () => void = () => browser.reload(),
  now: number = Date.now(),
  storage: Storage = sessionStorage,
): boolean {
  if (!claimChunkReload(now, storage)) return false;
  reload();
  return true;
}

/**
 * Wrap a lazy page import: on a chunk failure that may reload, start the reload and never settle
 * (the page is going away); otherwise let the error reach the route error page.
 */
export async function importWithReload<T>(importer: () => Promise<T>, reload?: () => void): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    if (isChunkLoadError(error) && reloadForChunkError(reload)) return new Promise<T>(() => undefined);
    throw error;
  }
}
