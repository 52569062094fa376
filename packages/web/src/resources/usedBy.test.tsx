import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { RESOURCES, type UsedByGroup } from '@adplane/shared';
import { clearLists } from '../api/lists.js';
import { jsonResponse, makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { BulkBar } from './BulkBar.js';
import { resourceApi } from './resourceApi.js';
import { showsUsedBy, UsedBy, usedByHref, usedBySummary } from './UsedBy.js';

vi.setConfig({ testTimeout: 20_000 });
const fetchMock = vi.fn<typeof fetch>();
const calls: { url: string; body: unknown }[] = [];

const GROUPS: UsedByGroup[] = [
  {
    kind: 'channels',
    label: 'Channel',
    plural: 'Channels',
    items: [
      { kind: 'channels', id: 4, name: 'Roku CTV', status: 1, archived: false, fields: ['demand'] },
      { kind: 'channels', id: 9, name: 'Web outstream', status: 0, archived: false, fields: ['demand'] },
    ],
  },
];

beforeEach(() => {
  clearLists();
  calls.length = 0;
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    calls.push({ url, body: init?.body ? JSON.parse(String(init.body)) : null });
    if (url === '/api/demand/tags/12/usedBy') return jsonResponse(GROUPS);
    if (url === '/api/demand/deals/3/usedBy') return jsonResponse([]);
    if (url === '/api/demand/crelists/list')
      return jsonResponse([
        { id: 31, name: 'Brand safe', status: 1, archived: false },
        { id: 32, name: 'Old', status: 1, archived: true },
      ]);
    if (url === '/api/demand/creatives/bulk')
      return jsonResponse({
        action: 'addToList',
        changed: [1, 2],
        unchanged: [],
        lists: [{ id: 31, name: 'Brand safe', added: 2, total: 5 }],
      });
    return jsonResponse({ message: `unexpected ${url}` }, 500);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

describe('Used by', () => {
  it('is shown for the kinds others reference, from the registry', () => {
    expect(showsUsedBy(RESOURCES.tags)).toBe(true);
    expect(showsUsedBy(RESOURCES.deals)).toBe(true);
    expect(showsUsedBy(RESOURCES.applists)).toBe(true);
    // a supply deal names the channels it sells
    expect(showsUsedBy(RESOURCES.channels)).toBe(true);
    expect(showsUsedBy(RESOURCES.campaigns)).toBe(false);
    expect(usedByHref('campaigns', 8)).toBe('/campaigns?open=8');
    expect(usedBySummary(GROUPS)).toBe('Channels (2): Roku CTV, Web outstream');
    expect(usedBySummary([])).toBe('Not used');
  });

  it("lists a tag's channels as links that open them, paused ones marked", async () => {
    renderWithAuth(
      <MemoryRouter>
        <UsedBy def={RESOURCES.tags} id={12} />
      </MemoryRouter>,
      makeUser('demand'),
    );
    const link = await screen.findByTestId('used-by-link-channels-9');
    expect(link.getAttribute('href')).toBe('/channels?open=9');
    expect(link.textContent).toBe('Web outstream · paused');
    expect(screen.getByTestId('used-by-channels').textContent).toContain('Channels (2)');
  });

  it('says so when nothing uses the row', async () => {
    renderWithAuth(
      <MemoryRouter>
        <UsedBy def={RESOURCES.deals} id={3} />
      </MemoryRouter>,
      makeUser('demand'),
    );
    expect((await screen.findByTestId('used-by-none')).textContent).toContain('No campaigns use this deal');
  });
});

describe('bulk add to list', () => {
  const renderBar = (edition: 'V2V' | 'default') =>
    renderWithAuth(
      <MemoryRouter>
        <BulkBar
          def={RESOURCES.creatives}
          api={resourceApi(RESOURCES.creatives)}
          selected={[1, 2]}
          archivedView={false}
          onDone={() => undefined}
          onClear={() => undefined}
        />
      </MemoryRouter>,
      makeUser('demand', { showDsp: true }, edition),
    );

  it('adds the selected creatives to the picked creative lists in one call', async () => {
    renderBar('V2V');
    fireEvent.click(screen.getByTestId('bulk-addToList'));
    const select = await screen.findByTestId('bulk-list-select');
    fireEvent.mouseDown(select.querySelector('.ant-select-selector, .ant-select')!);
    fireEvent.click(await screen.findByText('Brand safe (#31)'));
    expect(screen.queryByText('Old (#32)')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Add to lists' }));
    await waitFor(() => expect(calls.some((c) => c.url === '/api/demand/creatives/bulk')).toBe(true));
    expect(calls.find((c) => c.url === '/api/demand/creatives/bulk')!.body).toEqual({
      action: 'addToList',
      ids: [1, 2],
      listIds: [31],
    });
    expect(await screen.findByText(/Added 2 of 2 creatives to 'Brand safe' \+2 \(5 in all\)/)).toBeTruthy();
  });

  it('is not offered where creative lists do not exist (outside V2V)', () => {
    renderBar('default');
    expect(screen.getByTestId('bulk-pause')).toBeTruthy();
    expect(screen.queryByTestId('bulk-addToList')).toBeNull();
  });
});
