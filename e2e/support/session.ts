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
 * Sign in with the call the login page makes (POST /api/auth/login: the session cookie lands in the
 * page's browser context), then open the console at `/`, where the login page goes after signing in,
 * and wait for its frame. One page load instead of two (the login page, then the console): the specs
 * that only need a signed-in console use it; what the login page does is signInThroughPage's.
 */
export async function signIn(page: Page, username: string, password = DEMO_PASSWORD, baseUrl = ''): Promise<void> {
  const answer = await page.request.post(`${baseUrl}/api/auth/login`, { data: { username, password } });
  expect(answer.status(), `sign-in of ${username}`).toBe(200);
  await page.goto(`${baseUrl}/`);
  await expect(page.getByTestId('user-menu')).toBeVisible();
}

/** Switch the console to DSP or SSP mode the way a person does (stored in local storage, page reloads). */
export async function useMode(page: Page, mode: 'ssp' | 'dsp'): Promise<void> {
  await page.evaluate((m) => localStorage.setItem('adplane_mode', m), mode);
  await page.reload();
}

/**
 * Opens `item` of a menu until `opened` (a test id inside what it opens) shows. The dashboard
 * loads its numbers while the menu opens: a click that lands while the dropdown re-renders is
 * lost, and so may be the menu item's own click, so both are tried again. `open` shows the menu.
 */
async function openFrom(page: Page, open: () => Promise<void>, item: string, opened: string): Promise<void> {
  await expect(async () => {
    if (!(await page.getByTestId(opened).isVisible())) {
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
