import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { type ApiKey, type CreatedApiKey } from '@adplane/shared';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { ApiKeysSection, KEY_SHOWN_ONCE } from './ApiKeysSection.js';

const fetchMock = vi.fn<typeof fetch>();
vi.setConfig({ testTimeout: 20_000 });

beforeEach(() => vi.stubGlobal('fetch', fetchMock));
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

const key = (id: number, overrides: Partial<ApiKey> = {}): ApiKey => ({
  id,
  name: `key ${id}`,
  prefix: `adp_abcd${id}xyz`.slice(0, 12),
  readOnly: false,
  createdAt: '2026-11-20T10:00:00.000Z',
  lastUsedAt: null,
  revokedAt: null,
  ...overrides,
});

/** A server of the three routes over an in-memory list, recording what the section sent. */
function serveKeys(initial: ApiKey[]) {
  const keys = [...initial];
  const sent: { method: string; url: string; body: unknown }[] = [];
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    sent.push({ method, url, body });
    if (method === 'GET') return jsonResponse({ keys });
    if (method === 'POST') {
      const { name, readOnly } = body as { name: string; readOnly: boolean };
      if (!name.trim())
        return jsonResponse(
          { message: 'name: is required', field: 'name', errors: [{ field: 'name', message: 'is required' }] },
          400,
        );
      const made = key(keys.length + 10, { name: name.trim(), readOnly });
      keys.unshift(made);
      const answer: CreatedApiKey = { apiKey: made, key: `${made.prefix}-the-whole-secret` };
      return jsonResponse(answer, 201);
    }
    if (method === 'DELETE') {
      const id = Number(url.split('/').pop());
      const found = keys.find((k) => k.id === id);
      if (found) found.revokedAt = '2026-11-21T09:30:00.000Z';
      return jsonResponse({ ok: true });
    }
    return jsonResponse({ message: 'Not found' }, 404);
  });
  return { keys, sent };
}

describe('ApiKeysSection', () => {
  it('lists the keys with name, prefix, scope, created and last used', async () => {
    serveKeys([key(1, { name: 'exporter', readOnly: true, lastUsedAt: '2026-11-21T08:15:00.000Z' }), key(2)]);
    renderWithAuth(<ApiKeysSection />, makeUser('demand', { timezone: 0 }));
    const row = await screen.findByTestId('api-key-row-1');
    expect(row.textContent).toContain('exporter');
    expect(row.textContent).toContain('adp_abcd1xyz…');
    expect(row.textContent).toContain('read-only');
    expect(row.textContent).toContain('2026-11-20 10:00');
    expect(row.textContent).toContain('2026-11-21 08:15');
    expect(screen.getByTestId('api-key-row-2').textContent).toContain('read and write');
    expect(screen.getByTestId('api-key-row-2').textContent).toContain('never');
  });

  it('makes a key, shows it once with a copy button and the warning, and lists it', async () => {
    const server = serveKeys([]);
    renderWithAuth(<ApiKeysSection />, makeUser('sub'));
    await screen.findByText('No API keys yet');
    fireEvent.change(screen.getByTestId('api-key-name'), { target: { value: 'nightly export' } });
    fireEvent.click(screen.getByTestId('api-key-readonly'));
    fireEvent.click(screen.getByTestId('api-key-create'));
    const shown = await screen.findByTestId('api-key-created');
    expect(server.sent.find((s) => s.method === 'POST')?.body).toEqual({ name: 'nightly export', readOnly: true });
    expect(shown.textContent).toContain(KEY_SHOWN_ONCE);
    expect(screen.getByTestId('api-key-secret').textContent).toContain('-the-whole-secret');
    expect(within(shown).getByRole('button', { name: /copy/i })).toBeTruthy();
    const row = await screen.findByTestId('api-key-row-10');
    expect(row.textContent).toContain('nightly export');
    expect(row.textContent).toContain('read-only');
    // the list never holds the key itself
    expect(row.textContent).not.toContain('-the-whole-secret');
  });

  it('refuses an empty or blank name before sending it', async () => {
    const server = serveKeys([]);
    renderWithAuth(<ApiKeysSection />, makeUser('demand'));
    await screen.findByText('No API keys yet');
    fireEvent.click(screen.getByTestId('api-key-create'));
    expect((await screen.findByTestId('api-key-name-error')).textContent).toMatch(/Name the key/);
    expect(server.sent.some((s) => s.method === 'POST')).toBe(false);
    fireEvent.change(screen.getByTestId('api-key-name'), { target: { value: ' ' } });
    fireEvent.click(screen.getByTestId('api-key-create'));
    expect(server.sent.some((s) => s.method === 'POST')).toBe(false);
  });

  it('revokes a key after a confirmation, and shows it revoked', async () => {
    const server = serveKeys([key(3, { name: 'old one' })]);
    renderWithAuth(<ApiKeysSection />, makeUser('demand', { timezone: 0 }));
    fireEvent.click(await screen.findByTestId('api-key-revoke-3'));
    const [title] = await screen.findAllByText('Revoke the key "old one"?');
    const dialog = title.closest('.ant-modal-confirm') as HTMLElement;
    expect(server.sent.some((s) => s.method === 'DELETE')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(server.sent.find((s) => s.method === 'DELETE')?.url).toBe('/api/apiKeys/3'));
    const revoked = await screen.findByTestId('api-key-revoked');
    expect(revoked.textContent).toContain('2026-11-21 09:30');
    expect(screen.queryByTestId('api-key-revoke-3')).toBeNull();
  });

  it('does not offer to make keys while an admin acts for the user', async () => {
    serveKeys([key(4)]);
    renderWithAuth(<ApiKeysSection />, makeUser('demand', { adminId: 1 }));
    await screen.findByTestId('api-key-row-4');
    expect(screen.getByTestId('api-keys-impersonating')).toBeTruthy();
    expect(screen.queryByTestId('api-key-create')).toBeNull();
  });
});
