import { expect, test } from '../support/test.js';
import { exactRow, inputOf, pickOption, rowId } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';

/**
 * An optimised demand order and an A/B split, end to end: switched on in the channel form
 * (exploration, window, timeout cost; arm B's share, floor and tag), a tag pinned, saved and read
 * back, and "Test this tag" says the arm that served and the order the tags were called in and why.
 */
test.describe.configure({ mode: 'serial', timeout: 120_000 });

const channelName = `E2E Optimised order ${Date.now().toString(36)}`;

test('the channel form optimises the demand order, pins a tag, and the tag test says why the tags were called in that order', async ({
  page,
}) => {
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.openAs('demand', 'ssp');
  await channels.startNew();
  const drawer = channels.drawer;
  await page.getByTestId('channel-name').fill(channelName);
  await drawer.getByText('Priority (waterfall)').click();
  await pickOption(page, page.locator('#channel-demand-add'), 'Beacon DSP - US CTV preroll', 'Beacon');
  await pickOption(page, page.locator('#channel-demand-add'), 'Crestline Exchange', 'Crestline');
  await expect(drawer.getByTestId('channel-demand-row')).toHaveCount(2);
  // off: no pins to set
  await expect(drawer.getByTestId('channel-demand-pinned')).toHaveCount(0);

  await drawer.getByTestId('channel-optimise-switch').click();
  await expect(drawer.getByTestId('channel-optimise')).toContainText(
    'The waterfall calls the tags in the order of what each earned per call lately',
  );
  // a waterfall has no cap on calls: that field is an auction's
  await expect(drawer.getByTestId('channel-optimise-max-calls')).toHaveCount(0);
  await inputOf(drawer.getByTestId('channel-optimise-explore')).fill('15');
  await inputOf(drawer.getByTestId('channel-optimise-window')).fill('30');
  await drawer.getByTestId('channel-demand-pinned').first().check();
  await drawer.getByTestId('channel-optimise').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/optimised-demand-form.png' });

  // an A/B split: arm B serves 30 % with one tag at its own floor
  await drawer.getByTestId('channel-split-switch').click();
  await inputOf(drawer.getByTestId('channel-split-percent')).fill('30');
  await inputOf(drawer.getByTestId('channel-split-floor')).fill('9');
  await pickOption(page, page.locator('#channel-split-demand-add'), 'Crestline Exchange', 'Crestline');
  await expect(drawer.getByTestId('channel-split-demand-row')).toHaveCount(1);
  await drawer.getByTestId('channel-split').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/ab-split-form.png' });
  await channels.save();

  // read back as saved
  await channels.openRow(channelName);
  await expect(drawer.getByTestId('channel-optimise-switch')).toBeChecked();
  await expect(inputOf(drawer.getByTestId('channel-optimise-explore'))).toHaveValue('15');
  await expect(inputOf(drawer.getByTestId('channel-optimise-window'))).toHaveValue('30');
  await expect(drawer.getByTestId('channel-demand-pinned').first()).toBeChecked();
  await expect(drawer.getByTestId('channel-demand-pinned').nth(1)).not.toBeChecked();
  await expect(drawer.getByTestId('channel-split-switch')).toBeChecked();
  await expect(inputOf(drawer.getByTestId('channel-split-percent'))).toHaveValue('30');
  await expect(inputOf(drawer.getByTestId('channel-split-floor'))).toHaveValue('9.00');
  await expect(drawer.getByTestId('channel-split-demand-row')).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();

  // "Test this tag": the arm that served, and on arm A (its two tags) the order used and why (nothing
  // measured yet on a new channel); arm B lists one tag, which has no order to choose
  await page.getByTestId(`tag-test-${await rowId(exactRow(page, channelName))}`).click();
  const test = page.locator('.ant-drawer').filter({ has: page.getByTestId('tag-test-run') });
  const arm = test.getByTestId('tag-test-arm');
  for (let run = 0; run < 20; run++) {
    await test.getByTestId('tag-test-run').click();
    await expect(test.getByTestId('tag-test-result')).toBeVisible({ timeout: 15_000 });
    await expect(arm).toContainText('arm B serves 30% of requests');
    if ((await arm.textContent())?.includes('arm A served')) break;
    await expect(test.getByTestId('tag-test-order')).toHaveCount(0);
  }
  await expect(arm).toContainText('arm A served this request');
  await expect(test.getByTestId('tag-test-order')).toContainText(
    'Beacon DSP - US CTV preroll - VAST 4 (pinned, not measured yet)',
  );
  await test.getByTestId('tag-test-order').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/optimised-demand-tag-test.png' });
});
