import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { type ActivityEntry, RESOURCES } from '@adplane/shared';
import { jsonResponse, makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { EntityHistory, historyWho } from './EntityHistory.js';

vi.setConfig({ testTimeout: 20_000 });
const fetchMock = vi.fn<typeof fetch>();
const urls: string[] = [];

const entry = (id: number, action: string, before: unknown, after: unknown, who: Partial<ActivityEntry> = {}) =>
  ({
    id,
    tenantId: 2,
    userId: 2,
    userName: 'Northwind Media',
    adminId: null,
    adminName: null,
    kind: 'tags',
    entityId: 12,
    action,
    before,
    after,
    at: '2026-11-20T10:00:00.000Z',
    ...who,
  }) satisfies ActivityEntry;

const FIRST_PAGE = Array.from({ length: 20 }, (_, i) =>
  entry(100 - i, 'update', { name: `Tag v${19 - i}`, floorCpm: 1 }, { name: `Tag v${20 - i}`, floorCpm: 1 }),
);

beforeEach(() => {
  urls.length = 0;
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (input) => {
    const url = String(input);
    urls.push(url);
    if (url === '/api/demand/tags/12/history?limit=20') return jsonResponse(FIRST_PAGE);
    if (url === '/api/demand/tags/12/history?limit=20&beforeId=81')
      return jsonResponse([
        entry(40, 'archive', { archived: false }, { archived: true }, { userId: null, userName: null }),
        entry(30, 'create', null, { name: 'Tag v0' }, { adminId: 1, adminName: 'Platform Admin' }),
      ]);
    if (url === '/api/demand/deals/3/history?limit=20') return jsonResponse([]);
    return jsonResponse({ message: `unexpected ${url}` }, 500);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

describe('History in a drawer', () => {
  it('names who made a change: the user, the admin acting as them, or the system', () => {
    expect(historyWho({ userId: 2, userName: 'Northwind Media', adminId: null, adminName: null })).toBe(
      'Northwind Media',
    );
    expect(historyWho({ userId: 2, userName: 'Northwind Media', adminId: 1, adminName: 'Platform Admin' })).toBe(
      'Northwind Media (by admin Platform Admin)',
    );
    expect(historyWho({ userId: null, userName: null, adminId: null, adminName: null })).toBe('the system');
  });

  it('loads when opened, shows what each update changed, and pages to older changes', async () => {
    renderWithAuth(<EntityHistory def={RESOURCES.tags} id={12} />, makeUser('demand'));
    expect(urls).toEqual([]);
    fireEvent.click(screen.getByText('History of this tag'));
    await screen.findByTestId('history-entry-100');
    expect(screen.getByTestId('history-field-100-name').textContent).toBe('name: Tag v19 → Tag v20');
    // a field the update left as it was is not listed
    expect(screen.queryByTestId('history-field-100-floorCpm')).toBeNull();
    fireEvent.click(screen.getByTestId('history-more'));
    await screen.findByTestId('history-entry-30');
    expect(screen.getByTestId('history-entry-40').textContent).toContain('Archived');
    expect(screen.getByTestId('history-entry-40').textContent).toContain('by the system');
    expect(screen.getByTestId('history-entry-30').textContent).toContain(
      'by Northwind Media (by admin Platform Admin)',
    );
    expect(screen.queryByTestId('history-more')).toBeNull();
    expect(urls).toEqual(['/api/demand/tags/12/history?limit=20', '/api/demand/tags/12/history?limit=20&beforeId=81']);
  });

  it('says when nothing is recorded', async () => {
    renderWithAuth(<EntityHistory def={RESOURCES.deals} id={3} />, makeUser('demand'));
    fireEvent.click(screen.getByText('History of this deal'));
    await waitFor(() => expect(screen.getByTestId('history-none')).toBeTruthy());
  });
});
