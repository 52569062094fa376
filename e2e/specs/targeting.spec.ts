import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { signIn } from '../support/session.js';

/**
 * The Targeting menu as a demand user: targeting profiles built with the IAB and region trees and
 * day-parting, an app list imported from a CSV file, and a 3rd-party pixel the server refuses
 * until its URL uses known macros. E2E_SHOTS=<dir> also saves screenshots of the drawers.
 */

const SHOTS = process.env.E2E_SHOTS;
async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `targeting-${name}.png`) });
}

/** The checkbox of one node of a CheckTree (`tree-node-<key>` is set on each tree node). */
const treeCheckbox = (tree: Locator, key: string) => tree.getByTestId(`tree-node-${key}`).locator('.ant-tree-checkbox');

/**
 * Open a row's drawer from its name. ResourcePage.openRow looks for a link role, which the name's
 * <a> (no href) does not have; the name carries `row-open-<id>` instead.
 */
async function openRow(resource: ResourcePage, name: string): Promise<void> {
  await resource.row(name).locator('[data-testid^="row-open-"]').click();
  await expect(resource.drawer).toBeVisible();
}

async function searchTree(tree: Locator, text: string): Promise<void> {
  await tree.locator('input').first().fill(text);
}

test.beforeEach(async ({ page }) => {
  await signIn(page, 'demand');
});

test('builds a targeting with the IAB and region trees and day-parting, and reopens it as saved', async ({ page }) => {
  const name = `E2E trees ${Date.now()}`;
  const targetings = new ResourcePage(page, 'targetings', '/targetings');
  await targetings.open();
  await expect(targetings.row('US CTV prime time')).toContainText('Countries: US · Regions: NAM · Devices: SmartTV');
  await shot(page, 'list');
  await targetings.startNew();
  const drawer = targetings.drawer;
  await drawer.getByTestId('targeting-name').fill(name);

  // Geography: a whole region (EMEA, which also fills MENA inside it) and the countries picker.
  const regions = drawer.getByTestId('targeting-region-tree');
  await treeCheckbox(regions, 'EMEA').click();
  await expect(treeCheckbox(regions, 'EMEA')).toHaveClass(/ant-tree-checkbox-checked/);
  await expect(treeCheckbox(regions, 'MINA')).toHaveClass(/ant-tree-checkbox-checked/);
  await expect(regions.getByTestId('targeting-region-tree-chips')).toHaveText('EMEA');
  await drawer.getByTestId('targeting-countries-select').click();
  await page.keyboard.type('Canada');
  await page.keyboard.press('Enter');
  // Close the picker by clicking elsewhere (Escape would close the drawer).
  await drawer.getByTestId('targeting-name').click();
  await expect(page.locator('.ant-select-dropdown:visible')).toHaveCount(0);
  await expect(drawer.getByTestId('targeting-summary')).toHaveText('Countries: CA · Regions: EMEA');
  await shot(page, 'geography');

  // Content: exclude all of Automotive and one child of Arts & Entertainment.
  await drawer.getByRole('tab', { name: /Content/ }).click();
  await drawer.getByTestId('targeting-iab-mode').getByText('Exclude').click();
  const iab = drawer.getByTestId('targeting-iab-tree');
  await treeCheckbox(iab, 'IAB2').click();
  await searchTree(iab, 'Books');
  await treeCheckbox(iab, 'IAB1-1').click();
  await expect(treeCheckbox(iab, 'IAB1')).toHaveClass(/ant-tree-checkbox-indeterminate/);
  await searchTree(iab, '');
  await expect(treeCheckbox(iab, 'IAB2')).toHaveClass(/ant-tree-checkbox-checked/);
  await expect(iab.getByTestId('targeting-iab-tree-chips')).toContainText('Arts & Entertainment > Books & Literature');
  await expect(iab.getByTestId('targeting-iab-tree-chips')).toContainText('Automotive (all');
  await shot(page, 'iab-tree');

  await drawer.getByRole('tab', { name: /Devices/ }).click();
  await drawer.getByTestId('targeting-devices-options').getByText('SmartTV').click();
  await shot(page, 'devices');

  // Day-parting: weekdays at prime time, in the user's time zone (the demo demand user is UTC-5).
  await drawer.getByRole('tab', { name: /Day-parting/ }).click();
  await expect(drawer.getByTestId('daypart-timezone')).toContainText('UTC-5');
  await drawer.getByTestId('daypart-enabled').click();
  await drawer.getByTestId('daypart-weekdays').click();
  await drawer.getByTestId('daypart-prime').click();
  // Drag across 17..18 to add them to the hours.
  await drawer.getByTestId('daypart-hour-17').hover();
  await page.mouse.down();
  await drawer.getByTestId('daypart-hour-18').hover();
  await page.mouse.up();
  await expect(drawer.getByTestId('daypart-summary')).toHaveText('Mon-Fri 17:00-23:00 (UTC-5)');
  await expect(drawer.getByTestId('daypart-cell-0-17')).toHaveAttribute('data-on', '1');
  await expect(drawer.getByTestId('daypart-cell-5-17')).toHaveAttribute('data-on', '0');
  await shot(page, 'daypart');

  await targetings.save();
  await targetings.search(name);
  await expect(targetings.row(name)).toContainText(
    'Countries: CA · Regions: EMEA · Devices: SmartTV · IAB −2 · Day-parting',
  );

  // The stored values: the whole category and the whole region by id, the partial one by child.
  const answer = await page.request.get(`/api/demand/targetings?search=${encodeURIComponent(name)}`);
  const [row] = (await answer.json()).items as { rules: Record<string, unknown> }[];
  expect(row.rules.iabCategories).toEqual({ mode: 'exclude', values: ['IAB1-1', 'IAB2'] });
  expect(row.rules.regions).toEqual({ mode: 'include', values: ['EMEA'] });
  expect(row.rules.dayParting).toEqual({
    enabled: true,
    timezone: -5,
    days: [0, 1, 2, 3, 4],
    hours: [17, 18, 19, 20, 21, 22],
  });

  // Reopen: the same checks.
  await openRow(targetings, name);
  const again = targetings.drawer;
  await expect(treeCheckbox(again.getByTestId('targeting-region-tree'), 'EMEA')).toHaveClass(
    /ant-tree-checkbox-checked/,
  );
  await again.getByRole('tab', { name: /Content/ }).click();
  const iabAgain = again.getByTestId('targeting-iab-tree');
  await expect(again.getByTestId('targeting-iab-mode').locator('.ant-segmented-item-selected')).toHaveText('Exclude');
  await expect(treeCheckbox(iabAgain, 'IAB2')).toHaveClass(/ant-tree-checkbox-checked/);
  await expect(treeCheckbox(iabAgain, 'IAB1')).toHaveClass(/ant-tree-checkbox-indeterminate/);
  await searchTree(iabAgain, 'Books');
  await expect(treeCheckbox(iabAgain, 'IAB1-1')).toHaveClass(/ant-tree-checkbox-checked/);
  await again.getByRole('tab', { name: /Day-parting/ }).click();
  await expect(again.getByTestId('daypart-summary')).toHaveText('Mon-Fri 17:00-23:00 (UTC-5)');
});

test('imports an app list from a CSV file with a bad line', async ({ page }) => {
  const name = `E2E CSV apps ${Date.now()}`;
  const lists = new ResourcePage(page, 'applists', '/applists');
  await lists.open();
  await lists.startNew();
  const drawer = lists.drawer;
  await drawer.getByTestId('list-name').fill(name);
  await drawer
    .getByTestId('list-import')
    .locator('input[type=file]')
    .setInputFiles({
      name: 'apps.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('bundle\ncom.example.tv\n123456789\nnot a bundle!\ncom.example.tv\n'),
    });
  const report = drawer.getByTestId('list-import-report');
  await expect(report).toContainText('apps.csv: 2 added, 1 duplicate removed, 2 invalid lines');
  await expect(report).toContainText('line 1 "bundle" is not an app bundle');
  await expect(report).toContainText('line 4 "not a bundle!" is not an app bundle');
  await expect(drawer.getByTestId('list-items')).toHaveValue('com.example.tv\n123456789');
  await expect(drawer.getByTestId('list-count')).toHaveText('2 entries');
  await shot(page, 'applist-import');

  // Typing a repeat does not change the count; the count follows the text as it is typed.
  await drawer.getByTestId('list-items').fill('com.example.tv\n123456789\ncom.example.tv\ncom.example.news');
  await expect(drawer.getByTestId('list-count')).toContainText('3 entries');
  await expect(drawer.getByTestId('list-count')).toContainText('1 repeat dropped on save');
  await drawer.getByTestId('list-items').fill('com.example.tv\n123456789');
  await expect(drawer.getByTestId('list-count')).toHaveText('2 entries');

  await lists.save();
  await lists.search(name);
  const row = lists.row(name);
  await expect(row.locator('[data-testid^=list-entries-]')).toHaveText('2');
  await expect(row).toContainText('com.example.tv, 123456789');
  await openRow(lists, name);
  await expect(lists.drawer.getByTestId('list-items')).toHaveValue('com.example.tv\n123456789');
});

test('shows the server refusing an unknown pixel macro on the field, then saves the fixed pixel', async ({ page }) => {
  const name = `E2E pixel ${Date.now()}`;
  const pixels = new ResourcePage(page, 'ivts', '/ivts');
  await pixels.open();
  await pixels.startNew();
  const drawer = pixels.drawer;
  await drawer.getByTestId('ivt-name').fill(name);
  await drawer.locator('#vendor').fill('Pixalate');
  await drawer.locator('#vendor').press('Tab');
  await drawer.getByTestId('ivt-url').fill('https://ivt.example.test/px?ip={{ip}}&sid={{site_id}}');
  await page.getByTestId('resource-save').click();

  const urlItem = drawer.locator('.ant-form-item').filter({ has: page.getByTestId('ivt-url') });
  await expect(urlItem.locator('.ant-form-item-explain-error')).toContainText('may use only the macros {{ip}}');
  await expect(drawer).toBeVisible();
  await shot(page, 'ivt-error');

  await drawer.getByTestId('ivt-url').fill('https://ivt.example.test/px?ip={{ip}}&cb=');
  await drawer.getByTestId('ivt-macro-cachebuster').click();
  await expect(drawer.getByTestId('ivt-url')).toHaveValue('https://ivt.example.test/px?ip={{ip}}&cb={{cachebuster}}');
  await expect(drawer.getByTestId('ivt-preview')).toContainText('ip=203.0.113.7&cb=');
  await expect(urlItem.locator('.ant-form-item-explain-error')).toHaveCount(0);
  await drawer.getByRole('radio', { name: /^Pre-bid/ }).check();
  await drawer.getByTestId('ivt-sample').fill('25');
  await pixels.save();

  await pixels.search(name);
  const row = pixels.row(name);
  await expect(row).toContainText('Pixalate');
  await expect(row).toContainText('Pre-bid');
  await expect(row).toContainText('25.00%');
});

test('on V2V, keeps publisher lists with the same list page and offers them in targetings', async ({ page }) => {
  const v2v = EDITION_SERVERS.V2V.url;
  await signIn(page, 'demand', undefined, v2v);
  const name = `E2E publishers ${Date.now()}`;
  const lists = new ResourcePage(page, 'publists', `${v2v}/publists`);
  await lists.open();
  await lists.startNew();
  const drawer = lists.drawer;
  await drawer.getByTestId('list-name').fill(name);
  await drawer.getByTestId('list-items').fill('Example.com\nnews.example.org\nnot a domain!');
  await expect(drawer.getByTestId('list-count')).toHaveText('2 entries');
  await page.getByTestId('resource-save').click();
  await expect(drawer.locator('.ant-form-item-explain-error')).toContainText(
    'line 3 "not a domain!" is not a domain or publisher id',
  );
  await drawer.getByTestId('list-items').fill('Example.com\nnews.example.org');
  await lists.save();
  await lists.search(name);
  await expect(lists.row(name).locator('[data-testid^=list-entries-]')).toHaveText('2');
  await expect(lists.row(name)).toContainText('example.com, news.example.org');

  const targetings = new ResourcePage(page, 'targetings', `${v2v}/targetings`);
  await targetings.open();
  await targetings.startNew();
  await targetings.drawer.getByRole('tab', { name: /Lists/ }).click();
  await expect(targetings.drawer.getByTestId('targeting-pubLists')).toBeVisible();
  await expect(targetings.drawer.getByTestId('targeting-creLists')).toBeVisible();
});
