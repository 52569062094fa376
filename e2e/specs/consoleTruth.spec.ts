import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { exactRow, inputOf, openedModal, rowId } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { openFromUserMenu, signInAt } from '../support/session.js';

/**
 * The console keeps what was typed and says what it refuses: a number out of range stays as typed
 * with the range under its box (never clamped on blur), a search for a name with parentheses finds
 * that row, and the tag test's table of campaigns set aside reads in the drawer without a small box
 * of its own.
 */
test.describe.configure({ timeout: 90_000 });

/** Type `text` into a number box and leave it, as a person does: what stays in the box is read after. */
async function typeAndLeave(box: Locator, text: string): Promise<void> {
  await box.fill(text);
  await box.press('Tab');
}

const helpOf = (page: Page, box: Locator) =>
  page.locator('.ant-form-item').filter({ has: box }).last().locator('.ant-form-item-explain-error');

test('a tags search for a name with parentheses shows that tag alone', async ({ page }) => {
  const tags = new ResourcePage(page, 'tags', '/tags');
  await tags.openAs('demand', 'ssp');
  await expect.poll(() => page.locator('.ant-table-row').count()).toBeGreaterThan(1);
  await tags.search('Local demo demand (VAST)');
  await expect(page.locator('.ant-table-row')).toHaveCount(1);
  await expect(exactRow(page, 'Local demo demand (VAST)')).toHaveCount(1);
  await page.screenshot({ path: '/tmp/shots/truth-tags-search.png' });
});

test("the report's Limit keeps a number out of range as typed and says the range", async ({ page }) => {
  await signInAt(page, 'demand', '/report');
  await expect(page.getByTestId('report-title')).toHaveText('Create Report', { timeout: 30_000 });
  const limit = inputOf(page.getByTestId('report-limit'));
  await typeAndLeave(limit, '20000');
  await expect(limit).toHaveValue('20000');
  await expect(helpOf(page, limit)).toHaveText('must be between 0 and 10,000 rows');
  await page.screenshot({ path: '/tmp/shots/truth-report-limit.png' });
  // run anyway: the server refuses the same number, and says so
  await page.getByTestId('report-run').click();
  await expect(page.getByText(/limit: must be between 0 and 10000 rows/)).toBeVisible();
  await typeAndLeave(limit, '-5');
  await expect(limit).toHaveValue('-5');
  await expect(helpOf(page, limit)).toHaveText('must be between 0 and 10,000 rows');
  await typeAndLeave(limit, '50');
  await expect(helpOf(page, limit)).toHaveCount(0);
});

test("the Profile's post-bid share keeps 150 as typed and refuses it in place", async ({ page }) => {
  await signInAt(page, 'demand', '/');
  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  const modal = await openedModal(page, 'profile-form');
  await modal.getByTestId('profile-tab-options').click();
  const share = inputOf(modal.getByTestId('profile-postbidPercent-input'));
  await typeAndLeave(share, '150');
  await expect(share).toHaveValue('150');
  await expect(modal.getByText('must be between 0 and 100')).toBeVisible();
  await page.screenshot({ path: '/tmp/shots/truth-profile-postbid.png' });
  await modal.getByTestId('profile-save').click();
  // nothing saved: the form stays open with the range under the box
  await expect(modal.getByText('must be between 0 and 100')).toBeVisible();
  await expect(page.getByTestId('profile-form')).toBeVisible();
});

test("the tag test's ad break refuses a number out of range; its table of campaigns set aside reads in the drawer", async ({
  page,
}) => {
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.openAs('demand', 'ssp');
  // the local demo's web player: no targeting of its own that a test from here would miss
  const name = 'Demo player - auction';
  await channels.search(name);
  await page.getByTestId(`tag-test-${await rowId(exactRow(page, name))}`).click();
  const drawer = page.locator('.ant-drawer').filter({ has: page.getByTestId('tag-test-run') });
  await expect(drawer).toBeVisible();

  const ads = inputOf(drawer.getByTestId('tag-test-pod-ads'));
  await typeAndLeave(ads, '99');
  await expect(ads).toHaveValue('99');
  await expect(drawer.getByText(/^must be between 1 and [\d,]+ ads$/)).toBeVisible();
  const seconds = inputOf(drawer.getByTestId('tag-test-pod-seconds'));
  await typeAndLeave(seconds, '0');
  await expect(seconds).toHaveValue('0');
  await expect(drawer.getByText(/^must be between 1 and [\d,]+ seconds$/)).toBeVisible();
  await page.screenshot({ path: '/tmp/shots/truth-tagtest-pod.png' });
  // the test does not run with them
  await drawer.getByTestId('tag-test-run').click();
  await expect(drawer.getByTestId('tag-test-result')).toHaveCount(0);

  // one ad: the test runs, and the campaigns the targeting set aside (the demo's EU campaign, from the US) are listed
  await typeAndLeave(seconds, '');
  await typeAndLeave(ads, '');
  await drawer.getByTestId('tag-test-run').click();
  await expect(drawer.getByTestId('tag-test-result')).toBeVisible({ timeout: 15_000 });
  const aside = drawer.getByTestId('tag-test-set-aside');
  await expect(aside.getByRole('row', { name: /Summit Outdoor - Trail Season video \(EU\)/ })).toBeVisible();
  // a few rows have no box of their own: each reads whole in the drawer's scroll
  await expect(aside.locator('.ant-table-body')).toHaveCount(0);
  const first = aside.locator('.ant-table-tbody > tr.ant-table-row').first();
  await first.scrollIntoViewIfNeeded();
  const [row, table] = await Promise.all([first.boundingBox(), aside.boundingBox()]);
  expect(row!.y).toBeGreaterThanOrEqual(table!.y);
  expect(row!.y + row!.height).toBeLessThanOrEqual(table!.y + table!.height);
  await aside.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: '/tmp/shots/truth-tagtest-set-aside.png' });
});
