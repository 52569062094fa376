import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { formItem, inputOf } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';

/**
 * Forms check with the kind's shared schema (packages/shared kinds): rules that moved out of the forms
 * show on the right field, in the server's words, and nothing is sent while one is broken. Then the
 * corrected form saves, with the explicit units (a share, an unlimited cap) shown in the list.
 * E2E_SHOTS=<dir> also saves screenshots of the drawers.
 */
const run = Date.now().toString(36);
const SHOTS = process.env.E2E_SHOTS;

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `units-${name}.png`) });
}

/** Counts the writes (POST/PUT) the console sends to an API path. */
function countWrites(page: Page, api: string): { count: number } {
  const seen = { count: 0 };
  page.on('request', (r) => {
    if ((r.method() === 'POST' || r.method() === 'PUT') && new URL(r.url()).pathname.startsWith(api)) seen.count++;
  });
  return seen;
}

test('a demand tag: the OpenRTB endpoint rule comes from the tag schema; a share and an unlimited cap save', async ({
  page,
}) => {
  const tags = new ResourcePage(page, 'tags', '/tags');
  await tags.openAs('demand');
  const writes = countWrites(page, '/api/demand/tags');
  await tags.startNew();
  const d = tags.drawer;
  await page.getByTestId('tag-name').fill(`E2E RTB tag ${run}`);
  await page.getByTestId('tag-integration').getByText('RTB', { exact: true }).click();
  await inputOf(page.getByTestId('tag-endpoint')).fill('ftp://bidder.e2e.test');
  await page.getByTestId('resource-save').click();
  await expect(formItem(d, 'OpenRTB endpoint').locator('.ant-form-item-explain-error')).toHaveText(
    'must be an http(s) OpenRTB endpoint',
  );
  expect(writes.count).toBe(0);

  await inputOf(page.getByTestId('tag-endpoint')).fill('https://bidder.e2e.test/openrtb2');
  await page.getByTestId('tag-price-type').getByText('Revenue share', { exact: true }).click();
  await inputOf(page.getByTestId('tag-daily-imps')).fill('0');
  await inputOf(page.getByTestId('tag-daily-imps')).clear();
  await expect(page.getByTestId('tag-daily-imps-unlimited')).toBeChecked();
  await d.getByText('Pricing', { exact: true }).first().scrollIntoViewIfNeeded();
  await shot(page, 'tag-price-caps');
  await tags.save();
  expect(writes.count).toBe(1);
  await expect(tags.row(`E2E RTB tag ${run}`)).toContainText('80.00% share');
});

test('a display creative: the size rule comes from the creative schema', async ({ page }) => {
  const creatives = new ResourcePage(page, 'creatives', '/creatives');
  await creatives.openAs('demand', 'dsp');
  const writes = countWrites(page, '/api/demand/creatives');
  await creatives.startNew();
  const d = creatives.drawer;
  await d.getByLabel(/^Name/).fill(`E2E Banner no size ${run}`);
  await d.getByText('Display', { exact: true }).click();
  await d.getByLabel(/^Image URL/).fill(`http://cdn.e2e.test/banners/${run}.png`);
  await page.getByTestId('resource-save').click();
  await expect(formItem(d, 'Width').locator('.ant-form-item-explain-error')).toHaveText(
    'width and height are required for display',
  );
  expect(writes.count).toBe(0);
  await shot(page, 'creative-schema-error');
  await d.getByLabel(/^Width/).fill('728');
  await d.getByLabel(/^Height/).fill('90');
  await creatives.save();
  expect(writes.count).toBe(1);
  await expect(creatives.row(`E2E Banner no size ${run}`)).toContainText('728×90');
});

test('an ad exchange: the endpoint rule comes from the schema; the QPS limit is unlimited until typed', async ({
  page,
}) => {
  const exchanges = new ResourcePage(page, 'adexchanges', '/adexchanges');
  await exchanges.openAs('demand', 'dsp');
  const writes = countWrites(page, '/api/demand/adexchanges');
  await exchanges.startNew();
  const d = exchanges.drawer;
  await d.getByLabel(/^Name/).fill(`E2E Exchange schema ${run}`);
  await d.getByLabel(/^Bid endpoint URL/).fill('bid.e2e.test/openrtb2');
  await expect(page.getByTestId('adexchange-qps-unlimited')).toBeChecked();
  await page.getByTestId('resource-save').click();
  await expect(formItem(d, 'Bid endpoint URL').locator('.ant-form-item-explain-error')).toHaveText(
    'must be an http(s) URL',
  );
  expect(writes.count).toBe(0);
  await d.getByLabel(/^Bid endpoint URL/).fill('https://bid.e2e.test/openrtb2');
  await exchanges.save();
  await expect(exchanges.row(`E2E Exchange schema ${run}`)).toContainText('Unlimited');
});

test('a campaign: budgets are unlimited until typed; the creative takes lists of domains and categories', async ({
  page,
}) => {
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  await campaigns.startNew();
  await expect(page.getByTestId('campaign-total-budget-unlimited')).toBeChecked();
  await inputOf(page.getByTestId('campaign-daily-budget')).fill('250');
  await expect(page.getByTestId('campaign-daily-budget-unlimited')).not.toBeChecked();
  await page.getByTestId('campaign-total-budget').scrollIntoViewIfNeeded();
  await shot(page, 'campaign-budgets');
});

test("a supplier: the QPS limit is 'unlimited' until typed (the rule left the form for the schema), and 0 stays a real zero", async ({
  page,
}) => {
  const sups = new ResourcePage(page, 'sups', '/suppliers');
  await sups.openAs('demand', 'dsp');
  const writes = countWrites(page, '/api/demand/sups');
  await sups.startNew();
  const d = sups.drawer;
  await d.getByLabel(/^Name/).fill(`E2E Supplier unlimited ${run}`);
  await expect(page.getByTestId('supplier-qps-unlimited')).toBeChecked();
  const body = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/demand/sups');
  await sups.save();
  expect((await body).postDataJSON()).toMatchObject({ qpsLimit: 'unlimited' });
  expect(writes.count).toBe(1);
  await expect(sups.row(`E2E Supplier unlimited ${run}`)).toContainText('Unlimited');

  await sups.startNew();
  await d.getByLabel(/^Name/).fill(`E2E Supplier paused traffic ${run}`);
  await inputOf(page.getByTestId('supplier-qps')).fill('0');
  await expect(page.getByTestId('supplier-qps-unlimited')).not.toBeChecked();
  await sups.save();
  await expect(sups.row(`E2E Supplier paused traffic ${run}`).getByTestId(/^qps-/)).toHaveText('0');
});
