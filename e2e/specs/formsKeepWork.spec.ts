import { type Locator } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { formItem, inputOf } from '../support/antdFields.js';
import { discardDialog, ResourcePage } from '../support/resourcePage.js';

/**
 * Forms never lose work or money (docs/console-resources.md, "Drawer and modal forms"): a negative
 * amount is refused in place, not turned into $0.00; Escape in an open date picker closes the picker,
 * not the drawer; Escape or a click outside a drawer with changes asks first; a URL pasted with spaces
 * around it is saved trimmed; a name past 255 characters is refused with the limit, never cut.
 */
test.use({ viewport: { width: 1440, height: 900 } });

const run = Date.now().toString(36);
const SHOTS = '/tmp/shots';

const errorsOf = (item: Locator) => item.locator('.ant-form-item-explain-error');

test('a campaign: negative amounts refused in place, Escape in a date picker keeps the drawer, closing with changes asks', async ({
  page,
}) => {
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  await campaigns.startNew();
  const d = campaigns.drawer;
  await formItem(d, 'Name').locator('input').fill(`E2E keep work ${run}`);

  // A negative total budget stays as typed, refused under the field, before any Save.
  const total = inputOf(d.getByTestId('campaign-total-budget'));
  await total.fill('-50');
  await total.blur();
  await expect(errorsOf(formItem(d, 'Total budget'))).toHaveText(['must not be negative']);
  await expect(total).toHaveValue('-50.00');
  const bid = inputOf(d.getByTestId('campaign-bid'));
  await bid.fill('-2');
  await bid.blur();
  await expect(errorsOf(formItem(d, 'Bid CPM'))).toHaveText(['must be greater than 0']);
  await expect(bid).toHaveValue('-2.00');
  await formItem(d, 'Total budget').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/keepwork-negative-budget.png` });
  // Save sends nothing: the drawer stays, the messages with it.
  await d.getByTestId('resource-save').click();
  await expect(d).toBeVisible();
  await expect(errorsOf(formItem(d, 'Total budget'))).toHaveText(['must not be negative']);
  await total.fill('500');
  await expect(errorsOf(formItem(d, 'Total budget'))).toHaveCount(0);

  // Escape in the open date picker closes the picker only.
  const end = inputOf(d.getByTestId('campaign-end'));
  await end.click();
  const panel = page.locator('.ant-picker-dropdown:not(.ant-picker-dropdown-hidden)');
  await expect(panel).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(d).toBeVisible();
  await expect(discardDialog(page)).toBeHidden();

  // Escape on the drawer with changes asks; Keep editing keeps everything typed.
  await page.keyboard.press('Escape');
  await expect(discardDialog(page)).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/keepwork-discard-confirm.png` });
  await discardDialog(page).getByRole('button', { name: 'Keep editing' }).click();
  await expect(discardDialog(page)).toBeHidden();
  await expect(d).toBeVisible();
  await expect(formItem(d, 'Name').locator('input')).toHaveValue(`E2E keep work ${run}`);
  await expect(total).toHaveValue('500.00');

  // A click on the mask asks too; Discard closes, and nothing was created.
  await page.locator('.ant-drawer-mask').click({ position: { x: 20, y: 450 } });
  await expect(discardDialog(page)).toBeVisible();
  await discardDialog(page).getByRole('button', { name: 'Discard' }).click();
  await expect(d).toBeHidden();
  await campaigns.search(`E2E keep work ${run}`);
  await expect(campaigns.row(`E2E keep work ${run}`)).toHaveCount(0);

  // A drawer opened and closed without a change closes at once.
  await campaigns.startNew();
  await page.keyboard.press('Escape');
  await expect(d).toBeHidden();
  await expect(discardDialog(page)).toBeHidden();
});

test('a demand tag: a pasted 10,000-character name is refused with the limit, a pasted URL with spaces is saved trimmed', async ({
  page,
}) => {
  const tags = new ResourcePage(page, 'tags', '/tags');
  await tags.openAs('demand', 'ssp');
  await tags.startNew();
  const d = tags.drawer;
  const name = formItem(d, 'Name').locator('input');
  await name.fill('N'.repeat(10_000));
  // kept whole (not cut to 255), refused with the limit, the count in red
  await expect.poll(() => name.evaluate((el) => (el as HTMLInputElement).value.length)).toBe(10_000);
  await expect(errorsOf(formItem(d, 'Name'))).toHaveText(['At most 255 characters']);
  await expect(formItem(d, 'Name')).toContainText('10000 / 255');
  await page.screenshot({ path: `${SHOTS}/keepwork-long-name.png` });
  await d.getByTestId('resource-save').click();
  await expect(d).toBeVisible();

  const tagName = `E2E trimmed ${run}`;
  await name.fill(tagName);
  await expect(errorsOf(formItem(d, 'Name'))).toHaveCount(0);
  const url = `https://vast.e2e.test/${run}?cb={{cachebuster}}`;
  await inputOf(d.getByTestId('tag-vast-url')).fill(`   ${url}  \n`);
  await expect(inputOf(d.getByTestId('tag-vast-url'))).toHaveValue(url);
  await expect(errorsOf(formItem(d, 'VAST URL'))).toHaveCount(0);
  await tags.save();

  await tags.search(tagName);
  await tags.openRow(tagName);
  await expect(inputOf(tags.drawer.getByTestId('tag-vast-url'))).toHaveValue(url);
});
