import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { exactRow, inputOf, openedModal, pickOption, rowId } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { openFromUserMenu, signInAt } from '../support/session.js';

/**
 * Floor rules on a channel, end to end: made in the channel form (fields, rules, a default), the
 * preview says which rule a sample request gets, the rules are saved and read back, and "Test this
 * tag" shows the floor in force for its request and the rule it came from. The account's rules (its
 * profile's) are the floor of a channel without its own.
 */
test.describe.configure({ mode: 'serial', timeout: 120_000 });

const channelName = `E2E Floor rules ${Date.now().toString(36)}`;

const rule = (drawer: Locator, n: number) => drawer.getByTestId('floor-rule-row').nth(n);

async function fillRule(drawer: Locator, n: number, parts: string[], floor: string): Promise<void> {
  const row = rule(drawer, n);
  const inputs = row.locator('input');
  for (const [i, part] of parts.entries()) await inputs.nth(i).fill(part);
  await row.getByLabel(`Floor of rule ${n + 1}`).fill(floor);
}

async function sample(drawer: Locator, values: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await drawer.getByLabel(`Sample ${label}`).fill(value);
}

async function openTagTest(page: Page, name: string): Promise<Locator> {
  await page.getByTestId(`tag-test-${await rowId(exactRow(page, name))}`).click();
  const drawer = page.locator('.ant-drawer').filter({ has: page.getByTestId('tag-test-run') });
  await expect(drawer).toBeVisible();
  await drawer.getByTestId('tag-test-run').click();
  await expect(drawer.getByTestId('tag-test-result')).toBeVisible({ timeout: 15_000 });
  return drawer;
}

test('floor rules made in the channel form preview the rule a request gets, save, and the tag test shows the floor in force and why', async ({
  page,
}) => {
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.openAs('demand', 'ssp');
  await channels.startNew();
  const drawer = channels.drawer;
  await page.getByTestId('channel-name').fill(channelName);

  // on: one catch-all rule by media type and size, at the channel's floor CPM
  await drawer.getByTestId('floor-rules-switch').click();
  await expect(drawer.getByTestId('floor-rule-row')).toHaveCount(1);
  // a third field, country
  await pickOption(page, drawer.getByTestId('floor-rules-fields'), 'Country');
  await page.keyboard.press('Escape');
  await expect(drawer.getByTestId('floor-rules-table').locator('th')).toHaveText([
    'Media type',
    'Size',
    'Country',
    'Floor CPM (USD)',
    '',
  ]);
  await fillRule(drawer, 0, ['video', '640x360', 'US'], '8');
  await drawer.getByTestId('floor-rule-add').click();
  await fillRule(drawer, 1, ['*', '*', 'US'], '5');
  await drawer.getByTestId('floor-rule-add').click();
  await fillRule(drawer, 2, ['video', '*', '*'], '3');
  await inputOf(drawer.getByTestId('floor-rules-default')).fill('0.5');

  // the preview: the exact rule, then a tie, then the country's rule, then the default
  const result = drawer.getByTestId('floor-preview-result');
  await sample(drawer, { 'Media type': 'video', Size: '640x360', Country: 'us' });
  await expect(result).toHaveText(
    "$8.00: the channel's floor rule video|640x360|us (the most specific rule this request matches)",
  );
  // video|*|* and *|*|us both have two `*`: the one whose `*` are in the later fields wins
  await sample(drawer, { Size: '1280x720' });
  await expect(result).toHaveText(
    "$3.00: the channel's floor rule video|*|* (the most specific rule this request matches)",
  );
  await sample(drawer, { 'Media type': 'banner' });
  await expect(result).toHaveText(
    "$5.00: the channel's floor rule *|*|us (the most specific rule this request matches)",
  );
  await sample(drawer, { Country: 'DE' });
  await expect(result).toHaveText("$0.50: the default of the channel's floor rules (no rule matches this request)");
  await sample(drawer, { 'Media type': 'video', Size: '640x360', Country: 'US' });
  await drawer.getByTestId('floor-rules').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/floor-rules-editor.png' });

  // two rules with the same key: said before saving
  await drawer.getByTestId('floor-rule-add').click();
  await fillRule(drawer, 3, ['*', '*', 'us'], '4');
  await expect(drawer.getByTestId('floor-rules-repeated')).toHaveText(
    'Rule 4 repeats rule 2: only one of them is kept',
  );
  await rule(drawer, 3).getByLabel('Remove rule 4').click();
  await expect(drawer.getByTestId('floor-rules-repeated')).toHaveCount(0);

  await channels.save();

  // read back as saved
  await channels.openRow(channelName);
  await expect(drawer.getByTestId('floor-rule-row')).toHaveCount(3);
  await expect(rule(drawer, 0).locator('input').nth(0)).toHaveValue('video');
  await expect(rule(drawer, 0).getByLabel('Floor of rule 1')).toHaveValue('8.00');
  await expect(inputOf(drawer.getByTestId('floor-rules-default'))).toHaveValue('0.50');
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();

  // "Test this tag" (a US viewer, a 640x360 player): the exact rule is the floor in force
  const test = await openTagTest(page, channelName);
  await expect(test.getByTestId('tag-test-floor')).toHaveText(
    "Floor in force: $8.00: the channel's floor rule video|640x360|us (the most specific rule this request matches)",
  );
  await test.getByTestId('tag-test-floor').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/floor-rules-tag-test.png' });
});

/** The profile's Options tab, its floor rules switched to `on`, then saved. */
async function accountRules(page: Page, fill: ((modal: Locator) => Promise<void>) | null): Promise<void> {
  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  const modal = await openedModal(page, 'profile-form');
  await modal.getByTestId('profile-tab-options').click();
  const rules = modal.getByTestId('floor-rules');
  if (fill) {
    if (!(await rules.isVisible())) await modal.getByTestId('floor-rules-switch').click();
    await fill(modal);
    await modal.getByTestId('floor-rules').scrollIntoViewIfNeeded();
    await page.screenshot({ path: '/tmp/shots/floor-rules-account.png' });
  } else if (await rules.isVisible()) await modal.getByTestId('floor-rules-switch').click();
  await modal.getByTestId('profile-save').click();
  await expect(page.getByTestId('profile-form')).toBeHidden();
}

test("the account's floor rules, set in the profile, are the floor of a channel without its own", async ({ page }) => {
  // the channels' list, where the test goes on after the profile
  await signInAt(page, 'demand', '/channels', 'ssp');
  await accountRules(page, async (modal) => {
    await fillRule(modal, 0, ['video', '*'], '0.10');
    await sample(modal, { 'Media type': 'video', Size: '640x360' });
    await expect(modal.getByTestId('floor-preview-result')).toHaveText(
      "$0.10: the account's floor rule video|* (the most specific rule this request matches)",
    );
  });
  try {
    const channels = new ResourcePage(page, 'channels', '/channels');
    await channels.open();
    const test = await openTagTest(page, 'Demo player - auction');
    await expect(test.getByTestId('tag-test-floor')).toHaveText(
      "Floor in force: $0.10: the account's floor rule video|* (the most specific rule this request matches)",
    );
    await page.keyboard.press('Escape');
    await expect(test).toBeHidden();
  } finally {
    // the demo account is shared with the other specs: its rules go off again
    await accountRules(page, null);
  }
});
