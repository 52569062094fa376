import { beforeEach, describe, expect, it, vi } from 'vitest';
import { STORAGE_KEYS } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import { canSwitchMode, effectiveMode, otherMode, readStoredMode, switchMode } from './mode.js';

beforeEach(() => localStorage.clear());

describe('SSP / DSP mode', () => {
  it("lets admins and the demand users of a DSP tenant switch (the tenant's flag, not the user's own)", () => {
    expect(canSwitchMode(makeUser('admin'))).toBe(true);
    expect(canSwitchMode(makeUser('demand', { showDsp: true }))).toBe(true);
    expect(canSwitchMode(makeUser('demand', { managerId: 3, showDsp: false, tenantShowDsp: true }))).toBe(true);
    expect(canSwitchMode(makeUser('demand', { managerId: 3, showDsp: true, tenantShowDsp: false }))).toBe(false);
    expect(canSwitchMode(makeUser('demand'))).toBe(false);
    expect(canSwitchMode(makeUser('sub', { showDsp: true, tenantShowDsp: true }))).toBe(false);
    expect(canSwitchMode(makeUser('adv', { tenantShowDsp: true }))).toBe(false);
    expect(canSwitchMode(makeUser('sdk'))).toBe(false);
    expect(canSwitchMode(null)).toBe(false);
  });

  it('reads the stored mode, SSP by default', () => {
    expect(readStoredMode()).toBe('ssp');
    localStorage.setItem(STORAGE_KEYS.mode, 'dsp');
    expect(readStoredMode()).toBe('dsp');
    localStorage.setItem(STORAGE_KEYS.mode, 'nonsense');
    expect(readStoredMode()).toBe('ssp');
  });

  it('keeps users without DSP in SSP mode', () => {
    expect(effectiveMode(makeUser('demand'), 'dsp')).toBe('ssp');
    expect(effectiveMode(makeUser('demand', { showDsp: true }), 'dsp')).toBe('dsp');
    expect(effectiveMode(makeUser('admin'), 'dsp')).toBe('dsp');
    expect(effectiveMode(makeUser('sub', { tenantShowDsp: true }), 'dsp')).toBe('ssp');
  });

  it('stores the new mode and reloads', () => {
    const reload = vi.fn();
    switchMode(otherMode('ssp'), reload);
    expect(localStorage.getItem(STORAGE_KEYS.mode)).toBe('dsp');
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
