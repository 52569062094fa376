import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { discardDialog, ResourcePage } from '../support/resourcePage.js';
import { clickUntilShown, exactRow, rowId } from '../support/antdFields.js';

/**
 * DSP mode as the demand user buys: suppliers (with the bid endpoint to hand them), an ad exchange, a
 * deal, a video and a display creative, then a campaign that uses them; edits, the campaign schema's
 * date check on the end-date field, duplicate and archive. The steps share the server's store, in order.
 */
test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
const names = {
  supplier: `E2E Supplier ${run}`,
  exchange: `E2E Exchange ${run}`,
  deal: `E2E Deal ${run}`,
  video: `E2E Video 30s ${run}`,
  display: `E2E Banner 300x250 ${run}`,
  campaign: `E2E Campaign ${run}`,
};
const dealId = `E2E-DEAL-${run}`.toUpperCase();
const videoUrl = `http://cdn.e2e.test/spots/e2e-${run}-30s.mp4`;
const imageUrl = `http://cdn.e2e.test/banners/e2e-${run}-300x250.png`;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A form field by its label; optional fields' labels end in "(optional)". */
function field(scope: Page | Locator, label: string): Locator {
  return scope.getByLabel(new RegExp(`^${escapeRegExp(label)}(\\s*\\(optional\\))?$`));
}

/** Pick an option of an antd select (RefSelect, Select) by the text it shows. */
async function pick(page: Page, select: Locator, option: string): Promise<void> {
  await select.click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: option }).first().click();
}

/** Type a date into an antd DatePicker the way a keyboard user does. */
async function typeDate(picker: Locator, date: string): Promise<void> {
  await picker.click();
  await picker.fill(date);
  await picker.press('Enter');
}

test('a supplier gets a bid endpoint that copies to the clipboard', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: EDITION_SERVERS.default.url });
  const sups = new ResourcePage(page, 'sups', '/suppliers');
  await sups.openAs('demand', 'dsp');
  await sups.startNew();
  const d = sups.drawer;
  await expect(d.getByText('appears here once it is created')).toBeVisible();
  await field(d, 'Name').fill(names.supplier);
  await field(d, 'QPS limit').fill('2500');
  await field(d, 'Margin').fill('18');
  await d.getByRole('checkbox', { name: 'Display' }).check();
  await pick(page, field(d, 'Targeting'), 'US CTV prime time');
  await sups.save();

  const row = exactRow(page, names.supplier);
  await expect(row).toContainText('2,500');
  await expect(row).toContainText('18.00%');
  await expect(row).toContainText('Video');
  await expect(row).toContainText('Display');
  const id = await rowId(row);
  await clickUntilShown(page.getByTestId(`copy-endpoint-${id}`), page.getByTestId(`row-endpoint-${id}`));
  await page.getByTestId(`row-endpoint-${id}-copy`).click();
  await expect(page.getByText('Bid endpoint copied')).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toMatch(new RegExp(`^${EDITION_SERVERS.default.url.replace(/\./g, '\\.')}/rtb/bid/[0-9a-f]{16}$`));
  // The endpoint's column (hidden until asked for: the row's code icon shows it) ends with the same uid.
  await sups.showColumns('endpoint');
  await expect(row).toContainText(copied.split('/').pop()!);

  await sups.openRow(names.supplier);
  await expect(sups.drawer.getByTestId('supplier-endpoint')).toHaveText(copied);
});

test("a supplier matched by user sync: its URL checked on the field, and a browser loading our sync pixel sent to it with adplane's id", async ({
  page,
  context,
}) => {
  const sups = new ResourcePage(page, 'sups', '/suppliers');
  await sups.openAs('demand', 'dsp');
  await sups.search(run);
  await sups.openRow(names.supplier);
  const d = sups.drawer;
  const syncUrl = field(d, 'User sync URL');
  const item = d.locator('.ant-form-item').filter({ has: field(page, 'User sync URL') });
  // (the supplier's user-sync URL: here a page of adplane's own that answers 200 (/getuids; /status answers 204, where a browser would not land), so the browser stops on it)
  await syncUrl.fill(`${EDITION_SERVERS.default.url}/getuids?dsp=adplane`);
  await page.getByTestId('resource-save').click();
  await expect(item.locator('.ant-form-item-explain-error')).toContainText('must carry the id macro ${UID}');
  await syncUrl.fill(`${EDITION_SERVERS.default.url}/getuids?dsp=adplane&uid=\${UID}`);
  await sups.save();

  await sups.openRow(names.supplier);
  const pixel = d.getByTestId('supplier-sync-pixel');
  await expect(pixel).toContainText('/rtb/sync/');
  await pixel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('supplier-user-sync.png') });
  const url = (await pixel.textContent())!;
  expect(url).toMatch(
    new RegExp(
      `^${EDITION_SERVERS.default.url.replace(/\./g, '\\.')}/rtb/sync/[0-9a-f]{16}\\?gdpr=\\$\\{GDPR\\}&gdpr_consent=`,
    ),
  );

  // a browser that loads the pixel (its macros left unfilled) gets an id and lands on the supplier's URL with it
  const browser = await context.newPage();
  await browser.goto(url);
  const landed = new URL(browser.url());
  expect(landed.pathname).toBe('/getuids');
  const id = landed.searchParams.get('uid')!;
  expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  const uids = (await context.cookies(EDITION_SERVERS.default.url)).find((c) => c.name === 'uids');
  expect(JSON.parse(Buffer.from(uids!.value, 'base64url').toString('utf8')).tempUIDs.adplane.uid).toBe(id);
  await browser.close();
});

test('an ad exchange with its OpenRTB endpoint, timeout and seat', async ({ page }) => {
  const exchanges = new ResourcePage(page, 'adexchanges', '/adexchanges');
  await exchanges.openAs('demand', 'dsp');
  await exchanges.startNew();
  const d = exchanges.drawer;
  await field(d, 'Name').fill(names.exchange);
  await field(d, 'Bid endpoint URL').fill('https://bid.e2e-exchange.test/openrtb2/auction?sid=1');
  await field(d, 'Timeout (tmax)').fill('250');
  await field(d, 'QPS limit').fill('800');
  await field(d, 'Seat').fill('e2e-seat-9');
  await exchanges.save();
  const row = exactRow(page, names.exchange);
  await expect(row).toContainText('bid.e2e-exchange.test');
  await expect(row).toContainText('250 ms');
  await expect(row).toContainText('800');
  await exchanges.showColumns('seat');
  await expect(row).toContainText('e2e-seat-9');
});

test('a deal with floor, auction type, buyer seats and the supplier', async ({ page }) => {
  const deals = new ResourcePage(page, 'deals', '/deals');
  await deals.openAs('demand', 'dsp');
  await deals.startNew();
  const d = deals.drawer;
  await field(d, 'Name').fill(names.deal);
  await field(d, 'Deal ID').fill(dealId);
  await field(d, 'Floor CPM').fill('12.5');
  await pick(page, field(d, 'Auction type'), 'Fixed price');
  const seats = field(d, 'Buyer seats');
  await seats.click();
  await seats.pressSequentially('ttd-e2e-1');
  await seats.press('Enter');
  await seats.pressSequentially('dv360-e2e-2');
  await seats.press('Enter');
  await pick(page, field(d, 'Suppliers'), names.supplier);
  await deals.save();
  await deals.showColumns('auctionType', 'buyerSeats');
  const row = exactRow(page, names.deal);
  await expect(row).toContainText(dealId);
  await expect(row).toContainText('$12.50');
  await expect(row).toContainText('Fixed price');
  await expect(row).toContainText('ttd-e2e-1');
  await expect(row).toContainText('dv360-e2e-2');
  await expect(row).toContainText('Always on');
});

test('a video creative with a media file previews it in the browser', async ({ page }) => {
  const creatives = new ResourcePage(page, 'creatives', '/creatives');
  await creatives.openAs('demand', 'dsp');
  await creatives.startNew();
  const d = creatives.drawer;
  await field(d, 'Name').fill(names.video);
  await pick(page, field(d, 'Advertiser'), 'Blue Fin Foods');
  await pick(page, field(d, 'Approval'), 'Approved');
  await field(d, 'Media file 1 URL').fill(videoUrl);
  await expect(d.getByTestId('media-files').locator('.ant-table-row').first()).toContainText('video/mp4');
  await field(d, 'Media file 1 duration').fill('30');
  await field(d, 'Media file 1 width').fill('1920');
  await field(d, 'Media file 1 height').fill('1080');
  await field(d, 'Media file 1 bitrate').fill('4500');
  await field(d, 'Skippable after').fill('5');
  await field(d, 'Click-through URL').fill('https://bluefin.test/e2e');
  const domains = field(d, 'Advertiser domains');
  await domains.fill('bluefin.test');
  await domains.press('Enter');
  const iab = field(d, 'IAB categories');
  await iab.click();
  await iab.pressSequentially('Coffee');
  await page
    .locator('.ant-select-dropdown:visible .ant-select-tree-node-content-wrapper', { hasText: 'Coffee' })
    .first()
    .click();

  const preview = d.locator('video[data-testid="creative-preview"]');
  await expect(preview).toHaveAttribute('src', videoUrl);
  await expect(preview).toHaveAttribute('controls', '');
  await creatives.save();

  const row = exactRow(page, names.video);
  await expect(row).toContainText('Video');
  await expect(row).toContainText('Approved');
  await expect(row).toContainText('30 s · 1920×1080');
  await expect(row).toContainText('Blue Fin Foods');

  await creatives.openRow(names.video);
  await expect(creatives.drawer.locator('video[data-testid="creative-preview"]')).toHaveAttribute('src', videoUrl);
  await expect(creatives.drawer).toContainText('Food & Drink > Coffee/Tea (IAB8-6)');
  await expect(field(creatives.drawer, 'Skippable after')).toHaveValue('5');
  await creatives.drawer.getByTestId('creative-skip-after').scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('creative-skippable.png') });
});

test('a display creative shows its image', async ({ page }) => {
  const creatives = new ResourcePage(page, 'creatives', '/creatives');
  await creatives.openAs('demand', 'dsp');
  await creatives.startNew();
  const d = creatives.drawer;
  await field(d, 'Name').fill(names.display);
  await d.getByText('Display', { exact: true }).click();
  await field(d, 'Image URL').fill(imageUrl);
  await field(d, 'Width').fill('300');
  await field(d, 'Height').fill('250');
  await expect(d.locator('img[data-testid="creative-preview"]')).toHaveAttribute('src', imageUrl);
  await creatives.save();
  const row = exactRow(page, names.display);
  await expect(row).toContainText('Display');
  await expect(row).toContainText('Pending');
  await expect(row).toContainText('300×250');
});

test('a campaign buys with the creative, the deal and the supplier; its bid is edited', async ({ page }) => {
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  await campaigns.startNew();
  const d = campaigns.drawer;
  await field(d, 'Name').fill(names.campaign);
  await pick(page, field(d, 'Advertiser'), 'Blue Fin Foods');
  await typeDate(field(d, 'Start date'), '2026-03-01');
  await typeDate(field(d, 'End date'), '2026-05-31');
  await field(d, 'Bid CPM').fill('7.5');
  await field(d, 'Total budget').fill('5000');
  await field(d, 'Daily budget').fill('250');
  await d.getByText('ASAP', { exact: true }).click();
  await d.getByTestId('campaign-cap').click();
  await field(d, 'Impressions').fill('4');
  await field(d, 'Per (hours)').fill('24');
  await pick(page, field(d, 'Creatives'), names.video);
  await pick(page, field(d, 'Deals'), names.deal);
  await pick(page, field(d, 'Suppliers'), names.supplier);
  await campaigns.save();

  await campaigns.showColumns('advertiserId', 'pacing');
  const row = exactRow(page, names.campaign);
  await expect(row).toContainText('Blue Fin Foods');
  await expect(row).toContainText('2026-03-01');
  await expect(row).toContainText('– 2026-05-31');
  await expect(row).toContainText('$7.50');
  // The budgets in whole dollars, as they were typed.
  await expect(row).toContainText('$5,000 · $250/day');
  await expect(row).toContainText('ASAP');

  await campaigns.openRow(names.campaign);
  await expect(field(d, 'Impressions')).toHaveValue('4');
  await expect(d.locator('.ant-select-selection-item', { hasText: names.video })).toBeVisible();
  await expect(d.locator('.ant-select-selection-item', { hasText: names.deal })).toBeVisible();
  await expect(d.locator('.ant-select-selection-item', { hasText: names.supplier })).toBeVisible();
  await field(d, 'Bid CPM').fill('9.25');
  await campaigns.save();
  await expect(exactRow(page, names.campaign)).toContainText('$9.25');
});

test("an end date before the start date is refused on the end-date field, in the schema's words, before any request", async ({
  page,
}) => {
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  await campaigns.openRow(names.campaign);
  const d = campaigns.drawer;
  await field(d, 'End date').clear();
  await typeDate(field(d, 'End date'), '2026-02-01');
  let writes = 0;
  page.on('request', (r) => {
    if (r.method() === 'PUT' && new URL(r.url()).pathname.startsWith('/api/demand/campaigns')) writes++;
  });
  await page.getByTestId('resource-save').click();
  const endField = d.locator('.ant-form-item').filter({ has: field(page, 'End date') });
  // The campaign schema of packages/shared says it, as the server would: nothing is sent.
  await expect(endField.locator('.ant-form-item-explain-error')).toHaveText('must not be before the start date');
  await expect(d).toBeVisible();
  expect(writes).toBe(0);
  // Cancel with a changed field asks first; discarding closes with the stored end date kept
  await d.getByRole('button', { name: 'Cancel' }).click();
  await discardDialog(page).getByRole('button', { name: 'Discard' }).click();
  await expect(d).toBeHidden();
  await expect(exactRow(page, names.campaign)).toContainText('– 2026-05-31');
});

test('a duplicated campaign starts paused and its copy is archived', async ({ page }) => {
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  await campaigns.search(run);
  const id = await rowId(exactRow(page, names.campaign));
  await campaigns.moreAction(id, 'duplicate');
  const copyName = `${names.campaign} (copy)`;
  const copy = exactRow(page, copyName);
  await expect(copy).toContainText('Paused');
  await expect(copy).toContainText('$9.25');
  const copyId = await rowId(copy);
  await campaigns.moreAction(copyId, 'archive');
  await expect(copy).toHaveCount(0);
  // still active, but its flight (March to May 2026) is over: the status says it does not serve
  await expect(exactRow(page, names.campaign)).toContainText('Not serving');
  await page.locator('.ant-segmented-item', { hasText: 'Archived' }).click();
  await expect(exactRow(page, copyName)).toContainText('Archived');
  await expect(exactRow(page, names.campaign)).toHaveCount(0);
});
