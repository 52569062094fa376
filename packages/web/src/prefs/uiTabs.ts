import { useSyncExternalStore } from 'react';
import { STORAGE_KEYS } from '@adplane/shared';
import { readStorage, writeStorage } from './storage.js';

/**
 * 'Open links in new Tabs': a flag under the local-storage key ui_tabs ('1' when
 * on, absent when off). The server keeps a copy (GET/PUT /api/ui/settings) so that it follows the
 * user to other browsers.
 */
type Listener = () => void;
const listeners = new Set<Listener>();
/** How many times this tab has set the flag: a copy fetched from the server before the last change is stale. */
let changes = 0;

export function uiTabsChanges(): number {
  return changes;
}

export function readUiTabs(): boolean {
  const value = readStorage(localStorage, STORAGE_KEYS.uiTabs);
  return value === '1' || value === 'true';
}

export function writeUiTabs(on: boolean): void {
  changes += 1;
  writeStorage(localStorage, STORAGE_KEYS.uiTabs, on ? '1' : null);
  for (const listener of listeners) listener();
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === STORAGE_KEYS.uiTabs) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function useUiTabs(): boolean {
  return useSyncExternalStore(subscribe, readUiTabs, () => false);
}

/** Link attributes for a navigation link under the current setting. */
export function linkTarget(newTabs: boolean): { target?: string; rel?: string } {
  return newTabs ? { target: '_blank', rel: 'noopener' } : {};
}
