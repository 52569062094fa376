import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';
import { signIn } from '../support/session.js';

/**
 * Targeting as deep as the ad server reads it, from the console: an IP list of addresses and CIDR
 * ranges (a bad line reported as it is typed), then a targeting that excludes it, names a city, a
 * metro and a postal code with the free-entry pickers (a value the ad server could never match
 * refused on the field), and includes key-values; saved, read back through the API and reopened.
 * Screenshots in test-results/screens/ (or SCREENS_DIR): targeting-depth-*.png.
 */
const DIR = process.env.SCREENS_DIR ?? 'test-results/screens';
async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  await page.screenshot({ path: join(DIR, `targeting-depth-${name}.png`) });
}

/** Type each value into a free-entry picker, ending each with Enter. */
async function enter(page: Page, input: Locator, values: string[]): Promise<void> {
  await input.click();
  for (const v of values) {
    await page.keyboard.type(v);
    await page.keyboard.press('Enter');
  }
}

test.beforeEach(async ({ page }) => {
  await signIn(page, 'demand');
});

test('an IP list, and a targeting by it, by city, metro and postal code and by key-values', async ({ page }) => {
  const stamp = Date.now();
  const listName = `E2E office ${stamp}`;
  const lists = new ResourcePage(page, 'iplists', '/iplists');
  await lists.open();
  await lists.startNew();
  const listDrawer = lists.drawer;
  await listDrawer.getByTestId('list-name').fill(listName);
  await listDrawer.getByTestId('list-items').fill('203.0.113.7\n198.51.100.0/24\n2001:db8::/32\n10.0.0.0/33');
  await expect(listDrawer).toContainText('10.0.0.0/33');
  await expect(listDrawer).toContainText('is not an IP address or CIDR range');
  await shot(page, 'iplist-invalid');
  await listDrawer.getByTestId('list-items').fill('203.0.113.7\n198.51.100.0/24\n2001:DB8::/32');
  await expect(listDrawer.getByTestId('list-count')).toHaveText('3 entries');
  await shot(page, 'iplist');
  await lists.save();
  await lists.search(listName);
  await expect(lists.row(listName)).toContainText('203.0.113.7, 198.51.100.0/24, 2001:db8::/32');
  await shot(page, 'iplists-page');

  const name = `E2E deep targeting ${stamp}`;
  const targetings = new ResourcePage(page, 'targetings', '/targetings');
  await targetings.open();
  await targetings.startNew();
  const drawer = targetings.drawer;
  await drawer.getByTestId('targeting-name').fill(name);

  // Geography: a city with and without its state, a metro, a postal code; a bare city name is refused.
  await enter(page, drawer.getByTestId('targeting-cities-input'), ['Mountain View']);
  await expect(drawer).toContainText('Mountain View is not a known city');
  // the bad city taken back out by its tag's remove mark
  await drawer
    .getByTestId('targeting-cities-input')
    .locator('.ant-select-selection-item', { hasText: /^Mountain View$/ })
    .locator('.ant-select-selection-item-remove')
    .click();
  await expect(drawer).not.toContainText('is not a known city');
  await enter(page, drawer.getByTestId('targeting-cities-input'), ['US-CA:Mountain View', 'GB:London']);
  await enter(page, drawer.getByTestId('targeting-metros-input'), ['807']);
  await drawer.getByTestId('targeting-postalCodes-mode').getByText('Exclude').click();
  await enter(page, drawer.getByTestId('targeting-postalCodes-input'), ['US:94043']);
  await drawer.getByTestId('targeting-name').click();
  await expect(drawer).not.toContainText('is not a known city');
  await expect(drawer.getByTestId('targeting-summary')).toHaveText(
    'Cities: Mountain View, London · Metros: 807 · Postal codes −94043',
  );
  await drawer.getByTestId('targeting-cities').scrollIntoViewIfNeeded();
  await shot(page, 'geo-pickers');

  // Key-values: two keys, a pair of each needed.
  await drawer.getByRole('tab', { name: /Key-values/ }).click();
  await enter(page, drawer.getByTestId('targeting-keyValues-input'), ['genre=sports', 'genre=news', 'tier=gold']);
  await drawer.getByTestId('targeting-name').click();
  await shot(page, 'key-values');

  // Lists: exclude the IP list.
  await drawer.getByRole('tab', { name: /Lists/ }).click();
  await drawer.getByTestId('targeting-ipLists-mode').getByText('Exclude').click();
  await drawer.getByTestId('targeting-ipLists').locator('.ant-select').click();
  await page.keyboard.type(listName);
  await page.keyboard.press('Enter');
  await drawer.getByTestId('targeting-name').click();
  await expect(drawer.getByTestId('targeting-summary')).toContainText('IP lists −1');
  await shot(page, 'ip-list-rule');

  await targetings.save();
  await targetings.search(name);
  await expect(targetings.row(name)).toContainText('Cities: Mountain View, London');

  const answer = await page.request.get(`/api/demand/targetings?search=${encodeURIComponent(name)}`);
  const [row] = (await answer.json()).items as { rules: Record<string, unknown> }[];
  expect(row!.rules.cities).toEqual({ mode: 'include', values: ['US-CA:Mountain View', 'GB:London'] });
  expect(row!.rules.metros).toEqual({ mode: 'include', values: ['807'] });
  expect(row!.rules.postalCodes).toEqual({ mode: 'exclude', values: ['US:94043'] });
  expect(row!.rules.keyValues).toEqual({ mode: 'include', values: ['genre=sports', 'genre=news', 'tier=gold'] });
  expect((row!.rules.ipLists as { mode: string; ids: number[] }).mode).toBe('exclude');
  expect((row!.rules.ipLists as { ids: number[] }).ids).toHaveLength(1);

  await targetings.row(name).locator('[data-testid^="row-open-"]').click();
  await expect(targetings.drawer).toBeVisible();
  await expect(targetings.drawer.getByTestId('targeting-summary')).toContainText('Key-values: genre=sports');
  await expect(targetings.drawer.getByTestId('targeting-metros-input')).toContainText('807');
});
