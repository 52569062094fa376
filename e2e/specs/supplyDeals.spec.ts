import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';
import { exactRow, pickOption, rowId } from '../support/antdFields.js';

/**
 * Deals for buyers (SSP mode, Supply menu): the demand user packages a channel as a supply deal on one
 * of its RTB tags, with a floor, an auction type, a private auction, buyer seats and advertiser
 * domains, capped at 50,000 impressions and 5,000 a day; the list shows its terms and caps. The tag picker
 * offers the OpenRTB tags only (a VAST tag carries no deal).
 */
const run = Date.now().toString(36);
const name = `E2E Supply deal ${run}`;
const dealId = `E2E-SSP-${run}`.toUpperCase();

const field = (scope: Page | Locator, label: string): Locator =>
  scope.getByLabel(new RegExp(`^${label}(\\s*\\(optional\\))?$`));

/** Types words into a tags select, each ended with Enter. */
async function typeWords(select: Locator, words: string[]): Promise<void> {
  await select.click();
  for (const w of words) {
    await select.pressSequentially(w);
    await select.press('Enter');
  }
}

test('a supply deal sells a channel to named buyers on an RTB tag', async ({ page }) => {
  const deals = new ResourcePage(page, 'supplydeals', '/supply-deals');
  await deals.openAs('demand', 'ssp');
  await deals.startNew();
  const d = deals.drawer;
  await field(d, 'Name').fill(name);
  await field(d, 'Deal ID').fill(dealId);
  await field(d, 'Floor CPM').fill('9.5');
  await pickOption(page, field(d, 'Auction type'), 'Second price', '');
  await d.getByRole('switch', { name: 'Private auction' }).click();
  await typeWords(field(d, 'Buyer seats'), ['ttd-e2e-1', 'dv360-e2e-2']);
  await typeWords(field(d, 'Advertiser domains'), ['bluefinfoods.test']);
  await pickOption(page, field(d, 'Channels'), 'Harbor Video - Roku CTV preroll (VAST)', 'Harbor');
  // a VAST tag is not offered: only OpenRTB tags carry a deal
  const tags = field(d, 'Demand tags');
  await tags.click();
  await page.keyboard.type('Blue Fin');
  await expect(page.locator('.ant-select-dropdown:visible .ant-select-item-option')).toHaveCount(0);
  await tags.fill('');
  await pickOption(page, tags, 'Crestline Exchange - OpenRTB 2.6 - video', 'Crestline');
  await page.keyboard.press('Escape');
  await expect(page.locator('.ant-select-dropdown:visible')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('supply-deal-form.png') });
  // the caps: empty is unlimited; a number caps the deal's impressions
  const capField = field(d, 'Impression cap');
  await expect(capField).toHaveValue('');
  await capField.fill('50000');
  await field(d, 'Daily impression cap').fill('5000');
  await capField.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('supply-deal-caps.png') });
  await deals.save();

  await deals.showColumns('auctionType', 'buyerSeats', 'advertiserDomains');
  const row = exactRow(page, name);
  await expect(row).toContainText(dealId);
  await expect(row).toContainText('$9.50');
  await expect(row).toContainText('Second price, private');
  await expect(row).toContainText('ttd-e2e-1, dv360-e2e-2');
  await expect(row).toContainText('bluefinfoods.test');
  await expect(row).toContainText('Always on');
  const cap = row.getByTestId('deal-cap');
  await expect(cap.locator('div')).toHaveText('50,000');
  await expect(cap).toContainText('5,000 a day');
  await page.screenshot({ path: test.info().outputPath('supply-deals-list.png') });
});

test("Test this tag names the channel's deals for buyers it offers", async ({ page }) => {
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.openAs('demand', 'ssp');
  await page.getByTestId(`tag-test-${await rowId(exactRow(page, 'Lakeside Streaming - in-app video (RTB)'))}`).click();
  const drawer = page.locator('.ant-drawer').filter({ has: page.getByTestId('tag-test-run') });
  // a request the channel takes: an app of its allow-list in a medium player (its targeting), not the
  // form's example bundle, which its IVT check blocks before any deal is looked at
  await drawer.getByLabel(/^App bundle or store id/).fill('com.foxsports.android');
  await pickOption(page, drawer.getByLabel(/^Player size/), '480×270 (medium)', '');
  await drawer.getByTestId('tag-test-run').click();
  await expect(drawer.getByTestId('tag-test-result')).toBeVisible({ timeout: 15_000 });
  await expect(drawer.getByTestId('tag-test-deals')).toHaveText(
    'Deals for buyers: Lakeside in-app video - Blue Fin PMP (NW-LS-APP-2026-014) offered.',
  );
  await page.screenshot({ path: test.info().outputPath('tag-test-deals.png') });
});
