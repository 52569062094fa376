import { type Page } from '@playwright/test';
import { presetRange } from '@adplane/shared';
import { expect, test } from '../support/test.js';
import { pickOption } from '../support/antdFields.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { signInAt } from '../support/session.js';

/**
 * A saved report with a rolling period: picking the Yesterday preset marks the report Rolling and
 * shows yesterday's range, Saved Reports names it "Yesterday (rolling)", and the report opened again
 * keeps the preset and shows the range of the day it is opened.
 */
const server = EDITION_SERVERS.default;
test.describe.configure({ timeout: 120_000 });

/** The report's time zone, read from the form's picker ("UTC-5", "UTC±0"). */
async function formTimezone(page: Page): Promise<number> {
  const label = await page.getByTestId('report-timezone').innerText();
  const offset = /UTC([+-]\d+)/.exec(label);
  return offset ? Number(offset[1]) : 0;
}

/** The range picker's two inputs (the test id sits on the first input itself). */
const dateInputs = (page: Page) => page.getByTestId('report-form').getByRole('textbox', { name: /^(Start|End) date$/ });

test('saves a Yesterday report as rolling and reopens it on its preset', async ({ page }) => {
  await signInAt(page, 'demand', `${server.url}/report`);
  await expect(page.getByTestId('report-title')).toHaveText('Create Report', { timeout: 30_000 });
  await pickOption(page, page.getByTestId('report-preset'), 'Yesterday', '');
  await expect(page.getByTestId('report-rolling')).toBeVisible();
  await expect(page.getByTestId('report-preset')).toContainText('Yesterday');
  const yesterday = presetRange('yesterday', await formTimezone(page), Date.now()).startDate;
  await expect(dateInputs(page).nth(0)).toHaveValue(yesterday);
  await expect(dateInputs(page).nth(1)).toHaveValue(yesterday);

  const name = `E2E yesterday rolling ${Date.now()}`;
  await page.getByTestId('report-save').click();
  await page.getByTestId('report-name').fill(name);
  await page.getByTestId('report-name-ok').click();
  await expect(page).toHaveURL(/\/report\/\d+$/);
  const id = page.url().split('/').at(-1)!;

  await page.goto(`${server.url}/reports`);
  await expect(page.getByTestId(`saved-dates-${id}`)).toHaveText(`Yesterday (rolling): ${yesterday} to ${yesterday}`);
  await page.screenshot({ path: 'test-results/rolling-saved-list.png', fullPage: true });

  // reopened: the preset, the Rolling tag and the range of today's yesterday
  await page.goto(`${server.url}/report/${id}`);
  await expect(page.getByTestId('report-title')).toHaveText(name);
  await expect(page.getByTestId('report-preset')).toContainText('Yesterday');
  await expect(page.getByTestId('report-rolling')).toBeVisible();
  await expect(dateInputs(page).nth(0)).toHaveValue(yesterday);
  await page.screenshot({ path: 'test-results/rolling-reopened.png' });

  // a preset swapped for another keeps it rolling on that preset's range
  await pickOption(page, page.getByTestId('report-preset'), 'Last 7 days', '');
  await expect(dateInputs(page).nth(0)).toHaveValue(
    presetRange('last7', await formTimezone(page), Date.now()).startDate,
  );
  await expect(page.getByTestId('report-rolling')).toBeVisible();

  await page.request.delete(`${server.url}/api/savedReport/${id}`);
});
