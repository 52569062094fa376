import { MODES, STORAGE_KEYS, type AuthUser, type Mode } from '@adplane/shared';
import { readStorage, writeStorage } from './storage.js';
import { browser } from '../browser.js';

/**
 * SSP or DSP view (spec sections 1 and 6). Admin, or a user with showDsp, may switch; the choice is
 * kept in local storage and the page reloads after switching. Everyone else is in SSP mode.
 */
export function canSwitchMode(user: AuthUser | null): boolean {
  return !!user && (user.type === 'admin' || user.showDsp);
}

export function readStoredMode(storage: Storage = localStorage): Mode {
  const stored = readStorage(storage, STORAGE_KEYS.mode);
  return (MODES as readonly string[]).includes(stored ?? '') ? (stored as Mode) : 'ssp';
}

/** The mode the console shows: the stored choice when the user may use DSP, else SSP. */
export function effectiveMode(user: AuthUser | null, stored: Mode): Mode {
  return canSwitchMode(user) ? stored : 'ssp';
}

export function otherMode(mode: Mode): Mode {
  return mode === 'ssp' ? 'dsp' : 'ssp';
}

export function modeLabel(mode: Mode): string {
  return mode === 'ssp' ? 'SSP' : 'DSP';
}

/** Store the new mode and reload the page. */
export function switchMode(next: Mode, reload: () => void = () => browser.reload(), storage: Storage = localStorage): void {
  writeStorage(storage, STORAGE_KEYS.mode, next);
  reload();
}
