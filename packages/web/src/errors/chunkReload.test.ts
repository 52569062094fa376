import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CHUNK_RELOAD_GUARD_MS, STORAGE_KEYS } from '@adplane/shared';
import { claimChunkReload, importWithReload, isChunkLoadError, reloadForChunkError } from './chunkReload.js';

beforeEach(() => sessionStorage.clear());

describe('chunk-reload guard', () => {
  it('reloads at most once per minute', () => {
    const reload = vi.fn();
    const t0 = 1_700_000_000_000;
    expect(reloadForChunkError(reload, t0)).toBe(true);
    expect(sessionStorage.getItem(STORAGE_KEYS.chunkReloadAt)).toBe(String(t0));
    expect(reloadForChunkError(reload, t0 + 1_000)).toBe(false);
    expect(reloadForChunkError(reload, t0 + CHUNK_RELOAD_GUARD_MS - 1)).toBe(false);
    expect(reload).toHaveBeenCalledTimes(1);
    expect(reloadForChunkError(reload, t0 + CHUNK_RELOAD_GUARD_MS)).toBe(true);
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it('ignores an unreadable stored time', () => {
    sessionStorage.setItem(STORAGE_KEYS.chunkReloadAt, 'garbage');
    expect(claimChunkReload(5)).toBe(true);
  });

  it('recognises the dynamic-import failures of Chrome, Firefox and Safari', () => {
    expect(
      isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: https://x/assets/page-a.js')),
    ).toBe(true);
    expect(isChunkLoadError(new TypeError('error loading dynamically imported module'))).toBe(true);
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isChunkLoadError(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isChunkLoadError('Failed to fetch dynamically imported module')).toBe(false);
  });

  it('reloads on a failed page import and lets other errors through', async () => {
    const reload = vi.fn();
    const failing = () => Promise.reject(new TypeError('Failed to fetch dynamically imported module: /a.js'));
    const pending = importWithReload(failing, reload);
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(reload).toHaveBeenCalledTimes(1);
    void pending;
    // A second failure within the minute surfaces to the error page instead of looping.
    await expect(importWithReload(failing, reload)).rejects.toThrow(/dynamically imported module/);
    await expect(importWithReload(() => Promise.reject(new Error('boom')), reload)).rejects.toThrow('boom');
    await expect(importWithReload(() => Promise.resolve({ default: 1 }), reload)).resolves.toEqual({ default: 1 });
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
