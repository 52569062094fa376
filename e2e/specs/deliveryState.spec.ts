import { expect, test } from '../support/test.js';
import { exactRow, formItem, inputOf, openedModal, pickOption } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { createRow, dayFromToday, videoCreativeBody } from '../support/sampleRows.js';

/**
 * "Why it is not serving": the list's Status column says Active only for rows the ad server serves,
 * else "Not serving" with the reasons on hover; the drawer lists every reason; a save that will not
 * serve says until when; a new demand tag saved on no channel offers to add it to channels, after
 * which it serves. Screenshots at 1440x900 in /tmp/shots/delivery-*.png.
 */
test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 1440, height: 900 } });

test('a campaign whose creative is pending shows Not serving with why, in the list and the drawer', async ({
  page,
}) => {
  const run = Date.now() % 100_000;
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  const creative = await createRow(
    page,
    '/api/demand/creatives',
    videoCreativeBody(`E2E pending spot ${run}`, { approval: 'pending' }),
  );
  const name = `E2E waiting campaign ${run}`;
  const campaign = await createRow(page, '/api/demand/campaigns', {
    name,
    startDate: dayFromToday(-1),
    endDate: dayFromToday(30),
    bidCpm: 5_000_000,
    channelScope: 'all',
    pacing: 'asap',
    creativeIds: [creative.id],
  });

  await campaigns.search(name);
  const status = page.getByTestId(`row-status-${campaign.id}`);
  await expect(status).toHaveText('Not serving');
  await status.hover();
  await expect(page.locator('.ant-tooltip')).toContainText(`Creative pending approval: E2E pending spot ${run}`);
  await page.screenshot({ path: '/tmp/shots/delivery-list.png' });

  await page.getByTestId(`row-open-${campaign.id}`).click();
  const state = campaigns.drawer.getByTestId('delivery-state');
  await expect(state).toContainText('Not serving');
  await expect(state).toContainText(`Creative pending approval: E2E pending spot ${run}`);
  await page.screenshot({ path: '/tmp/shots/delivery-drawer-reasons.png' });

  // a $0 total budget: the form warns while it is typed, and the save says what the row waits for
  const total = inputOf(campaigns.drawer.getByTestId('campaign-total-budget'));
  await total.fill('0');
  const totalItem = formItem(campaigns.drawer, 'Total budget');
  await expect(totalItem).toContainText('A total budget of $0.00 never spends: the campaign will not serve');
  await totalItem.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/delivery-drawer.png' });
  await campaigns.save();
  await expect(page.getByTestId('saved-not-serving')).toHaveText(
    'Saved; it will not serve until the creative is approved',
  );
  await page.getByTestId(`row-open-${campaign.id}`).click();
  await expect(state).toContainText('Total budget is $0: it never spends');
  await expect(state).toContainText('Creative pending approval');
});

test('a new demand tag saved on no channel says so, and serves once added to a channel', async ({ page }) => {
  const run = Date.now() % 100_000;
  const tags = new ResourcePage(page, 'tags', '/tags');
  await tags.openAs('demand', 'ssp');
  const channelName = `E2E calling channel ${run}`;
  await createRow(page, '/api/demand/channels', {
    name: channelName,
    integration: 'VAST',
    environment: 'ctv',
    format: 'video',
    domain: 'roku.example.com',
    floorCpm: 1_000_000,
    payout: { type: 'revshare', percent: 60 },
  });

  const name = `E2E lonely tag ${run}`;
  await tags.startNew();
  await inputOf(formItem(tags.drawer, 'Name')).fill(name);
  await inputOf(tags.drawer.getByTestId('tag-vast-url')).fill('https://ads.e2e.test/vast');
  await inputOf(tags.drawer.getByTestId('tag-price-cpm')).fill('5');
  await tags.save();
  const notice = page.getByTestId('saved-not-serving');
  await expect(notice).toContainText('Saved; it will not serve until a channel lists it');
  await expect(notice).toBeInViewport();
  await page.screenshot({ path: '/tmp/shots/delivery-saved-tag.png' });

  await page.getByTestId('saved-add-to-channels').click();
  const modal = await openedModal(page, 'add-to-channels');
  await pickOption(page, modal.locator('.ant-select'), channelName);
  await modal.locator('.ant-modal-title').click(); // closes the select's list, not the dialog
  await page.screenshot({ path: '/tmp/shots/delivery-add-to-channels.png' });
  await modal.getByTestId('add-to-channels-ok').click();
  await expect(modal).toBeHidden();

  await tags.search(name);
  const row = exactRow(page, name);
  await expect(row.getByText('Active')).toBeVisible();
  await expect(row.locator('[data-serving="yes"]')).toBeVisible();
});
