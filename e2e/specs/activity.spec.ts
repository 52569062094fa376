import { expect, test } from '../support/test.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { openFromNavMenu, signIn, signInAt } from '../support/session.js';

const server = EDITION_SERVERS.CTVMediaV2V;

test('User Activity shows who changed which fields, before and after', async ({ page }) => {
  await signIn(page, 'demand', undefined, server.url);
  // A change made through the API as the signed-in user, the same call the IVT form sends.
  const result = await page.evaluate(async () => {
    const list = (await (await fetch('/api/demand/ivts/list')).json()) as { id: number }[];
    const row = (await (await fetch(`/api/demand/ivts/${list[0].id}`)).json()) as Record<string, unknown>;
    const { vendor, urlTemplate, stage } = row;
    const res = await fetch(`/api/demand/ivts/${list[0].id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: row.name, status: row.status, vendor, urlTemplate, stage, samplePercent: 42 }),
    });
    return { status: res.status, name: row.name as string };
  });
  expect(result.status).toBe(200);
  await openFromNavMenu(page, 'reports', 'nav-/log', 'page-log');
  const entry = page.locator('.ant-table-row', { hasText: result.name }).first();
  await expect(entry).toContainText('Northwind Media');
  await expect(entry).toContainText('update');
  await expect(entry).toContainText('samplePercent');
  await entry.locator('.ant-table-row-expand-icon').click();
  const changes = page.locator('.ant-table-expanded-row');
  await expect(changes).toContainText('42');
});

test('User Activity is not open to a subpublisher, who is told why', async ({ page }) => {
  await signInAt(page, 'sub', `${server.url}/log`);
  await expect(page.getByTestId('closed-page-reason')).toHaveText(
    'This page is for demand accounts and admins, and this account is a subpublisher',
  );
});
