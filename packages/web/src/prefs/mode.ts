import { MODES, STORAGE_KEYS, type AuthUser, type Mode, type ModeChoice } from '@adplane/shared';
import { api } from '../api/client.js';
import { readStorage, writeStorage } from './storage.js';
import { browser } from '../browser.js';

/**
 * SSP or DSP view. Who may switch is the user's `showDsp` as the server sends it: the outcome of the
 * rule it applies to PUT /api/ui/mode (entitlements.ts, modeSwitchRefusal: admins, and demand users,
 * owner or team member, of a tenant with the DSP view). The choice is kept in local storage and the
 * page reloads after switching. Everyone else is in SSP mode and is shown no switch.
 */
export function canSwitchMode(user: AuthUser | null): boolean {
  return !!user && user.showDsp;
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
export function switchMode(
  next: Mode,
  reload: () => void = () => browser.reload(),
  storage: Storage = localStorage,
): void {
  writeStorage(storage, STORAGE_KEYS.mode, next);
  reload();
}

/**
 * The switch as the header's control runs it: the server decides (a refusal is thrown as the
 * ApiError saying why, without signing the user out), then the view is stored and the page reloads.
 */
export async function requestModeSwitch(next: Mode, reload?: () => void, storage?: Storage): Promise<void> {
  const { mode } = await api.put<ModeChoice>('/api/ui/mode', { mode: next }, { ignoreForbidden: true });
  switchMode(mode, reload, storage);
}
