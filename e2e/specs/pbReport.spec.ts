import { expect, test } from '../support/test.js';
import { pickOption } from '../support/antdFields.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { openFromNavMenu, signIn } from '../support/session.js';

/**
 * The postbid report (/pbReport, docs/reports.md) against a real server whose demo workspace holds 30 days
 * of stats, post-bid impressions and the vendors' verdicts among them: open it from the Reports
 * menu, run IVT rates by country, save it, and open it again from the bell at /pbReport/{id}?saved=1.
 */
const server = EDITION_SERVERS.default;
test.describe.configure({ timeout: 120_000 });

test('runs IVT rates by country, saves the postbid report and reopens it from the bell', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, 'demand', undefined, server.url);
  await openFromNavMenu(page, 'reports', 'nav-/pbReport', 'report-title');
  await expect(page.getByTestId('report-title')).toHaveText('Postbid Report', { timeout: 30_000 });
  // the account's postback URL for its vendors, and the month's allowances
  // (shortened on screen, whole in its label and when copied)
  await expect(page.getByTestId('pb-postback-url')).toHaveAttribute(
    'aria-label',
    /\/pb\/\d+-[\w-]{22}\?id=\{\{impression_id\}\}&ivt=1$/,
  );
  await expect(page.getByTestId('pb-setup')).toContainText('Saved postbid reports');

  // only the post-bid metrics are offered
  await page.getByTestId('report-metrics').click();
  await expect(page.locator('.ant-select-dropdown:visible .ant-select-item-option')).toHaveText([
    'Post-bid Impressions',
    'Post-bid IVT',
    'Post-bid IVT Rate',
  ]);
  await page.keyboard.press('Escape');

  await pickOption(page, page.getByTestId('report-preset'), 'Last 30 days', '');
  await pickOption(page, page.getByTestId('report-dimensions'), 'Country');
  await page.getByTestId('report-run').click();
  await expect(page.getByTestId('report-total-row')).toBeVisible();
  await expect(page.getByTestId('report-total-postbidIvtRate')).toHaveText(/^\d+\.\d{2}%$/);
  await expect(page.getByTestId('report-total-postbidImps')).toHaveText(/^[1-9][\d,]*$/);
  await expect(page.getByTestId('report-chart').locator('canvas')).toBeVisible();
  await page.screenshot({ path: 'test-results/pb-report.png', fullPage: false });

  await page.getByTestId('report-save').click();
  await page.getByTestId('report-name').fill('E2E IVT by country');
  await page.getByTestId('report-name-ok').click();
  await expect(page).toHaveURL(/\/pbReport\/\d+$/);
  const id = page.url().split('/').at(-1)!;

  await expect(page.getByTestId('bell')).toHaveAttribute('data-highlighted', '1');
  await page.getByTestId('bell').click();
  await expect(page.getByTestId(`bell-entry-${id}`)).toHaveAttribute('data-new', '1');
  await page.getByTestId(`bell-entry-link-${id}`).click();
  await expect(page).toHaveURL(new RegExp(`/pbReport/${id}\\?saved=1$`));
  await expect(page.getByTestId('report-title')).toHaveText('E2E IVT by country');
  // it runs as it opens, by country again
  await expect(page.getByTestId('report-total-row')).toBeVisible();
  await expect(page.getByTestId('report-table')).toContainText('Country');
  await expect(page.getByTestId('report-total-postbidIvtRate')).toHaveText(/^\d+\.\d{2}%$/);
});
