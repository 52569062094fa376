import { expect, test } from '../support/test.js';
import { signIn } from '../support/session.js';

/**
 * Every role lands on its own numbers: the tenant its revenue against cost, a subpublisher its
 * channels' revenue and fill, an advertiser its campaigns' delivery, an SDK developer its apps.
 */
test('a subpublisher lands on its channels revenue and fill, without the tenant margin or demand', async ({ page }) => {
  await signIn(page, 'sub');
  await expect(page.getByTestId('dashboard-stat-revenue')).toContainText(/\$[\d,]+\.\d{2}/);
  await expect(page.getByTestId('dashboard-stat-fill')).toContainText(/\d+\.\d{2}%/);
  await expect(page.getByTestId('dashboard-stat-cost')).toHaveCount(0);
  await expect(page.getByTestId('dashboard-stat-profit')).toHaveCount(0);
  await expect(page.getByTestId('dashboard-top-channels')).toContainText('Your channels');
  await expect(page.getByTestId('dashboard-top-channels').locator('.ant-table-row').first()).toContainText(
    'Harbor Video',
  );
  await expect(page.getByTestId('dashboard-top-demand')).toHaveCount(0);
});

test("an advertiser lands on its campaigns' delivery", async ({ page }) => {
  await signIn(page, 'adv');
  await expect(page.getByTestId('dashboard-stat-revenue')).toContainText('Spend today');
  await expect(page.getByTestId('dashboard-stat-ecpm')).toContainText(/\$[\d,]+\.\d{2}/);
  await expect(page.getByTestId('dashboard-stat-cost')).toHaveCount(0);
  const campaigns = page.getByTestId('dashboard-top-campaigns');
  await expect(campaigns.locator('.ant-table-row').first()).toContainText('Blue Fin Foods');
  await expect(page.getByTestId('dashboard-top-channels')).toHaveCount(0);
});

test('the tenant lands on revenue against cost, and an SDK developer on its apps', async ({ page }) => {
  await signIn(page, 'demand');
  await expect(page.getByTestId('dashboard-stat-profit')).toContainText(/\$[\d,]+\.\d{2}/);
  await expect(page.getByTestId('dashboard-top-channels').locator('.ant-table-row')).not.toHaveCount(0);
  await expect(page.getByTestId('dashboard-top-demand').locator('.ant-table-row')).not.toHaveCount(0);
  await page.evaluate(() => fetch('/api/auth/logout', { credentials: 'include' }));
  await signIn(page, 'sdk');
  await expect(page.getByTestId('dashboard-sdk-apps').locator('.ant-table-row')).not.toHaveCount(0);
  await expect(page.getByTestId('dashboard-sdk-apps')).toContainText('App key');
});
