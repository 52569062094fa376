import { type Page, expect } from '@playwright/test';
import { DEMO_PASSWORD } from './servers.js';

/** Sign in through the real login page and wait for the console frame. */
export async function signIn(page: Page, username: string, password = DEMO_PASSWORD, baseUrl = ''): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await expect(page).not.toHaveURL(/\/login/);
}

/** Switch the console to DSP or SSP mode the way a person does (stored in local storage, page reloads). */
export async function useMode(page: Page, mode: 'ssp' | 'dsp'): Promise<void> {
  await page.evaluate((m) => localStorage.setItem('adplane_mode', m), mode);
  await page.reload();
}

/**
 * Opens `item` of the user menu until `opened` (a test id inside what it opens) shows. The
 * dashboard loads its numbers while the menu opens: a click that lands while the dropdown
 * re-renders is lost, and so may be the menu item's own click, so both are tried again.
 */
export async function openFromUserMenu(page: Page, item: string, opened: string): Promise<void> {
  await expect(async () => {
    if (!(await page.getByTestId(opened).isVisible())) {
      if (!(await page.getByTestId(item).isVisible())) await page.getByTestId('user-menu').click();
      await page.getByTestId(item).click({ timeout: 2_000 });
    }
    await expect(page.getByTestId(opened)).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}
