import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { signIn, signInAt } from '../support/session.js';

/**
 * In Chromium: mode and edition are not only menus (docs/security.md). A tenant without the DSP
 * view (acme) cannot open DSP pages by URL, and on the default edition nobody opens /crelists,
 * /publists, /managers or /log: the console's route guards apply the server's rule (packages/shared
 * entitlements.ts), never ask the API for what it would refuse, and so never lose the session to a
 * 403: the page says why in the server's words instead. The API itself refuses the same.
 */
const defaultUrl = EDITION_SERVERS.default.url;

/** Paths of every /api call the page makes from now on. */
function watchApi(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/')) calls.push(url.pathname);
  });
  return calls;
}

async function stillSignedIn(page: Page, baseUrl = defaultUrl): Promise<void> {
  expect((await page.request.get(`${baseUrl}/api/auth/user`)).status()).toBe(200);
}

test('a tenant without the DSP view cannot open DSP pages by URL, and the API refuses them too', async ({ page }) => {
  await signIn(page, 'acme');
  const calls = watchApi(page);
  for (const path of ['/campaigns', '/creatives', '/adexchanges', '/suppliers', '/deals']) {
    await page.goto(path);
    await expect(page.getByTestId('closed-page-reason'), path).toHaveText(/need the DSP view, which is not enabled/);
    await expect(page, path).toHaveURL(new RegExp(`${path}$`));
  }
  expect(calls.filter((p) => /^\/api\/demand\/(campaigns|creatives|adexchanges|sups|deals)\b/.test(p))).toEqual([]);

  const created = await page.request.post(`${defaultUrl}/api/demand/campaigns`, { data: { name: 'By URL' } });
  expect(created.status()).toBe(403);
  expect(((await created.json()) as { message: string }).message).toMatch(/DSP view/);
  await stillSignedIn(page);
});

test("acme's advertisers and targetings pages leave out what its tenant cannot use, and keep the session", async ({
  page,
}) => {
  const calls = watchApi(page);
  await signInAt(page, 'acme', '/advertisers');
  await expect(page.getByTestId('page-advs')).toBeVisible();
  await expect(page.locator('.ant-table-thead')).toContainText('Tags');
  await expect(page.locator('.ant-table-thead')).not.toContainText('Campaigns');
  await page.goto('/targetings');
  await expect(page.getByTestId('page-targetings')).toBeVisible();
  await expect(page.locator('.ant-table-row').first()).toBeVisible();
  await expect(page).toHaveURL(/\/targetings$/);
  expect(calls.filter((p) => /^\/api\/demand\/(campaigns|creatives|crelists|publists)\b/.test(p))).toEqual([]);
  await stillSignedIn(page);
});

test('edition-only pages open in their edition only, in the console and the API', async ({ page }) => {
  await signIn(page, 'demand');
  const calls = watchApi(page);
  for (const path of ['/crelists', '/publists', '/managers', '/log']) {
    await page.goto(path);
    await expect(page.getByTestId('closed-page-reason'), path).toHaveText(/not part of this edition \(default\)$/);
  }
  expect(calls.filter((p) => /^\/api\/(demand\/(crelists|publists|managers)|activity)\b/.test(p))).toEqual([]);
  for (const api of ['/api/demand/crelists/list', '/api/demand/publists', '/api/demand/managers', '/api/activity']) {
    const res = await page.request.get(`${defaultUrl}${api}`);
    expect(res.status(), api).toBe(403);
    expect(((await res.json()) as { message: string }).message, api).toMatch(/not part of this edition/);
  }
  await stillSignedIn(page);

  // In the V2V edition the lists are there; Managers and User Activity are CTVMediaV2V's.
  const v2v = EDITION_SERVERS.V2V.url;
  await signInAt(page, 'demand', `${v2v}/crelists`);
  await expect(page.getByTestId('page-crelists')).toBeVisible();
  await page.goto(`${v2v}/managers`);
  await expect(page.getByTestId('closed-page-reason')).toHaveText('Managers are not part of this edition (V2V)');
  const ctv = EDITION_SERVERS.CTVMediaV2V.url;
  await signInAt(page, 'demand', `${ctv}/managers`);
  await expect(page.getByTestId('page-managers')).toBeVisible();
});
