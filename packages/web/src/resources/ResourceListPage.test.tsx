import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { RESOURCES } from '@adplane/shared';
import { clearLists } from '../api/lists.js';
import { jsonResponse, makeUser } from '../test/fixtures.js';
import { renderWithAuth } from '../test/render.js';
import { ResourceListPage } from './ResourceListPage.js';
import { columnsKey, periodKey, readHiddenColumns, readPeriod } from './tablePrefs.js';

vi.setConfig({ testTimeout: 20_000 });
const fetchMock = vi.fn<typeof fetch>();
const row = (id: number, name: string) => ({
  id,
  name,
  status: 1,
  archived: false,
  uid: `u${id}`,
  createdAt: '2026-11-01T10:00:00Z',
  updatedAt: '2026-11-02T10:00:00Z',
});
const ROWS = [row(3, 'Gamma'), row(2, 'Beta'), row(1, 'Alpha')];
const calls: string[] = [];

beforeEach(() => {
  clearLists();
  localStorage.clear();
  calls.length = 0;
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    calls.push(`${init?.method ?? 'GET'} ${url}`);
    if (url.startsWith('/api/demand/channels?')) return jsonResponse({ items: ROWS, total: 3, page: 1, pageSize: 20 });
    if (url.startsWith('/api/rowStats?')) {
      const period = new URL(url, 'http://x').searchParams.get('period');
      const revenue = period === 'yesterday' ? 1 : 1_000_000;
      return jsonResponse({
        kind: 'channels',
        period,
        startDate: '2026-11-23',
        endDate: '2026-11-23',
        timezone: -5,
        metrics: ['reqs', 'imps', 'fill', 'revenue', 'ecpm'],
        rows: {
          '1': { reqs: 100, imps: 10, fill: 10, revenue: 3 * revenue, ecpm: 0 },
          '3': { reqs: 50, imps: 5, fill: 10, revenue: revenue, ecpm: 0 },
        },
      });
    }
    if (url.startsWith('/api/deliveryStates?'))
      return jsonResponse({
        kind: 'channels',
        at: 0,
        states: ROWS.map((r) => ({
          id: r.id,
          serving: r.id !== 2,
          reasons: r.id === 2 ? [{ code: 'no_demand', message: 'No demand' }] : [],
        })),
      });
    if (url === '/api/demand/channels/bulk') return jsonResponse({ action: 'pause', changed: [3, 1], unchanged: [] });
    return jsonResponse([]);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

const user = makeUser('demand', { id: 42 });
const renderList = () =>
  renderWithAuth(
    <MemoryRouter>
      <ResourceListPage
        def={RESOURCES.channels}
        columns={[{ title: 'UID', dataIndex: 'uid', key: 'uid' }]}
        FormBody={() => null}
        defaults={() => ({})}
      />
    </MemoryRouter>,
    user,
  );
const names = () => screen.getAllByTestId(/^row-open-/).map((a) => a.textContent);

describe('list page numbers, columns and bulk actions', () => {
  it('loads the numbers after the rows, for the rows on screen, and sorts the page by them', async () => {
    renderList();
    await screen.findByText('Gamma');
    await waitFor(() => expect(screen.getByTestId('metric-revenue-1').textContent).toBe('$3.00'));
    const list = calls.findIndex((c) => c.startsWith('GET /api/demand/channels?'));
    const stats = calls.findIndex((c) => c.startsWith('GET /api/rowStats?'));
    expect(list).toBeLessThan(stats);
    expect(calls[stats]).toBe('GET /api/rowStats?kind=channels&period=today&ids=3%2C2%2C1');
    // the Status column: Active only for the rows the ad server serves
    await waitFor(() => expect(screen.getByTestId('row-status-2').textContent).toBe('Not serving'));
    expect(screen.getByTestId('row-status-3').textContent).toBe('Active');
    // A row without numbers shows zero, greyed.
    expect(screen.getByTestId('metric-reqs-2').textContent).toBe('0');
    fireEvent.click(screen.getAllByText('Revenue')[0]);
    await waitFor(() => expect(names()).toEqual(['Beta', 'Gamma', 'Alpha']));
    fireEvent.click(screen.getAllByText('Revenue')[0]);
    await waitFor(() => expect(names()).toEqual(['Alpha', 'Gamma', 'Beta']));
  });

  it("says in the numbers' place that they could not be loaded, instead of zeros or a wait without end", async () => {
    const answer = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (input, init) =>
      String(input).startsWith('/api/rowStats?')
        ? jsonResponse({ message: 'The stats store is busy' }, 503)
        : answer(input, init),
    );
    renderList();
    await screen.findByText('Gamma');
    expect(await screen.findByTestId('metric-revenue-1-failed')).toBeTruthy();
    expect(screen.queryByTestId('metric-revenue-1')).toBeNull();
    expect(screen.getByTestId('period-range').textContent).toBe('The numbers could not be loaded');
    expect(screen.getByTestId('period-range').getAttribute('title')).toBe('The stats store is busy');
    // the rows themselves still work
    expect(names()).toEqual(['Gamma', 'Beta', 'Alpha']);
  });

  it('remembers the period per user', async () => {
    renderList();
    await screen.findByTestId('metric-revenue-1');
    fireEvent.click(within(screen.getByTestId('period-select')).getByText('Yesterday'));
    await waitFor(() => expect(screen.getByTestId('metric-revenue-3').textContent).toBe('$0.00'));
    expect(readPeriod(42)).toBe('yesterday');
    expect(localStorage.getItem(periodKey(42))).toBe('yesterday');
    expect(readPeriod(7)).toBe('today');
  });

  it('hides a column with the chooser and keeps the choice for this user and list', async () => {
    renderList();
    await screen.findByText('Gamma');
    expect(screen.queryByText('Updated')).toBeNull();
    fireEvent.click(screen.getByTestId('column-chooser-open'));
    fireEvent.click(await screen.findByTestId('column-toggle-uid'));
    await waitFor(() => expect(screen.queryByText('u3')).toBeNull());
    expect(readHiddenColumns(42, 'channels')).toEqual(['updatedAt', 'uid']);
    expect(localStorage.getItem(columnsKey(42, 'channels'))).toBe('["updatedAt","uid"]');
  });

  it('archives a row from its More menu once its usage is checked, with edit the only other icon', async () => {
    renderList();
    await screen.findByText('Gamma');
    const actions = screen.getByTestId('row-more-3').closest('.row-actions')!;
    expect(actions.querySelectorAll('button').length).toBe(2);
    expect(screen.queryByTestId('row-archive-3')).toBeNull();
    fireEvent.click(screen.getByTestId('row-more-3'));
    fireEvent.click(await screen.findByTestId('row-archive-3'));
    await waitFor(() => expect(calls).toContain('POST /api/demand/channels/3/archive'));
    expect(calls.indexOf('GET /api/demand/channels/3/usage')).toBeLessThan(
      calls.indexOf('POST /api/demand/channels/3/archive'),
    );
  });

  it('pauses the selected rows in one call', async () => {
    renderList();
    await screen.findByText('Gamma');
    const boxes = screen.getAllByRole('checkbox');
    fireEvent.click(boxes[1]);
    fireEvent.click(boxes[3]);
    expect(await screen.findByTestId('bulk-count')).toHaveProperty('textContent', '2 selected');
    fireEvent.click(screen.getByTestId('bulk-pause'));
    await waitFor(() => expect(calls).toContain('POST /api/demand/channels/bulk'));
    const call = fetchMock.mock.calls.find(([u]) => String(u) === '/api/demand/channels/bulk')!;
    expect(JSON.parse(String(call[1]?.body))).toEqual({ action: 'pause', ids: [3, 1] });
    await waitFor(() => expect(screen.queryByTestId('bulk-bar')).toBeNull());
  });
});
