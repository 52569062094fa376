import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { type Edition } from '@adplane/shared';
import { openedModal } from '../support/antdFields.js';
import { DEMO_PASSWORD, EDITION_SERVERS } from '../support/servers.js';
import { openFromUserMenu, signIn, signInAt, signInThroughPage } from '../support/session.js';

/**
 * The console shell against the specification's navigation table (section 2), for every role, both
 * modes and all three editions, each edition on its own real server.
 */
type Role = 'admin' | 'demand' | 'manager' | 'sub' | 'adv' | 'sdk';

/** The links of the bar (menus included) the spec gives each role; written out, not computed by the console's code. */
function expectedLinks(role: Role, mode: 'ssp' | 'dsp', edition: Edition): string[] {
  const links = ['/'];
  const reports = ['/report', '/reports'];
  if (role === 'admin') {
    // The postbid report is always an admin's (its refusal rule lets admins through).
    links.push('/demands', '/users', '/tooltips', '/finance', '/pbReport', ...reports);
    if (mode === 'ssp') links.push('/applists');
    if (edition === 'CTVMediaV2V') links.push('/log');
  }
  if (role === 'demand' || role === 'manager') {
    // the account's alerts sit beside its reports, in either mode
    links.push('/advertisers', '/applists', '/iplists', '/targetings', '/ivts', '/alerts', ...reports);
    if (mode === 'ssp') links.push('/tags', '/channels', '/subpublishers', '/supply-deals');
    else links.push('/creatives', '/campaigns', '/adexchanges', '/suppliers', '/deals');
    if (edition === 'V2V') links.push('/crelists', '/publists');
    if (edition === 'CTVMediaV2V') links.push('/log');
    if (edition === 'CTVMediaV2V' && role === 'demand') links.push('/managers');
    // The demo's Northwind owner has post-bid pixels (showPostbidPix); its team member does not.
    if (role === 'demand') links.push('/pbReport');
  }
  if (role === 'sub' || role === 'adv') links.push(...reports);
  if (role === 'sdk') links.push('/sdk');
  return [...new Set(links)].sort();
}

async function navLinks(page: Page): Promise<string[]> {
  await expect(page.getByTestId('user-menu')).toBeVisible();
  const ids = await page
    .locator('[data-testid^="nav-/"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(4)));
  return [...new Set(ids)].sort();
}

async function setMode(page: Page, mode: 'ssp' | 'dsp') {
  await page.evaluate((m) => localStorage.setItem('adplane_mode', m), mode);
  await page.reload();
}

for (const server of Object.values(EDITION_SERVERS)) {
  test.describe(`navigation, ${server.edition} edition`, () => {
    for (const role of ['admin', 'demand', 'manager', 'sub', 'adv', 'sdk'] as const) {
      test(`${role}`, async ({ page }) => {
        // Admins and the demand users of a DSP tenant (Northwind has the DSP view), its team member included.
        const canSwitch = role === 'admin' || role === 'demand' || role === 'manager';
        // The bar is the same on every page: each mode is read on a page of few numbers (the saved
        // reports, or an SDK user's one page) rather than the dashboard with its charts.
        const light = `${server.url}${role === 'sdk' ? '/sdk' : '/reports'}`;
        for (const [i, mode] of (canSwitch ? (['ssp', 'dsp'] as const) : (['ssp'] as const)).entries()) {
          if (i === 0) await signInAt(page, role, light, mode);
          else await setMode(page, mode);
          expect(await navLinks(page), `${role} in ${mode}`).toEqual(expectedLinks(role, mode, server.edition));
          await expect(page.getByTestId('nav-insight-hub')).toHaveCount(server.edition === 'V2V' ? 1 : 0);
        }
        await expect(page.getByTestId('mode-switch')).toHaveCount(canSwitch ? 1 : 0);
        await page.getByTestId('user-menu').click();
        await expect(page.getByTestId('user-menu-config')).toHaveCount(role === 'admin' ? 1 : 0);
        // an admin's item opens its sign-in and API keys, everyone else's the profile too
        await expect(page.getByTestId('user-menu-profile')).toHaveText(
          role === 'admin' ? 'Sign-in and API keys' : 'Profile',
        );
        await expect(page.getByTestId('user-menu-settings')).toHaveCount(1);
      });
    }
  });
}

test('a user without showDsp stays in SSP mode even with DSP stored', async ({ page }) => {
  await signIn(page, 'sub');
  await setMode(page, 'dsp');
  expect(await navLinks(page)).toEqual(expectedLinks('sub', 'ssp', 'default'));
});

test('switching mode with SSP | DSP in the bar reloads into the other mode', async ({ page }) => {
  await signIn(page, 'demand');
  await setMode(page, 'ssp');
  await page.getByTestId('mode-switch-dsp').click();
  await expect(page.locator('[data-testid="nav-/campaigns"]')).toHaveCount(1);
  expect(await page.evaluate(() => localStorage.getItem('adplane_mode'))).toBe('dsp');
});

test('the logo links to the landing URL, and V2V has the Insight Hub link, as configured', async ({ page }) => {
  await signIn(page, 'demand', undefined, EDITION_SERVERS.V2V.url);
  await expect(page.getByTestId('nav-logo')).toHaveAttribute('href', EDITION_SERVERS.V2V.landing);
  await expect(page.getByTestId('nav-insight-hub')).toHaveAttribute('href', EDITION_SERVERS.V2V.insightHub);
});

test('responses encrypted by the server are read by the console', async ({ page }) => {
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/auth/login'));
  await signInThroughPage(page, 'demand', undefined, EDITION_SERVERS.V2V.url);
  const response = await answer;
  expect(response.headers()['json-encrypt']).toBe('1');
  expect(await response.text()).not.toContain('Northwind');
  await expect(page.getByTestId('dashboard-greeting')).toContainText('Northwind');
});

test('an unknown route answers HTTP 404 and shows the not-found page with a way home', async ({ page }) => {
  await signIn(page, 'demand');
  const response = await page.goto('/no/such/page');
  expect(response?.status()).toBe(404);
  expect((await page.goto('/channels'))?.status()).toBe(200);
  await page.goto('/no/such/page');
  await expect(page.getByTestId('not-found-title')).toHaveText('This page could not be found');
  await page.getByRole('link', { name: 'Back to the home page' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('a page the role may not open says why in place, with a way back, and keeps the session', async ({ page }) => {
  await signInAt(page, 'sub', '/demands');
  await expect(page.getByTestId('closed-page-reason')).toHaveText(
    'This page is for admins, and this account is a subpublisher',
  );
  await expect(page).toHaveURL(/\/demands$/);
  await page.getByTestId('closed-page-home').click();
  await expect(page.getByTestId('dashboard')).toBeVisible();
});

test('a signed-out visitor is sent to /login, and the session probe logs no 403 in the browser console', async ({
  page,
}) => {
  const failures: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') failures.push(m.text());
  });
  page.on('response', (r) => {
    if (r.status() === 403 || r.status() === 401) failures.push(`${r.status()} ${r.url()}`);
  });
  await page.goto('/channels');
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByTestId('login-submit')).toBeVisible();
  expect(failures).toEqual([]);
});

test('a 403 from any call sends the user to /login', async ({ page }) => {
  // A page whose calls are all answered, so that the next call is the one this test makes (the
  // dashboard's own numbers would otherwise race the sign-out below).
  await signInAt(page, 'demand', '/channels');
  await expect(page.getByTestId('page-channels')).toBeVisible();
  await expect(page.locator('.ant-table-row').first()).toBeVisible();
  // The session ends on the server (another tab signed out); the next call answers 403. That call
  // is the profile the user opens here, unless one of the page's own polls (the bell, the month's
  // cost) comes first and already took the console to /login: either way it must end there.
  await page.evaluate(() => fetch('/api/auth/logout', { credentials: 'include' }));
  await page
    .getByTestId('user-menu')
    .click({ timeout: 5_000 })
    .then(() => page.getByTestId('user-menu-profile').click({ timeout: 5_000 }))
    .catch(() => undefined);
  await expect(page).toHaveURL(/\/login/);
});

test('a wrong password says Bad credentials', async ({ page }) => {
  await page.goto('/login');
  await page.getByTestId('login-username').fill('demand');
  await page.getByTestId('login-password').fill('wrong-password');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('login-error')).toContainText('Bad credentials');
});

test('impersonation: an admin acts as a demand user and comes back', async ({ page }) => {
  await signIn(page, 'admin');
  const demands = await page.evaluate(() =>
    fetch('/api/demands/list').then((r) => r.json() as Promise<{ id: number; name: string }[]>),
  );
  const northwind = demands.find((d) => d.name === 'Northwind Media')!;
  expect(northwind).toBeTruthy();
  await page.goto(`/api/switch?type=demand&id=${northwind.id}`);
  await expect(page.getByTestId('impersonation')).toContainText('Northwind Media');
  await expect(page.locator('[data-testid="nav-/demands"]')).toHaveCount(0);
  await expect(page.locator('[data-testid="nav-/tags"]')).toHaveCount(1);
  await page.getByTestId('nav-back-to-admin').click();
  await expect(page.locator('[data-testid="nav-/demands"]')).toHaveCount(1);
  await expect(page.getByTestId('impersonation')).toHaveCount(0);
});

test('profile: apply the general contact to all after the warning, save, and it stays', async ({ page }) => {
  await signIn(page, 'demand');
  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  await page.getByTestId('profile-tab-technical').click();
  await page.getByTestId('contact-technical-lastName').fill('Old-Technical');
  await page.getByTestId('profile-tab-general').click();
  await page.getByTestId('contact-general-firstName').fill('Grace');
  await page.getByTestId('contact-general-lastName').fill('Hopper');
  await page.getByTestId('contact-general-contactEmail').fill('grace@northwind.example');
  await page.getByTestId('apply-to-all-contacts').click();
  const warning = page.getByRole('dialog').filter({ hasText: 'Warning' });
  await expect(warning).toContainText('All contacts will be replaces with this one. Do you really want to continue?');
  await warning.getByRole('button', { name: 'OK' }).click();
  await page.getByTestId('profile-tab-billing').click();
  await expect(page.getByTestId('contact-billing-lastName')).toHaveValue('Hopper');
  await page.getByTestId('profile-tab-common').click();
  await page.getByTestId('profile-companyName').fill('Northwind Media Group');
  await page.getByTestId('profile-save').click();
  await expect(page.getByTestId('profile-form')).toBeHidden();
  const saved = await page.evaluate(() =>
    fetch('/api/demand/info').then(
      (r) => r.json() as Promise<{ companyName: string; contacts: { type: string; lastName: string }[] }>,
    ),
  );
  expect(saved.companyName).toBe('Northwind Media Group');
  expect(saved.contacts.map((c) => c.lastName)).toEqual(['Hopper', 'Hopper', 'Hopper']);
});

test('profile is read-only for a subpublisher', async ({ page }) => {
  await signIn(page, 'sub');
  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  await expect(page.getByTestId('profile-form')).toHaveAttribute('data-readonly', 'true');
  await expect(page.getByTestId('apply-to-all-contacts')).toHaveCount(0);
});

test('config: the admin saves post-bid allowances, commas and dots stripped', async ({ page }) => {
  await signIn(page, 'admin');
  await openFromUserMenu(page, 'user-menu-config', 'config-postbidMaxImps');
  await page.getByTestId('config-postbidMaxImps').fill('1,500,000');
  await page.getByTestId('config-postbidMaxReps').fill('');
  await page.getByTestId('config-save').click();
  await expect(page.getByTestId('config-modal')).toBeHidden();
  const config = await page.evaluate(() => fetch('/api/admin/config').then((r) => r.json()));
  expect(config).toEqual({ postbidMaxImps: 1_500_000, postbidMaxReps: 0 });
});

test("settings: 'Open links in new Tabs' makes links open in a new tab", async ({ page }) => {
  // The server keeps the flag for the user: start from it switched off (a repeated run or another
  // spec may have left it on), before the sign-in copies it into the browser.
  expect(
    (await page.request.post('/api/auth/login', { data: { username: 'demand', password: DEMO_PASSWORD } })).status(),
  ).toBe(200);
  expect((await page.request.put('/api/ui/settings', { data: { tabs: false } })).status()).toBe(200);
  await signIn(page, 'demand');
  await expect(page.locator('[data-testid="nav-/targetings"]')).not.toHaveAttribute('target', '_blank');
  await openFromUserMenu(page, 'user-menu-settings', 'settings-tabs');
  // Tick the box once the modal's opening zoom is over (a click during it lands beside the box).
  const modal = await openedModal(page, 'settings-tabs');
  await modal.getByRole('checkbox', { name: 'Open links in new Tabs' }).check();
  await expect(modal.getByRole('checkbox', { name: 'Open links in new Tabs' })).toBeEnabled();
  await page.getByTestId('settings-close').click();
  expect(await page.evaluate(() => localStorage.getItem('ui_tabs'))).toBeTruthy();
  await expect(page.locator('[data-testid="nav-/targetings"]')).toHaveAttribute('target', '_blank');
  // Saved for the user: another browser (a fresh page of the same session) opens links in new tabs too.
  expect(await (await page.request.get('/api/ui/settings')).json()).toMatchObject({ tabs: true });
});
