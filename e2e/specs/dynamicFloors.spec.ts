import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { exactRow, inputOf, rowId } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';

/**
 * A dynamic floor, end to end: a demo channel with a month of history is switched to a dynamic floor
 * in its form (the median of the last 24 h's clearing prices per country and device, within a
 * minimum and a maximum), saved; the server computes its floors, and the form shows the floors in
 * force with why; "Test this tag" names the dynamic floor its request got. The channel is set back
 * to its floor CPM at the end.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const CHANNEL = 'Harbor Video - Fire TV & Tizen midroll (VAST)';

async function openTagTest(page: Page, name: string): Promise<Locator> {
  await page.getByTestId(`tag-test-${await rowId(exactRow(page, name))}`).click();
  const drawer = page.locator('.ant-drawer').filter({ has: page.getByTestId('tag-test-run') });
  await expect(drawer).toBeVisible();
  await drawer.getByTestId('tag-test-run').click();
  await expect(drawer.getByTestId('tag-test-result')).toBeVisible({ timeout: 15_000 });
  return drawer;
}

test('a dynamic floor set in the channel form is computed from its clearing prices, shown with why, and in force in the tag test', async ({
  page,
}) => {
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.openAs('demand', 'ssp');
  await channels.openRow(CHANNEL);
  const drawer = channels.drawer;

  await drawer.getByTestId('dynamic-floor-switch').click();
  const settings = drawer.getByTestId('dynamic-floor-settings');
  await expect(settings).toBeVisible();
  await settings.getByLabel('Percentile').fill('50');
  await inputOf(settings.getByTestId('dynamic-floor-min')).fill('1');
  await inputOf(settings.getByTestId('dynamic-floor-max')).fill('40');
  await settings.getByLabel('Impressions needed').fill('50');
  await channels.save();

  // computed by the server at once after the save: the floors in force, each with why
  await expect(async () => {
    await channels.openRow(CHANNEL);
    await expect(drawer.getByTestId('dynamic-floors')).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 90_000 });
  const table = drawer.getByTestId('dynamic-floors');
  await expect(drawer.getByTestId('dynamic-floors-summary')).toContainText(
    /Floors in force, computed .* UTC from [\d,]+ impressions over the last 24 h; next at \d\d:\d\d UTC\./,
  );
  await expect(table.locator('thead th')).toHaveText(['Country', 'Device type', 'Floor CPM', 'Why']);
  // the channel's default first, then a floor per country and device with enough impressions
  await expect(table.locator('tbody tr').first()).toContainText('Any other request');
  await expect(
    table.locator('tbody tr', {
      hasText: /the 50th percentile of [\d,]+ impressions' clearing prices over the last 24 h/,
    }),
  ).not.toHaveCount(0);
  await drawer.getByTestId('dynamic-floors-summary').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/dynamic-floors-channel.png' });
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();

  // "Test this tag": the request's dynamic floor and why
  const tagTest = await openTagTest(page, CHANNEL);
  await expect(tagTest.getByTestId('tag-test-floor')).toHaveText(
    /^Floor in force: \$\d+\.\d\d: the channel's dynamic floor( for [a-z*]+\|[a-z*]+)?: (the 50th percentile of [\d,]+ impressions' clearing prices over the last 24 h|too few impressions)/,
  );
  await tagTest.getByTestId('tag-test-floor').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/dynamic-floors-tag-test.png' });
  await page.keyboard.press('Escape');

  // back to the floor CPM
  await channels.openRow(CHANNEL);
  await drawer.getByTestId('dynamic-floor-switch').click();
  await expect(drawer.getByTestId('dynamic-floor-settings')).toHaveCount(0);
  await channels.save();
});
