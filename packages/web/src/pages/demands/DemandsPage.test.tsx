import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { STORAGE_KEYS } from '@adplane/shared';
import { clearLists } from '../../api/lists.js';
import { browser } from '../../browser.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import DemandsPage from './index.js';

vi.setConfig({ testTimeout: 20_000 });
const fetchMock = vi.fn<typeof fetch>();

const NORTHWIND = {
  id: 3,
  tenantId: null,
  uid: 'nw1',
  name: 'Northwind Media',
  username: 'demand',
  email: 'demand@demo.adplane.test',
  status: 1,
  archived: false,
  companyName: 'Northwind Media LLC',
  domain: 'ads.northwind.test',
  timezone: -5,
  priceReq: 10_000,
  priceImp: 50_000,
  priceDsp: 10,
  pricePostbid: 20_000,
  showDsp: true,
  showPostbidPix: true,
  showPostbidWh: false,
  showCheckIVT: true,
  showSystemCost: true,
  showDemandToSubs: false,
  showSupplyToAdvs: false,
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-02T10:00:00.000Z',
};

beforeEach(() => {
  clearLists();
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (input) => {
    const url = String(input);
    if (url.startsWith('/api/demands?')) return jsonResponse({ items: [NORTHWIND], total: 1, page: 1, pageSize: 20 });
    if (url === '/api/demands/3') return jsonResponse(NORTHWIND);
    if (url === '/api/demands/list') return jsonResponse([NORTHWIND]);
    if (url === '/api/tooltips/list') return jsonResponse([]);
    return jsonResponse({ message: `unexpected ${url}` }, 404);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  fetchMock.mockReset();
});

const renderAs = (admin: ReturnType<typeof makeUser>) =>
  renderWithAuth(
    <MemoryRouter>
      <DemandsPage />
    </MemoryRouter>,
    admin,
  );

const ops = makeUser('admin', { uid: 'ops', disabled: true, name: 'Ad Ops' });
const superAdmin = makeUser('admin', { uid: 'super', disabled: false });

describe('Demands page', () => {
  it('greys the super-admin-only actions for a non-super admin, with the reason', async () => {
    renderAs(ops);
    expect(await screen.findByText('Northwind Media')).toBeTruthy();
    const newButton = screen.getByTestId('resource-new') as HTMLButtonElement;
    expect(newButton.disabled).toBe(true);
    // Archive and delete sit in the row's "More" menu, greyed with the reason.
    fireEvent.click(screen.getByTestId('row-more-3'));
    const archive = await screen.findByTestId('row-archive-3');
    expect(archive.closest('.ant-dropdown-menu-item')?.getAttribute('aria-disabled')).toBe('true');
    expect(archive.textContent).toBe('Archive: Only the super admin can archive or restore demand accounts');
    const remove = await screen.findByTestId('row-delete-3');
    expect(remove.closest('.ant-dropdown-menu-item')?.getAttribute('aria-disabled')).toBe('true');
    expect(remove.textContent).toContain('Only the super admin');
    expect(screen.getByTestId('demands-limited').textContent).toContain('changing prices is for the super admin');

    fireEvent.mouseEnter(newButton.parentElement!);
    expect(await screen.findByText('Only the super admin can create demand accounts')).toBeTruthy();

    // Editing stays open, but the prices are locked.
    fireEvent.click(screen.getByTestId('row-open-3'));
    await waitFor(() =>
      expect(
        (screen.getByTestId('demand-priceReq') as HTMLElement).querySelector('input')?.value ??
          (screen.getByTestId('demand-priceReq') as HTMLInputElement).value,
      ).toBe('0.01'),
    );
    for (const name of ['priceReq', 'priceImp', 'pricePostbid']) {
      const el = screen.getByTestId(`demand-${name}`);
      const input = (el.tagName === 'INPUT' ? el : el.querySelector('input')) as HTMLInputElement;
      expect(input.disabled, name).toBe(true);
    }
    expect(screen.getByTestId('locked-priceDsp').querySelector('input')?.disabled).toBe(true);
    expect((screen.getByTestId('account-name') as HTMLInputElement).disabled).toBe(false);
    expect((screen.getByTestId('resource-save') as HTMLButtonElement).disabled).toBe(false);
  });

  it('leaves everything open to the super admin', async () => {
    renderAs(superAdmin);
    expect(await screen.findByText('Northwind Media')).toBeTruthy();
    expect((screen.getByTestId('resource-new') as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(screen.getByTestId('row-more-3'));
    const archive = await screen.findByTestId('row-archive-3');
    expect(archive.closest('.ant-dropdown-menu-item')?.getAttribute('aria-disabled')).not.toBe('true');
    expect(screen.queryByTestId('demands-limited')).toBeNull();
    fireEvent.click(screen.getByTestId('row-open-3'));
    await waitFor(() => expect(screen.queryByTestId('locked-priceReq')).toBeNull());
    const el = await screen.findByTestId('demand-priceReq');
    expect(((el.tagName === 'INPUT' ? el : el.querySelector('input')) as HTMLInputElement).disabled).toBe(false);
  });

  it('sets what the account shows its subpublishers and advertisers of the other side, off until switched on', async () => {
    const saved: Record<string, unknown>[] = [];
    const base = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (input, init) => {
      if (String(input) === '/api/demands/3' && init?.method === 'PUT') {
        const body = JSON.parse(String(init.body)) as Record<string, unknown>;
        saved.push(body);
        return jsonResponse({ ...NORTHWIND, ...body });
      }
      return base(input, init);
    });
    renderAs(ops);
    expect(await screen.findByText('Northwind Media')).toBeTruthy();
    fireEvent.click(screen.getByTestId('row-open-3'));
    const subs = await screen.findByTestId('demand-showDemandToSubs');
    const advs = screen.getByTestId('demand-showSupplyToAdvs');
    expect(screen.getByText('Subpublishers see the demand their traffic was sold to')).toBeTruthy();
    expect(screen.getByText('Advertisers see the supply they bought')).toBeTruthy();
    expect(subs.getAttribute('aria-checked')).toBe('false');
    expect(advs.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(subs);
    await waitFor(() => expect(subs.getAttribute('aria-checked')).toBe('true'));
    fireEvent.click(screen.getByTestId('resource-save'));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).toMatchObject({ showDemandToSubs: true, showSupplyToAdvs: false, showDsp: true });
  });

  it("logs in as the account after dropping the admin's cached lists", async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    sessionStorage.setItem(`${STORAGE_KEYS.listPrefix}demands`, JSON.stringify([{ id: 3, name: 'Northwind Media' }]));
    renderAs(ops);
    const loginAs = await screen.findByTestId('login-as-3');
    expect(loginAs.getAttribute('href')).toBe('/api/switch?type=demand&id=3');
    fireEvent.click(loginAs);
    expect(assign).toHaveBeenCalledWith('/api/switch?type=demand&id=3');
    expect(sessionStorage.getItem(`${STORAGE_KEYS.listPrefix}demands`)).toBeNull();
  });
});
