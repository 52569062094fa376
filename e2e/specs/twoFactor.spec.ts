import { type Page } from '@playwright/test';
import { generateSync } from 'otplib';
import { expect, test } from '../support/test.js';
import { openFromUserMenu, signIn, signInThroughPage } from '../support/session.js';

/**
 * Two-factor sign-in end to end: a user enrols in the profile's Two-factor tab (the QR code and key
 * the server made), signs out and in again with a code computed here from the key shown, by the
 * same library the server uses; a demand account that requires it leads its user to enrol on the
 * login page before any session; an admin makes an SDK user on the Users page. Each test makes its
 * own accounts, so no other spec's demo users change how they sign in.
 */
const PASSWORD = 'e2e-two-factor-pass';
const stamp = () => `${test.info().workerIndex}${test.info().retry}${Date.now().toString(36)}`;

/**
 * A code of the app for `secret`, one 30-second step ahead of now: the server takes a step of
 * drift either way, and never a step it took before (the one that confirmed the enrolment).
 */
const nextCode = (secret: string) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

async function tenantId(page: Page, name: string): Promise<number> {
  const demands = (await (await page.request.get('/api/demands/list')).json()) as { id: number; name: string }[];
  const found = demands.find((d) => d.name === name);
  if (!found) throw new Error(`no demand account ${name}`);
  return found.id;
}

/** Enrol in the open enrolment form: read the key shown, confirm with its current code; the recovery codes. */
async function enrolOnPage(page: Page): Promise<{ secret: string; codes: string[] }> {
  await expect(page.getByTestId('two-factor-qr')).toBeVisible();
  const secret = (await page.getByTestId('two-factor-secret').innerText()).trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.getByTestId('two-factor-code').fill(generateSync({ secret, epoch: Math.floor(Date.now() / 1000) }));
  await page.getByTestId('two-factor-confirm').click();
  const list = page.getByTestId('two-factor-recovery-codes');
  await expect(list).toBeVisible();
  const codes = (await list.locator('li').allInnerTexts()).map((c) => c.trim());
  expect(codes).toHaveLength(10);
  return { secret, codes };
}

test('a user enrols in the profile tab, then signs in with the code of the key shown', async ({ page }) => {
  const username = `e2e-2fa-adv-${stamp()}`;
  await signIn(page, 'admin');
  const made = await page.request.post('/api/demand/advs', {
    data: {
      name: `Two-factor advertiser ${username}`,
      username,
      email: '',
      password: PASSWORD,
      tenantId: await tenantId(page, 'Northwind Media'),
    },
  });
  expect(made.status(), await made.text()).toBe(201);
  await page.request.get('/api/auth/logout');

  await signIn(page, username, PASSWORD);
  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  // the profile's own tabs, with Save and Cancel, in the Profile tab; the account's in tabs of their own
  await expect(page.getByTestId('profile-footer')).toBeVisible();
  for (const tab of ['profile', 'apiKeys', 'password', 'twoFactor'])
    await expect(page.getByTestId(`account-tab-${tab}`)).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('profile-tabs.png') });
  await page.getByTestId('account-tab-apiKeys').click();
  await expect(page.getByTestId('api-keys')).toBeVisible();
  await expect(page.getByTestId('profile-footer')).toBeHidden();
  await page.getByTestId('account-tab-password').click();
  await expect(page.getByTestId('profile-password')).toBeVisible();
  await page.getByTestId('account-tab-twoFactor').click();
  await expect(page.getByTestId('two-factor-state')).toHaveText('Off');
  await page.getByTestId('two-factor-start').click();
  await expect(page.getByTestId('two-factor-qr')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('two-factor-enrol.png') });
  const { secret, codes } = await enrolOnPage(page);
  await page.screenshot({ path: test.info().outputPath('two-factor-recovery-codes.png') });
  await page.getByTestId('two-factor-codes-done').click();
  await expect(page.getByTestId('two-factor-state')).toContainText('On since');
  await page.screenshot({ path: test.info().outputPath('two-factor-on.png') });

  // signed out, the password alone is not enough: the second step asks for the code
  await page.request.get('/api/auth/logout');
  await page.goto('/login');
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(PASSWORD);
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('login-second-step')).toBeVisible();
  expect((await page.request.get('/api/auth/session')).ok()).toBe(true);
  expect(await (await page.request.get('/api/auth/session')).json()).toEqual({ user: null });
  await page.getByTestId('login-code').fill('000000');
  await page.getByTestId('login-code-submit').click();
  await expect(page.getByTestId('login-second-step')).toContainText('is wrong, or was used already');
  await page.screenshot({ path: test.info().outputPath('login-second-step.png') });
  await page.getByTestId('login-code').fill(nextCode(secret));
  await page.getByTestId('login-code-submit').click();
  await expect(page).not.toHaveURL(/\/login/);
  await expect(page.getByTestId('user-menu')).toBeVisible();

  // a recovery code signs in once
  await page.request.get('/api/auth/logout');
  await page.goto('/login');
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(PASSWORD);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('login-use-recovery').click();
  await page.getByTestId('login-code').fill(codes[0]);
  await page.getByTestId('login-code-submit').click();
  await expect(page.getByTestId('user-menu')).toBeVisible();
});

test("a demand account's requirement: its user enrols on the login page before any session", async ({ page }) => {
  const username = `e2e-2fa-tenant-${stamp()}`;
  await signIn(page, 'admin');
  const made = await page.request.post('/api/demands', {
    data: {
      name: `Two-factor tenant ${username}`,
      username,
      email: '',
      password: PASSWORD,
      priceReq: 0,
      priceImp: 0,
      requireTwoFactor: true,
    },
  });
  expect(made.status(), await made.text()).toBe(201);
  await page.request.get('/api/auth/logout');

  await page.goto('/login');
  await page.getByTestId('login-username').fill(username);
  await page.getByTestId('login-password').fill(PASSWORD);
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('login-enrol')).toContainText('Your account requires two-factor sign-in');
  await expect(page.getByTestId('two-factor-qr')).toBeVisible();
  expect(await (await page.request.get('/api/auth/session')).json()).toEqual({ user: null });
  await page.screenshot({ path: test.info().outputPath('login-required-enrol.png') });
  await enrolOnPage(page);
  await page.getByTestId('two-factor-codes-done').click();
  await expect(page).not.toHaveURL(/\/login/);
  await expect(page.getByTestId('user-menu')).toBeVisible();
});

test('an admin makes an SDK user on the Users page, who signs in to the SDK apps', async ({ page }) => {
  const username = `e2e-sdk-${stamp()}`;
  await signIn(page, 'admin');
  await page.goto('/users');
  await expect(page.getByTestId('users-table')).toContainText('Harbor SDK');
  await page.getByTestId('users-new').click();
  const drawer = page.getByTestId('users-drawer');
  await drawer.getByTestId('users-tenant').click();
  await page.locator('.ant-select-dropdown').getByText('Northwind Media', { exact: true }).click();
  await drawer.getByTestId('account-name').fill(`SDK user ${username}`);
  await drawer.getByTestId('account-username').fill(username);
  await drawer.getByTestId('account-password').fill(PASSWORD);
  await page.screenshot({ path: test.info().outputPath('users-new-sdk.png') });
  await drawer.getByTestId('users-save').click();
  await expect(page.getByTestId('users-table')).toContainText(username);
  await page.screenshot({ path: test.info().outputPath('users-page.png') });
  await page.request.get('/api/auth/logout');
  await signInThroughPage(page, username, PASSWORD);
  await expect(page.getByTestId('nav-/sdk')).toBeVisible();
});
