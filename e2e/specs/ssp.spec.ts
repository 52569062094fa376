import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { clickUntilShown, exactRow, formItem, inputOf, pickOption, rowId } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { signIn } from '../support/session.js';

/**
 * SSP mode and accounts as the demand user sells: a channel with a floor and demand, its tag copied
 * for a publisher, a VAST and a PreBid demand tag, a subpublisher and an advertiser; then the admin
 * side: a tooltip the demand user sees, the demand accounts as a non-super admin, and "Login as".
 * The steps share the server's store, in order.
 */
test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
const names = {
  channel: `E2E Channel ${run}`,
  vastTag: `E2E VAST tag ${run}`,
  prebidTag: `E2E PreBid tag ${run}`,
  rtbTag: `E2E RTB tag ${run}`,
  sub: `E2E Publisher ${run}`,
  adv: `E2E Advertiser ${run}`,
};
const tooltipText = `Lowest CPM this channel accepts (e2e ${run}).`;

async function signOut(page: Page): Promise<void> {
  await page.evaluate(() => fetch('/api/auth/logout', { credentials: 'include' }));
}

test('a channel with a floor and a demand tag, edited, and its VAST tag copied', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: EDITION_SERVERS.default.url });
  await signIn(page, 'demand');
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.open();
  await channels.startNew();
  await page.getByTestId('channel-name').fill(names.channel);
  await pickOption(page, page.locator('#subpublisherId'), 'Harbor Video');
  await inputOf(page.getByTestId('channel-floor')).fill('2.5');
  await pickOption(page, page.locator('#channel-demand-add'), 'Beacon DSP - US CTV preroll', 'Beacon');
  await expect(page.getByTestId('channel-demand-row')).toHaveCount(1);
  await channels.save();

  const row = exactRow(page, names.channel);
  await expect(row).toContainText('$2.50');
  // The subpublisher's column waits in the column chooser (the list fits a 1280 px window without it).
  await channels.showColumns('subpublisherId');
  await expect(row).toContainText('Harbor Video');
  await expect(row).toContainText('70.00% share');

  // Edit: a higher floor and a second demand tag.
  await channels.openRow(names.channel);
  await expect(inputOf(page.getByTestId('channel-floor'))).toHaveValue('2.50');
  await inputOf(page.getByTestId('channel-floor')).fill('3.25');
  await pickOption(page, page.locator('#channel-demand-add'), 'Crestline Exchange', 'Crestline');
  await expect(page.getByTestId('channel-demand-row')).toHaveCount(2);
  await channels.save();
  await expect(row).toContainText('$3.25');

  // The drawer of the saved channel shows its VAST tag with the tenant's macros.
  // The UID column is hidden until asked for: show it with the column chooser.
  await channels.showColumns('uid');
  const uid = (await row.locator('.cell-mono').first().textContent())?.trim() ?? '';
  expect(uid).toMatch(/^[0-9a-f]{16}$/);
  await channels.openRow(names.channel);
  await expect(page.getByTestId('channel-demand-row')).toHaveCount(2);
  const shown = page.getByTestId('channel-tag');
  await expect(shown).toContainText(`/vast/${uid}?`);
  await expect(shown).toContainText('w={{width}}&h={{height}}');
  await page.keyboard.press('Escape');
  await expect(channels.drawer).toBeHidden();

  // The row action shows the same tag in a preview (its variants, a Copy button), not a blind copy.
  const id = await rowId(row);
  await clickUntilShown(page.getByTestId(`copy-tag-${id}`), page.getByTestId(`row-tag-${id}`));
  await expect(page.getByTestId(`row-tag-${id}`)).toContainText(`/vast/${uid}?`);
  await page.getByTestId(`row-tag-${id}-copy`).click();
  await expect(page.getByText('Copied: the tag is in your clipboard')).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain(`/vast/${uid}?`);
  expect(copied).toContain('{{width}}');
});

test('a VAST tag: the URL is checked on the field, macros go in with a click', async ({ page }) => {
  await signIn(page, 'demand');
  const tags = new ResourcePage(page, 'tags', '/tags');
  await tags.open();
  await tags.startNew();
  await page.getByTestId('tag-name').fill(names.vastTag);
  const url = inputOf(page.getByTestId('tag-vast-url'));
  await url.fill('ftp://x');
  await page.getByTestId('resource-save').click();
  await expect(formItem(tags.drawer, 'VAST URL')).toContainText('Must be an http(s) URL');
  await expect(tags.drawer).toBeVisible();

  await url.fill('https://vast.e2e.test/v4?sid=e2e&w=');
  // The error's message collapses with an animation: the chips below move up until it is gone.
  await expect(formItem(tags.drawer, 'VAST URL')).not.toContainText('Must be an http(s) URL');
  await expect(formItem(tags.drawer, 'VAST URL').locator('.ant-form-item-explain-error')).toHaveCount(0);
  await page.getByTestId('macro-w').click();
  await expect(url).toHaveValue('https://vast.e2e.test/v4?sid=e2e&w={{width}}');
  await inputOf(page.getByTestId('tag-price-cpm')).fill('6.5');
  await tags.save();
  await expect(exactRow(page, names.vastTag)).toContainText('$6.50 CPM');
});

test('a PreBid tag with partner parameters typed as the partner wants them', async ({ page }) => {
  await signIn(page, 'demand');
  const tags = new ResourcePage(page, 'tags', '/tags');
  await tags.open();
  await tags.startNew();
  await page.getByTestId('tag-name').fill(names.prebidTag);
  await tags.drawer.getByText('PreBid', { exact: true }).click();
  await pickOption(page, page.locator('#tag-partner'), 'AppNexus');
  await expect(page.getByTestId('partner-params')).toBeVisible();

  // Nothing set yet: the partner field names the parameters AppNexus needs.
  await page.getByTestId('resource-save').click();
  await expect(formItem(tags.drawer, 'Partner')).toContainText('AppNexus needs');

  await inputOf(page.getByTestId('param-partnerParams_placement_id')).fill('27412399');
  await inputOf(page.getByTestId('param-partnerParams_reserve')).fill('1.25');
  await pickOption(page, page.locator('#partnerParams_position'), 'above', '');
  await tags.save();
  await expect(exactRow(page, names.prebidTag)).toContainText('AppNexus');

  const answer = await page.request.get(`/api/demand/tags?search=${encodeURIComponent(names.prebidTag)}`);
  const [tag] = (await answer.json()).items as { partner: string; partnerParams: Record<string, unknown> }[];
  expect(tag.partner).toBe('appnexusP');
  expect(tag.partnerParams).toEqual({ placement_id: 27412399, reserve: 1.25, position: 'above' });
});

test('an RTB tag whose partner syncs users: its sync URL checked on the field, and the setuid URL to hand the partner', async ({
  page,
}) => {
  await signIn(page, 'demand');
  const tags = new ResourcePage(page, 'tags', '/tags');
  await tags.open();
  await tags.startNew();
  await page.getByTestId('tag-name').fill(names.rtbTag);
  await tags.drawer.getByText('RTB', { exact: true }).click();
  await inputOf(page.getByTestId('tag-endpoint')).fill('https://bid.dsp.e2e.test/openrtb2');
  const sync = inputOf(page.getByTestId('tag-sync-url'));
  await sync.fill('dsp.e2e.test/usersync');
  await page.getByTestId('resource-save').click();
  await expect(formItem(tags.drawer, 'User sync URL')).toContainText('must be an http(s) URL');
  await sync.fill('https://sync.dsp.e2e.test/usersync?redir=${REDIRECT}');
  await tags.save();

  const id = await rowId(exactRow(page, names.rtbTag));
  await tags.openRow(names.rtbTag);
  await expect(inputOf(page.getByTestId('tag-sync-url'))).toHaveValue(
    'https://sync.dsp.e2e.test/usersync?redir=${REDIRECT}',
  );
  const setuid = page.getByTestId('tag-setuid-url');
  await expect(setuid).toHaveText(`${EDITION_SERVERS.default.url}/setuid?bidder=adplane_tag_${id}&uid=$UID`);
  await setuid.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('rtb-tag-user-sync.png') });
});

test('a subpublisher with its sellers.json entry, and an advertiser', async ({ page }) => {
  await signIn(page, 'demand');
  const subs = new ResourcePage(page, 'subs', '/subpublishers');
  await subs.open();
  await subs.startNew();
  await page.getByTestId('account-name').fill(names.sub);
  await page.getByTestId('account-username').fill(`e2e-pub-${run}`);
  await page.getByTestId('account-email').fill(`pub-${run}@e2e.test`);
  await page.getByTestId('account-company').fill('E2E Publishing Ltd');
  await page.getByTestId('account-domain').fill('e2e-publisher.test');
  // A new account needs a password.
  await page.getByTestId('resource-save').click();
  await expect(formItem(subs.drawer, 'Password')).toContainText('Set a password for the new account');
  await inputOf(page.getByTestId('account-password')).fill('e2e-password');
  await pickOption(page, page.locator('#sellersJson_type'), 'Publisher', '');
  await page.locator('#sellersJson_id').fill(`e2e-${run}`);
  await page.locator('#sellersJson_name').fill('E2E Publishing');
  await subs.save();
  const sub = exactRow(page, names.sub);
  await expect(sub).toContainText(`e2e-pub-${run}`);
  await expect(sub).toContainText('PUBLISHER');

  const advs = new ResourcePage(page, 'advs', '/advertisers');
  await advs.open();
  await advs.startNew();
  await page.getByTestId('account-name').fill(names.adv);
  await page.getByTestId('account-username').fill(`e2e-adv-${run}`);
  await inputOf(page.getByTestId('account-password')).fill('e2e-password');
  await page.getByTestId('account-domain').fill('e2e-brand.test');
  await advs.save();
  await advs.showColumns('domain');
  await expect(exactRow(page, names.adv)).toContainText('e2e-brand.test');
});

test('a tooltip the admin writes shows as (?) beside the field for demand users', async ({ page }) => {
  await signIn(page, 'admin');
  const tips = new ResourcePage(page, 'tooltips', '/tooltips');
  await tips.open();
  // One live tooltip per field: replace the demo's text of channels.floorCpm with ours.
  await tips.search('channels.floorCpm');
  const existing = exactRow(page, 'channels.floorCpm');
  await expect(
    page.locator('.ant-table-row').or(page.getByText('Nothing matches these filters')).first(),
  ).toBeVisible();
  if ((await existing.count()) > 0) {
    await tips.moreAction(await rowId(existing), 'delete');
    await expect(page.locator('.ant-modal-confirm')).toContainText('Deleting is permanent and cannot be undone');
    await page.getByTestId('confirm-delete').click();
    await expect(page.getByText('Deleted', { exact: true })).toBeVisible();
    await expect(existing).toHaveCount(0);
  }
  await tips.startNew();
  await page.locator('#key').fill('channels.floorCpm');
  await page.getByTestId('tooltip-text').fill(tooltipText);
  await tips.save();
  await expect(exactRow(page, 'channels.floorCpm')).toContainText(tooltipText);

  await signOut(page);
  await signIn(page, 'demand');
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.open();
  await channels.startNew();
  const help = formItem(channels.drawer, 'Floor CPM').locator('[aria-label="help"]');
  await expect(help).toBeVisible();
  await help.hover();
  await expect(page.getByRole('tooltip', { name: tooltipText })).toBeVisible();
});

test('a non-super admin sees the super-admin-only actions greyed, with the reason', async ({ page }) => {
  await signIn(page, 'ops');
  const demands = new ResourcePage(page, 'demands', '/demands');
  await demands.open();
  await expect(page.getByTestId('resource-new')).toBeDisabled();
  await page.locator('[data-locked="Only the super admin can create demand accounts"]').hover();
  await expect(page.getByRole('tooltip', { name: 'Only the super admin can create demand accounts' })).toBeVisible();

  const northwind = exactRow(page, 'Northwind Media');
  await northwind.getByRole('button', { name: 'more actions' }).click();
  await expect(page.locator('.ant-dropdown-menu-item', { hasText: 'Delete' })).toHaveAttribute('aria-disabled', 'true');
  await page.keyboard.press('Escape');
  await demands.openRow('Northwind Media');
  await expect(inputOf(page.getByTestId('demand-priceReq'))).toBeDisabled();
  await expect(page.getByTestId('account-name')).toBeEnabled();
});

test("'Login as' from the demand accounts acts as that account, with a way back", async ({ page }) => {
  await signIn(page, 'admin');
  const demands = new ResourcePage(page, 'demands', '/demands');
  await demands.open();
  const northwind = exactRow(page, 'Northwind Media');
  await page.getByTestId(`login-as-${await rowId(northwind)}`).click();
  await expect(page.getByTestId('dashboard')).toBeVisible();
  await expect(page).toHaveURL(`${EDITION_SERVERS.default.url}/`);
  await expect(page.getByTestId('impersonation')).toContainText('Acting as Northwind Media');
  const back = page.getByTestId('nav-back-to-admin');
  await expect(back).toBeVisible();

  await back.click();
  await expect(page.getByTestId('impersonation')).toBeHidden();
  await expect(page.getByTestId('dashboard')).toBeVisible();
});
