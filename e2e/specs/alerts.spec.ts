import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { inputOf, pickOption } from '../support/antdFields.js';
import { openFromNavMenu, signIn } from '../support/session.js';

/**
 * Alerts end to end: a trader opens Alerts from the Reports menu, finds the built-in rules on, makes
 * a rule of its own in the editor, sees it fire (its first check runs at once), reads the episode
 * with its numbers in the history and in the bell, turns the rule off (the episode clears) and
 * deletes it.
 */
const shot = (page: Page, name: string) => page.screenshot({ path: test.info().outputPath(name) });

test('a trader makes an alert rule, sees it fire in the history and the bell, and turns it off', async ({ page }) => {
  test.setTimeout(120_000);
  const name = `Requests under a billion a day ${test.info().workerIndex}-${Date.now()}`;
  await signIn(page, 'demand');
  await openFromNavMenu(page, 'reports', 'nav-/alerts', 'alerts-page');
  await page.mouse.move(1, 1);

  const rules = page.getByTestId('alert-rules');
  for (const builtin of [
    'Campaign behind pace or budget spent',
    'Demand tag timeouts above 20%',
    'Channel fill dropped by half, hour over hour',
  ])
    await expect(rules.locator('tr', { hasText: builtin })).toContainText('Built-in');
  await expect(rules.locator('tr', { hasText: 'Demand tag timeouts above 20%' })).toContainText('above 20.00%');
  await shot(page, 'alerts-rules.png');

  // a rule of its own: requests of the whole account under a billion over the last day
  await page.getByTestId('alert-new').click();
  const editor = page.locator('.ant-modal').filter({ hasText: 'New alert rule' });
  await expect(editor).toBeVisible();
  await editor.getByTestId('alert-name').fill(name);
  await pickOption(page, editor.getByTestId('alert-metric'), 'Requests', '');
  await pickOption(page, editor.getByTestId('alert-op'), 'Below', '');
  await inputOf(editor.getByTestId('alert-value')).fill('1000000000');
  await pickOption(
    page,
    editor.locator('.ant-form-item', { hasText: 'Over' }).locator('.ant-select'),
    'The last day (24 hours)',
    '',
  );
  await inputOf(editor.getByTestId('alert-every')).fill('5');
  await inputOf(editor.getByTestId('alert-email')).fill('trader@northwind.test ');
  await shot(page, 'alerts-editor.png');
  await editor.getByRole('button', { name: 'Save' }).click();
  await expect(editor).toBeHidden();
  const row = rules.locator('tr', { hasText: name });
  await expect(row).toContainText('below 1,000,000,000');
  await expect(row).toContainText('Last day, every 5 min');
  await expect(row).toContainText('Bell, 1 e-mail');

  // its first check runs as it is saved: it fires
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('alert-rules').locator('tr', { hasText: name })).toContainText('1 firing', {
      timeout: 2_000,
    });
  }).toPass({ timeout: 60_000 });
  await page.mouse.move(1, 1);
  await shot(page, 'alerts-firing.png');

  // the history holds the episode with the numbers that fired it
  await page.getByRole('tab', { name: /History/ }).click();
  const history = page.getByTestId('alert-history');
  const episode = history.locator('tr.ant-table-row', { hasText: name }).first();
  await expect(episode).toContainText('Firing');
  await expect(episode).toContainText('Whole account');
  await expect(episode).toContainText('1,000,000,000');
  await episode.locator('.ant-table-row-expand-icon').click();
  await expect(history).toContainText(/Requests [\d,]+ in .* UTC \(alert below 1,000,000,000\)/);
  await shot(page, 'alerts-history.png');

  // the bell shows it, above the saved reports
  await page.getByTestId('bell').click();
  const bell = page.getByTestId('bell-alerts');
  await expect(bell).toContainText(`${name}: Whole account`);
  await expect(bell).toContainText('Firing');
  await shot(page, 'alerts-bell.png');
  await page.keyboard.press('Escape');

  // turned off, its episode clears; then it is deleted
  await page.getByRole('tab', { name: 'Rules' }).click();
  await rules.locator('tr', { hasText: name }).getByRole('switch').click();
  await expect(rules.locator('tr', { hasText: name })).toContainText('Off');
  await page.getByRole('tab', { name: /History/ }).click();
  await page.getByTestId('alert-history-filter').getByText('All episodes').click();
  await page.reload();
  await page.getByRole('tab', { name: /History/ }).click();
  await expect(page.getByTestId('alert-history').locator('tr.ant-table-row', { hasText: name }).first()).toContainText(
    'Cleared',
  );
  await page.getByRole('tab', { name: 'Rules' }).click();
  const ownRow = page.getByTestId('alert-rules').locator('tr', { hasText: name });
  await ownRow.getByRole('button', { name: `Delete ${name}` }).click();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(ownRow).toHaveCount(0);
  // a built-in is turned off, never deleted
  await expect(
    page
      .getByTestId('alert-rules')
      .locator('tr', { hasText: 'Campaign behind pace' })
      .getByRole('button', { name: /Delete/ }),
  ).toBeDisabled();
});
