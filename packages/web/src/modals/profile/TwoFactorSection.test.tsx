import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { type TwoFactorStatus } from '@adplane/shared';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { ProfileModal } from './ProfileModal.js';
import { TwoFactorSection } from './TwoFactorSection.js';

const fetchMock = vi.fn<typeof fetch>();
vi.setConfig({ testTimeout: 20_000 });

beforeEach(() => vi.stubGlobal('fetch', fetchMock));
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

const ON: TwoFactorStatus = {
  enabled: true,
  enabledAt: '2026-11-20T10:00:00.000Z',
  required: false,
  recoveryCodesLeft: 7,
};

describe('the account modal of an admin', () => {
  it('has no Profile tab, and its API keys, password and two-factor tabs', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ items: [] }));
    renderWithAuth(<ProfileModal open onClose={vi.fn()} />, makeUser('admin'));
    expect(await screen.findByText('Sign-in and API keys')).toBeTruthy();
    expect(screen.queryByTestId('account-tab-profile')).toBeNull();
    for (const tab of ['apiKeys', 'password', 'twoFactor'])
      expect(screen.getByTestId(`account-tab-${tab}`)).toBeTruthy();
    expect(screen.queryByTestId('profile-save')).toBeNull();
  });
});

describe('TwoFactorSection', () => {
  it('shows the state and turns off with the password, putting a wrong one on its field', async () => {
    const calls: { url: string; body: unknown }[] = [];
    let status = ON;
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url);
      if (init?.method === 'POST') {
        const body = JSON.parse(String(init.body)) as { password: string };
        calls.push({ url: path, body });
        if (body.password !== 'right-one')
          return jsonResponse({ message: 'password: is not your current password', field: 'password' }, 400);
        status = { enabled: false, enabledAt: null, required: false, recoveryCodesLeft: 0 };
        return jsonResponse({ ok: true });
      }
      return jsonResponse(status);
    });
    renderWithAuth(<TwoFactorSection />, makeUser('demand'));
    expect((await screen.findByTestId('two-factor-state')).textContent).toContain('On since 2026-11-20');
    expect(screen.getByText('7')).toBeTruthy();
    fireEvent.click(screen.getByTestId('two-factor-disable'));
    fireEvent.change(await screen.findByTestId('two-factor-password'), { target: { value: 'wrong-one' } });
    fireEvent.click(screen.getByTestId('two-factor-password-ok'));
    expect(await screen.findByText(/is not your current password/)).toBeTruthy();
    fireEvent.change(screen.getByTestId('two-factor-password'), { target: { value: 'right-one' } });
    fireEvent.click(screen.getByTestId('two-factor-password-ok'));
    await waitFor(() => expect(screen.getByTestId('two-factor-state').textContent).toBe('Off'));
    expect(calls.map((c) => c.url)).toEqual(['/api/auth/twoFactor/disable', '/api/auth/twoFactor/disable']);
    expect(screen.getByTestId('two-factor-start')).toBeTruthy();
  });

  it('offers no turning off when the tenant requires it, and nothing to change while an admin acts as the user', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ ...ON, required: true }));
    renderWithAuth(<TwoFactorSection />, makeUser('sub'));
    expect(await screen.findByText('Your account requires two-factor sign-in: it cannot be turned off.')).toBeTruthy();
    expect(screen.queryByTestId('two-factor-disable')).toBeNull();
    expect(screen.getByTestId('two-factor-new-codes')).toBeTruthy();
  });

  it('shows the state only to an admin acting as the user', async () => {
    fetchMock.mockImplementation(async () =>
      jsonResponse({ enabled: false, enabledAt: null, required: false, recoveryCodesLeft: 0 }),
    );
    renderWithAuth(<TwoFactorSection />, { ...makeUser('demand'), adminId: 1 });
    expect(await screen.findByText('Only the account itself can change how it signs in.')).toBeTruthy();
    expect(screen.queryByTestId('two-factor-start')).toBeNull();
  });
});
