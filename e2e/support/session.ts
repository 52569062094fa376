import { type Page, expect } from '@playwright/test';
import { DEMO_PASSWORD } from './servers.js';

/**
 * Sign in through the real login page and wait for the console frame. The specs of the login page
 * itself use it (shell.spec.ts: every role of every edition, the encrypted answer; security.spec.ts).
 */
export async function signInThroughPage(
  page: Page,
  username: string,
  password = DEMO_PASSWORD,
  baseUrl = '',
): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await expect(page).not.toHaveURL(/\/login/);
}

/**
 * The login page's call (POST /api/auth/login) alone: the session cookie lands in the page's browser
 * context, and the API calls of page.request carry it, before any page is loaded.
 */
export async function logIn(page: Page, username: string, baseUrl = '', password = DEMO_PASSWORD): Promise<void> {
  const answer = await page.request.post(`${baseUrl}/api/auth/login`, { data: { username, password } });
  expect(answer.status(), `sign-in of ${username}`).toBe(200);
}

/**
 * Sign in with the call the login page makes (POST /api/auth/login: the session cookie lands in the
 * page's browser context), then open the console at `/`, where the login page goes after signing in,
 * and wait for its frame. One page load instead of two (the login page, then the console): the specs
 * that only need a signed-in console use it; what the login page does is signInThroughPage's.
 */
export async function signIn(page: Page, username: string, password = DEMO_PASSWORD, baseUrl = ''): Promise<void> {
  await logIn(page, username, baseUrl, password);
  await page.goto(`${baseUrl}/`);
  await expect(page.getByTestId('user-menu')).toBeVisible();
}

/**
 * Sign in with the login page's call, as signIn does, and open the console straight at `path` (a path
 * of the default server, or a whole URL of another edition's), in `mode` when one is given: one load
 * of the console where signIn, useMode and opening a page took three (two of them the dashboard, with
 * its numbers). The mode is stored as the bar's switch stores it, before the console first reads it.
 */
export async function signInAt(
  page: Page,
  username: string,
  path: string,
  mode?: 'ssp' | 'dsp',
  password = DEMO_PASSWORD,
): Promise<void> {
  const origin = /^https?:/.test(path) ? new URL(path).origin : '';
  await logIn(page, username, origin, password);
  if (mode) {
    // local storage is the origin's: a document of the server's without the console (its health
    // answer) is enough to write it
    await page.goto(`${origin}/healthz`);
    await page.evaluate((m) => localStorage.setItem('adplane_mode', m), mode);
  }
  await page.goto(path);
  await expect(page.getByTestId('user-menu')).toBeVisible({ timeout: 30_000 });
}

/** Switch the console to DSP or SSP mode the way a person does (stored in local storage, page reloads). */
export async function useMode(page: Page, mode: 'ssp' | 'dsp'): Promise<void> {
  await page.evaluate((m) => localStorage.setItem('adplane_mode', m), mode);
  await page.reload();
}

/**
 * Closes the bar's submenu popups that are open. The pointer leaves every menu; a popup that missed
 * its pointer leaving (the page re-rendered the menu as the pointer left it: without motion antd
 * unmounts and mounts it at once) closes when the pointer enters its menu's title and leaves again,
 * as a person's pointer passing over it would make it.
 */
async function closeMenus(page: Page): Promise<void> {
  const popups = page.locator('.ant-menu-submenu-popup:visible');
  if ((await popups.count()) === 0) return;
  await page.mouse.move(1, 1);
  if (
    await expect(popups)
      .toHaveCount(0, { timeout: 1_000 })
      .then(
        () => true,
        () => false,
      )
  )
    return;
  for (const title of await page.locator('[data-testid^="nav-menu-"]:visible').all()) await title.hover();
  await page.mouse.move(1, 1);
  await expect(popups)
    .toHaveCount(0, { timeout: 3_000 })
    .catch(() => {});
}

/**
 * Opens `item` of a menu until `opened` (a test id inside what it opens) shows. The dashboard
 * loads its numbers while the menu opens: a click that lands while the dropdown re-renders is
 * lost, and so may be the menu item's own click, so both are tried again. `open` shows the menu.
 * Popups of other menus left open are closed before the menu opens.
 */
async function openFrom(page: Page, open: () => Promise<void>, item: string, opened: string): Promise<void> {
  let tries = 0;
  await expect(async () => {
    if (!(await page.getByTestId(opened).isVisible())) {
      // a try that failed may have left a popup over the item
      if (tries++ > 0 || !(await page.getByTestId(item).isVisible())) await closeMenus(page);
      if (!(await page.getByTestId(item).isVisible())) await open();
      await page.getByTestId(item).click({ timeout: 2_000 });
    }
    // the first visit to a page loads its code, which a busy machine may take a while to serve
    await expect(page.getByTestId(opened)).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 30_000 });
}

/** Opens `item` of the user menu (top right) until `opened` shows. */
export async function openFromUserMenu(page: Page, item: string, opened: string): Promise<void> {
  await openFrom(page, () => page.getByTestId('user-menu').click(), item, opened);
}

/** Opens `item` (`nav-/log`) of the navigation's `menu` (`reports`), hovered as a person does, until `opened` shows. */
export async function openFromNavMenu(page: Page, menu: string, item: string, opened: string): Promise<void> {
  await openFrom(page, () => page.getByTestId(`nav-menu-${menu}`).hover(), item, opened);
}

/** The menu of the bar each list and report page sits in (navigation.ts); the others are links on the bar itself. */
const MENU_OF: Record<string, string> = {
  '/tags': 'demand',
  '/creatives': 'demand',
  '/campaigns': 'demand',
  '/adexchanges': 'demand',
  '/advertisers': 'demand',
  '/channels': 'supply',
  '/subpublishers': 'supply',
  '/suppliers': 'supply',
  '/supply-deals': 'supply',
  '/applists': 'targeting',
  '/iplists': 'targeting',
  '/targetings': 'targeting',
  '/ivts': 'targeting',
  '/crelists': 'targeting',
  '/publists': 'targeting',
  '/deals': 'targeting',
  '/report': 'reports',
  '/reports': 'reports',
  '/pbReport': 'reports',
  '/finance': 'reports',
  '/log': 'reports',
};

/**
 * Opens the console page at `path` from the bar, inside the app (no page load), until `opened` shows:
 * its menu hovered and its item clicked, or its link on the bar clicked. The pointer then leaves the
 * bar's menus, so that the menu closes as it does when a person moves on to the page.
 */
export async function openFromBar(page: Page, path: string, opened: string): Promise<void> {
  const menu = MENU_OF[path];
  if (menu) await openFromNavMenu(page, menu, `nav-${path}`, opened);
  else await openFrom(page, async () => {}, `nav-${path}`, opened);
  // the top left corner: the logo's end of the bar, where nothing opens on hover
  await page.mouse.move(1, 1);
}
