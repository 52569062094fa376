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
