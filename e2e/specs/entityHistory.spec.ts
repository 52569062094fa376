import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';

test("a row's drawer shows its own history in the default edition, with what each change did", async ({ page }) => {
  const ivts = new ResourcePage(page, 'ivts', '/ivts');
  await ivts.openAs('demand');
  // A change made through the API as the signed-in user, the same call the pixel's form sends.
  const changed = await page.evaluate(async () => {
    const list = (await (await fetch('/api/demand/ivts/list')).json()) as { id: number }[];
    const row = (await (await fetch(`/api/demand/ivts/${list[0].id}`)).json()) as Record<string, unknown>;
    const { vendor, urlTemplate, stage } = row;
    const samplePercent = row.samplePercent === 37 ? 38 : 37;
    const res = await fetch(`/api/demand/ivts/${list[0].id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: row.name, status: row.status, vendor, urlTemplate, stage, samplePercent }),
    });
    return { status: res.status, id: list[0].id, before: row.samplePercent, samplePercent };
  });
  expect(changed.status).toBe(200);
  // the whole User Activity log is not part of this edition
  expect((await page.request.get('/api/activity')).status()).toBe(403);

  await page.goto(`/ivts?open=${changed.id}`);
  await expect(ivts.drawer).toBeVisible({ timeout: 30_000 });
  const history = ivts.drawer.getByTestId('entity-history');
  await history.scrollIntoViewIfNeeded();
  await history.locator('.ant-collapse-header').click();
  const newest = history.locator('li[data-testid^="history-entry-"]').first();
  await expect(newest).toContainText('Changed');
  await expect(newest).toContainText('by Northwind Media');
  await expect(newest).toContainText(`samplePercent: ${changed.before} → ${changed.samplePercent}`);
  await newest.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('entity-history.png') });
});
