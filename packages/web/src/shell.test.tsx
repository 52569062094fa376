import './test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp, ConfigProvider } from 'antd';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { STORAGE_KEYS, type AuthUser } from '@adplane/shared';
import { listStorageKey } from './api/lists.js';
import { browser } from './browser.js';
import { buildRouteObjects } from './routes.js';
import { jsonResponse, makeProfile, makeUser } from './test/fixtures.js';
import { theme } from './theme.js';

vi.setConfig({ testTimeout: 20_000 });

type Handler = (init: RequestInit | undefined) => Response | Promise<Response>;
const fetchMock = vi.fn<typeof fetch>();
let routes: Record<string, Handler> = {};

/** Answer fetches by `METHOD path`; anything not listed is a 404 like an endpoint that does not exist yet. */
function serve(table: Record<string, Handler>) {
  routes = table;
}

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (input, init) => {
    const key = `${init?.method ?? 'GET'} ${String(input)}`;
    const handler = routes[key];
    return handler ? handler(init) : jsonResponse({ message: 'Not Found' }, 404);
  });
  vi.spyOn(browser, 'reload').mockImplementation(() => undefined);
  vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  fetchMock.mockReset();
});

function signedIn(user: AuthUser | null): Record<string, Handler> {
  return {
    'GET /api/auth/session': () => jsonResponse({ user }),
    'GET /api/ui/settings': () => jsonResponse({ tabs: false }),
    // the bell's saved reports, which the frame reads once signed in, and a demand user's alerts
    'GET /api/savedReports': () => jsonResponse([]),
    'GET /api/alerts/episodes?limit=5': () => jsonResponse([]),
  };
}

function renderApp(path: string) {
  const router = createMemoryRouter(buildRouteObjects(), { initialEntries: [path] });
  render(
    <ConfigProvider theme={theme}>
      <AntApp>
        <RouterProvider router={router} />
      </AntApp>
    </ConfigProvider>,
  );
  return router;
}

function calls(): string[] {
  return fetchMock.mock.calls.map(([input, init]) => `${init?.method ?? 'GET'} ${String(input)}`);
}

describe('console shell', () => {
  it('sends a signed-out visitor to /login and back after signing in', async () => {
    sessionStorage.setItem(listStorageKey('tags'), '[]');
    let listsAtLogin: string | null = 'not called';
    const demand = makeUser('demand');
    serve({
      ...signedIn(null),
      'POST /api/auth/login': (init) => {
        listsAtLogin = sessionStorage.getItem(listStorageKey('tags'));
        const { password } = JSON.parse(String(init?.body)) as { password: string };
        return password === 'demo' ? jsonResponse(demand) : jsonResponse({ message: 'Nope' }, 401);
      },
    });
    const router = renderApp('/channels');
    await screen.findByTestId('login-submit');
    expect(router.state.location.pathname).toBe('/login');

    fireEvent.change(screen.getByTestId('login-username'), { target: { value: ' demand ' } });
    fireEvent.change(screen.getByTestId('login-password'), { target: { value: 'wrong' } });
    fireEvent.click(screen.getByTestId('login-submit'));
    expect((await screen.findByTestId('login-error')).textContent).toContain('Bad credentials');
    expect(listsAtLogin).toBeNull();

    fireEvent.change(screen.getByTestId('login-password'), { target: { value: 'demo' } });
    fireEvent.click(screen.getByTestId('login-submit'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/channels'));
    // The page asked for before signing in opens, in the frame.
    expect(await screen.findByTestId('page-channels')).toBeTruthy();
    expect(screen.getByTestId('nav-/channels')).toBeTruthy();
    const body = fetchMock.mock.calls.filter(([input]) => input === '/api/auth/login').at(-1)?.[1]?.body;
    expect(JSON.parse(String(body))).toEqual({ username: 'demand', password: 'demo' });
  });

  it("shows the server's message on 429", async () => {
    serve({
      ...signedIn(null),
      'POST /api/auth/login': () => jsonResponse({ message: 'Too many failed sign-ins; try again in 15 minutes' }, 429),
    });
    renderApp('/login');
    fireEvent.change(await screen.findByTestId('login-username'), { target: { value: 'x' } });
    fireEvent.change(screen.getByTestId('login-password'), { target: { value: 'y' } });
    fireEvent.click(screen.getByTestId('login-submit'));
    expect((await screen.findByTestId('login-error')).textContent).toContain(
      'Too many failed sign-ins; try again in 15 minutes',
    );
  });

  it('restores an admin session and shows the admin bar and dashboard', async () => {
    serve(signedIn(makeUser('admin', { name: 'Ada Admin' })));
    renderApp('/');
    expect((await screen.findByTestId('dashboard-greeting')).textContent).toContain('Ada Admin');
    for (const id of [
      'nav-/',
      'nav-/demands',
      'nav-/tooltips',
      'nav-menu-targeting',
      'nav-/applists',
      'nav-menu-reports',
      'nav-/finance',
    ]) {
      expect(screen.getByTestId(id), id).toBeTruthy();
    }
    expect(screen.queryByTestId('nav-menu-demand')).toBeNull();
    expect(screen.queryByTestId('nav-back-to-admin')).toBeNull();
    expect(screen.getByTestId('dashboard-link-/demands')).toBeTruthy();
    fireEvent.click(screen.getByTestId('user-menu'));
    expect(screen.getByTestId('mode-switch')).toBeTruthy();
    for (const id of ['user-menu-settings', 'user-menu-config', 'user-menu-reload', 'user-menu-signout']) {
      expect(await screen.findByTestId(id), id).toBeTruthy();
    }
    // no profile: the item opens the admin's sign-in and API keys
    expect((await screen.findByTestId('user-menu-profile')).textContent).toBe('Sign-in and API keys');
  });

  it('switches the mode from SSP | DSP in the bar once the server agrees: stores it and reloads', async () => {
    const asked: unknown[] = [];
    serve({
      ...signedIn(makeUser('admin')),
      'PUT /api/ui/mode': (init) => {
        asked.push(JSON.parse(String(init?.body)));
        return jsonResponse({ mode: 'dsp' });
      },
    });
    renderApp('/');
    fireEvent.click(await screen.findByTestId('mode-switch-dsp'));
    await waitFor(() => expect(browser.reload).toHaveBeenCalledTimes(1));
    expect(asked).toEqual([{ mode: 'dsp' }]);
    expect(localStorage.getItem(STORAGE_KEYS.mode)).toBe('dsp');
  });

  it('keeps the view when the server refuses the switch, and stays signed in', async () => {
    serve({
      ...signedIn(makeUser('demand', { showDsp: true })),
      'PUT /api/ui/mode': () =>
        jsonResponse(
          { message: 'The DSP view is not enabled for this account, so there is nothing to switch to' },
          403,
        ),
    });
    renderApp('/');
    fireEvent.click(await screen.findByTestId('mode-switch-dsp'));
    await waitFor(() =>
      expect(fetchMock.mock.calls.some(([url, init]) => String(url) === '/api/ui/mode' && init?.method === 'PUT')).toBe(
        true,
      ),
    );
    await act(async () => new Promise((r) => setTimeout(r, 50)));
    expect(localStorage.getItem(STORAGE_KEYS.mode)).toBeNull();
    expect(browser.reload).not.toHaveBeenCalled();
    expect(browser.assign).not.toHaveBeenCalledWith('/login');
  });

  it('shows no mode at all to a user who may not switch', async () => {
    serve(signedIn(makeUser('sub', { tenantShowDsp: true })));
    renderApp('/');
    expect(await screen.findByTestId('user-menu')).toBeTruthy();
    expect(screen.queryByTestId('mode-switch')).toBeNull();
    expect(screen.queryByText('SSP')).toBeNull();
  });

  it('Force data reload clears the cached lists and reloads', async () => {
    serve(signedIn(makeUser('demand')));
    sessionStorage.setItem(listStorageKey('channels'), '[{"id":1,"name":"A"}]');
    renderApp('/');
    fireEvent.click(await screen.findByTestId('user-menu'));
    fireEvent.click(await screen.findByTestId('user-menu-reload'));
    expect(sessionStorage.getItem(listStorageKey('channels'))).toBeNull();
    expect(browser.reload).toHaveBeenCalledTimes(1);
  });

  it('links back to the admin while impersonating, clearing the client store', async () => {
    serve(signedIn(makeUser('demand', { name: 'Acme', adminId: 42 })));
    sessionStorage.setItem(listStorageKey('tags'), '[]');
    renderApp('/');
    const back = await screen.findByTestId('nav-back-to-admin');
    expect(back.getAttribute('href')).toBe('/api/switch?type=admin&id=42');
    expect(screen.getByTestId('impersonation').textContent).toContain('Acting as Acme');
    fireEvent.click(back);
    expect(sessionStorage.getItem(listStorageKey('tags'))).toBeNull();
    expect(browser.assign).toHaveBeenCalledWith('/api/switch?type=admin&id=42');
  });

  it('signs out even when the server call fails, clearing the lists', async () => {
    serve({ ...signedIn(makeUser('demand')), 'GET /api/auth/logout': () => jsonResponse({ message: 'down' }, 500) });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    sessionStorage.setItem(listStorageKey('deals'), '[]');
    const router = renderApp('/');
    fireEvent.click(await screen.findByTestId('user-menu'));
    fireEvent.click(await screen.findByTestId('user-menu-signout'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(sessionStorage.getItem(listStorageKey('deals'))).toBeNull();
    expect(calls()).toContain('GET /api/auth/logout');
    expect(await screen.findByTestId('login-submit')).toBeTruthy();
    expect(screen.queryByTestId('login-signed-in')).toBeNull();
  });

  it('goes to /login on a 403 from any call', async () => {
    serve({
      ...signedIn(makeUser('demand')),
      'GET /api/demand/info': () => jsonResponse({ message: 'Session expired' }, 403),
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const router = renderApp('/');
    fireEvent.click(await screen.findByTestId('user-menu'));
    fireEvent.click(await screen.findByTestId('user-menu-profile'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.state).toEqual({ from: '/' });
  });

  it('shows a signed-in user who fails a guard why the page is closed, in place, with a way back', async () => {
    serve(signedIn(makeUser('demand', { name: 'Dee' })));
    const router = renderApp('/demands');
    expect((await screen.findByTestId('closed-page-reason')).textContent).toBe(
      'This page is for admins, and this account is a demand account',
    );
    expect(router.state.location.pathname).toBe('/demands');
    fireEvent.click(screen.getByTestId('closed-page-home'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });

  it("shows the server's edition sentence on a page the edition does not have", async () => {
    serve(signedIn(makeUser('admin')));
    renderApp('/log');
    expect((await screen.findByTestId('closed-page-reason')).textContent).toBe(
      'User Activity is not part of this edition (default)',
    );
  });

  it('shows the not-found page for an unknown route', async () => {
    serve(signedIn(makeUser('sdk')));
    renderApp('/no/such/page');
    expect(await screen.findByText('This page could not be found')).toBeTruthy();
    expect(screen.getByText('Back to the home page').getAttribute('href')).toBe('/');
  });

  it('opens navigation links in new tabs once the setting is ticked', async () => {
    const puts: unknown[] = [];
    serve({
      ...signedIn(makeUser('demand')),
      'PUT /api/ui/settings': (init) => {
        puts.push(JSON.parse(String(init?.body)));
        return jsonResponse({ tabs: true });
      },
    });
    renderApp('/');
    expect((await screen.findByTestId('nav-/tags')).getAttribute('target')).toBeNull();
    fireEvent.click(screen.getByTestId('user-menu'));
    fireEvent.click(await screen.findByTestId('user-menu-settings'));
    expect(await screen.findByText('User Interface Settings')).toBeTruthy();
    fireEvent.click(screen.getByText('Open links in new Tabs'));
    await waitFor(() => expect(screen.getByTestId('nav-/tags').getAttribute('target')).toBe('_blank'));
    expect(localStorage.getItem(STORAGE_KEYS.uiTabs)).toBe('1');
    await waitFor(() => expect(puts).toEqual([{ tabs: true }]));
  });

  it('shows a toast for the global showError event', async () => {
    serve(signedIn(makeUser('adv')));
    renderApp('/');
    await screen.findByTestId('dashboard');
    act(() => {
      window.dispatchEvent(
        new CustomEvent('showError', { detail: { title: 'Export failed', message: 'Too many rows' } }),
      );
    });
    expect(await screen.findByText('Export failed')).toBeTruthy();
    expect(await screen.findByText('Too many rows')).toBeTruthy();
  });

  it('opens the read-only profile of a sub user', async () => {
    serve({
      ...signedIn(makeUser('sub')),
      'GET /api/demand/info': () =>
        jsonResponse(
          makeProfile({
            type: 'sub',
            readOnly: true,
            sellersJson: { type: 'BOTH', name: 'P', id: '1', status: 1, confidential: 0 },
          }),
        ),
    });
    renderApp('/');
    fireEvent.click(await screen.findByTestId('user-menu'));
    fireEvent.click(await screen.findByTestId('user-menu-profile'));
    expect((await screen.findByTestId('profile-form')).getAttribute('data-readonly')).toBe('true');
  });
});
