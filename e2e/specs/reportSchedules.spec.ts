import { expect, test } from '../support/test.js';
import { pickOption } from '../support/antdFields.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { signInAt } from '../support/session.js';

/**
 * A saved report's schedules on the Saved Reports page: a user adds a weekly schedule in a time zone
 * with CSV and XLSX to an address and a webhook, sees its next run and that the server's mail is off
 * (the e2e servers have no mail settings), changes it and deletes it.
 */
const server = EDITION_SERVERS.default;
test.describe.configure({ timeout: 120_000 });

test('schedules a saved report, shows its next run and that mail is off, changes and deletes it', async ({ page }) => {
  await signInAt(page, 'demand', `${server.url}/report`);
  await expect(page.getByTestId('report-title')).toHaveText('Create Report', { timeout: 30_000 });
  const name = `E2E scheduled ${Date.now()}`;
  await page.getByTestId('report-save').click();
  await page.getByTestId('report-name').fill(name);
  await page.getByTestId('report-name-ok').click();
  await expect(page).toHaveURL(/\/report\/\d+$/);
  const id = page.url().split('/').at(-1)!;

  await page.goto(`${server.url}/reports`);
  await page.getByTestId(`saved-schedule-${id}`).click();
  const drawer = page.getByTestId('schedules-drawer');
  await expect(drawer.getByTestId('schedules-mail-off')).toContainText('Mail is off');
  await expect(drawer).toContainText('No schedules yet');

  await drawer.getByTestId('schedule-add').click();
  await pickOption(page, drawer.getByTestId('schedule-frequency'), 'Weekly', '');
  // the weekday's field appears once Weekly is chosen: found by its own test id, not by a label's text
  await pickOption(page, drawer.getByTestId('schedule-weekday'), 'Monday', '');
  await pickOption(page, drawer.getByTestId('schedule-hour'), '07:00', '');
  await pickOption(page, drawer.getByTestId('schedule-zone'), 'America/New_York', 'America/New_York');
  await drawer.getByRole('checkbox', { name: 'XLSX (Excel)' }).check();
  await drawer.getByTestId('schedule-emails').click();
  await page.keyboard.type('ops@example.com,');
  await drawer.getByTestId('schedule-webhook').fill('https://hooks.example.com/adplane');
  await drawer.getByTestId('schedule-save').click();

  const card = drawer.locator('[data-testid^="schedule-when-"]');
  await expect(card).toHaveText('Mondays at 07:00 America/New_York');
  const scheduleId = (await card.getAttribute('data-testid'))!.replace('schedule-when-', '');
  await expect(drawer.getByTestId(`schedule-next-${scheduleId}`)).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
  await expect(drawer.getByTestId(`schedule-last-${scheduleId}`)).toContainText('Not run yet');
  await expect(drawer).toContainText('ops@example.com');
  await expect(drawer).toContainText('CSV and XLSX');
  // the next run the server computed: a Monday, 07:00 in New York
  const listed = await page.evaluate(async (reportId) => {
    const res = await fetch(`/api/savedReport/${reportId}/schedules`);
    return (await res.json()) as { mailOn: boolean; schedules: { nextRunAt: string }[] };
  }, id);
  expect(listed.mailOn).toBe(false);
  const next = new Date(listed.schedules[0]!.nextRunAt);
  const local = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/New_York',
    weekday: 'long',
    hour: '2-digit',
    hourCycle: 'h23',
  }).format(next);
  expect(local).toBe('Monday, 07');
  await page.screenshot({ path: test.info().outputPath('report-schedules.png') });

  await drawer.getByTestId(`schedule-edit-${scheduleId}`).click();
  await pickOption(page, drawer.getByTestId('schedule-frequency'), 'Monthly', '');
  await drawer.locator('.ant-form-item', { hasText: 'On day' }).locator('input').fill('31');
  await page.screenshot({ path: test.info().outputPath('report-schedules-form.png') });
  await drawer.getByTestId('schedule-save').click();
  await expect(card).toHaveText("Monthly on day 31 (or the month's last day) at 07:00 America/New_York");

  await drawer.getByTestId(`schedule-delete-${scheduleId}`).click();
  await page.locator('.ant-popconfirm').getByRole('button', { name: 'Delete' }).click();
  await expect(drawer).toContainText('No schedules yet');
});
