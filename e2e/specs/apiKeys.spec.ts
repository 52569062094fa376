import { expect, test } from '../support/test.js';
import { RESOURCES } from '@adplane/shared';
import { EDITION_SERVERS } from '../support/servers.js';
import { openFromUserMenu, signIn } from '../support/session.js';

/**
 * API keys end to end: a key made in the profile modal calls the real API with `Authorization:
 * Bearer` (no cookie) and sees what its owner's session sees; revoked in the console, it gets 401.
 */
test('an API key made in the console reads the same tenant’s data, and gets 401 once revoked', async ({
  page,
  request,
}) => {
  const server = EDITION_SERVERS.default.url;
  const list = `${server}${RESOURCES.campaigns.api}/list`;
  const name = `e2e automation ${test.info().workerIndex}-${test.info().retry}-${Date.now()}`;

  await signIn(page, 'demand');
  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  await page.getByTestId('account-tab-apiKeys').click();
  const section = page.getByTestId('api-keys');
  await section.scrollIntoViewIfNeeded();
  await page.getByTestId('api-key-name').fill(name);
  await page.getByTestId('api-key-create').click();
  const created = page.getByTestId('api-key-created');
  await expect(created).toContainText('it will not be shown again');
  await expect(created.getByRole('button', { name: /copy/i })).toBeVisible();
  const key = (await page.getByTestId('api-key-secret').innerText()).trim();
  expect(key).toMatch(/^adp_[A-Za-z0-9_-]{43}$/);
  const row = section.locator('tr', { hasText: name });
  await expect(row).toContainText(key.slice(0, 12));
  await expect(row).toContainText('read and write');
  await created.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('api-keys-created.png') });

  // the key, without the page's cookie, sees what the signed-in console sees
  const bySession = await page.evaluate(async (url) => (await fetch(url, { credentials: 'include' })).json(), list);
  const byKey = await request.get(list, { headers: { Authorization: `Bearer ${key}` } });
  expect(byKey.status()).toBe(200);
  const rows = (await byKey.json()) as { id: number }[];
  expect(rows.length).toBeGreaterThan(0);
  expect(rows).toEqual(bySession);
  const me = await request.get(`${server}/api/auth/user`, { headers: { Authorization: `Bearer ${key}` } });
  expect(await me.json()).toMatchObject({ type: 'demand', name: 'Northwind Media' });

  // revoked with a confirmation, it is refused
  await row.getByRole('button', { name: 'Revoke' }).click();
  const confirm = page.getByRole('dialog').filter({ hasText: `Revoke the key "${name}"?` });
  await confirm.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText('revoked');
  await page.screenshot({ path: test.info().outputPath('api-keys-revoked.png') });
  const refused = await request.get(list, { headers: { Authorization: `Bearer ${key}` } });
  expect(refused.status()).toBe(401);
});

test('the API reference at /api/docs renders the OpenAPI document without fetching anything else', async ({ page }) => {
  const outside: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(EDITION_SERVERS.default.url)) outside.push(r.url());
  });
  await page.goto(`${EDITION_SERVERS.default.url}/api/docs`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('adplane API');
  await expect(page.locator('section.op', { hasText: '/api/apiKeys' }).first()).toBeVisible();
  await page
    .locator('section.op', { hasText: 'POST' })
    .filter({ hasText: '/api/apiKeys' })
    .getByText('Request body')
    .click();
  await page.screenshot({ path: test.info().outputPath('api-docs.png') });
  expect(outside).toEqual([]);
});
