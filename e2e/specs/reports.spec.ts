import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { inputOf, pickOption } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { logIn, openFromNavMenu, signIn, signInAt } from '../support/session.js';

/**
 * Reports against a real server whose demo workspace holds 30 days of stats: run a report, chart it,
 * save it and find it in the bell, write a file and download it, open the market report helper, read
 * a fill funnel, and check the month-to-date system cost against the finance page.
 */
const server = EDITION_SERVERS.default;
// Reports over 30 days of history on a shared machine: give each flow room.
test.describe.configure({ timeout: 120_000 });

async function runReport(page: Page) {
  await page.getByTestId('report-run').click();
  await expect(page.getByTestId('report-total-row')).toBeVisible();
}

test('runs a report by date and channel, charts it, saves it and opens it from the bell', async ({ page }) => {
  await signIn(page, 'demand', undefined, server.url);
  await openFromNavMenu(page, 'reports', 'nav-/report', 'report-title');
  // The first page of a freshly started server on a busy machine may take a while.
  await expect(page.getByTestId('report-title')).toHaveText('Create Report', { timeout: 30_000 });
  await pickOption(page, page.getByTestId('report-preset'), 'Last 30 days', '');
  await pickOption(page, page.getByTestId('report-dimensions'), 'Channel');
  await runReport(page);
  // 30 days of history: one row per day and channel, a chart, and totals in USD.
  await expect(page.getByTestId('report-chart').locator('canvas')).toBeVisible();
  await expect(page.getByTestId('report-total-revenue')).toHaveText(/^\$[\d,]+\.\d{2}$/);
  await expect(page.getByTestId('report-total-fill')).toHaveText(/^\d+\.\d{2}%$/);
  // the geo and IP data's credits, with the link DB-IP asks for
  await expect(page.getByTestId('data-credits').getByRole('link', { name: 'DB-IP (db-ip.com)' })).toHaveAttribute(
    'href',
    'https://db-ip.com',
  );
  const rows = page.getByTestId('report-table').locator('.ant-table-tbody .ant-table-row');
  await expect(rows.first()).toBeVisible();
  await page.getByTestId('report-chart-kind').getByText('Bars').click();
  await page.screenshot({ path: 'test-results/reports-create.png', fullPage: true });

  // CSV export of what is on screen.
  const download = page.waitForEvent('download');
  await page.getByTestId('report-export').click();
  const csv = await (await download).path().then((p) => import('node:fs').then((fs) => fs.readFileSync(p!, 'utf8')));
  expect(csv.split('\n')[0]).toBe('Date,Channel Id,Channel,Requests,Opportunities,Impressions,Fill,Revenue,eCPM');
  expect(csv.trim().split('\n').at(-1)).toMatch(/^Total,/);

  await page.getByTestId('report-save').click();
  await page.getByTestId('report-name').fill('E2E channels by day');
  await page.getByTestId('report-name-ok').click();
  await expect(page).toHaveURL(/\/report\/\d+$/);
  const id = page.url().split('/').at(-1)!;

  // The bell lights up with the new entry in bold, until clicked.
  await expect(page.getByTestId('bell')).toHaveAttribute('data-highlighted', '1');
  await page.getByTestId('bell').click();
  await expect(page.getByTestId('bell')).toHaveAttribute('data-highlighted', '0');
  const entry = page.getByTestId(`bell-entry-${id}`);
  await expect(entry).toHaveAttribute('data-new', '1');
  await page.screenshot({ path: 'test-results/reports-bell.png' });
  await page.getByTestId(`bell-entry-link-${id}`).click();
  await expect(page).toHaveURL(new RegExp(`/report/${id}\\?saved=1$`));
  await expect(page.getByTestId('report-title')).toHaveText('E2E channels by day');
  await expect(page.getByTestId('report-total-row')).toBeVisible();

  // The Saved Reports page lists it; archive hides it from the active list.
  await page.goto(`${server.url}/reports`);
  await expect(page.getByTestId('saved-reports-table')).toContainText('E2E channels by day');
  await page.getByTestId(`saved-archive-${id}`).click();
  await expect(page.getByTestId('saved-reports-table')).not.toContainText('E2E channels by day');
});

test('writes a long report to a file that lands in the bell and downloads', async ({ page }) => {
  await signInAt(page, 'demand', `${server.url}/report`);
  await pickOption(page, page.getByTestId('report-preset'), 'Last 30 days', '');
  await pickOption(page, page.getByTestId('report-dimensions'), 'Country');
  await page.getByTestId('report-to-file').click();
  await page.getByTestId('report-name').fill('E2E countries file');
  await page.getByTestId('report-name-ok').click();
  await page.getByTestId('bell').click();
  const link = page.locator('[data-testid^="bell-entry-link-"]', { hasText: 'E2E countries file' });
  await expect(link).toBeVisible({ timeout: 30_000 });
  const href = await link.getAttribute('href');
  expect(href).toMatch(/^\/api\/savedFile\/\d+$/);
  const file = await page.request.get(`${server.url}${href}`);
  expect(file.status()).toBe(200);
  expect(file.headers()['content-disposition']).toContain('E2E countries file.csv');
  const lines = (await file.text()).trim().split('\n');
  expect(lines[0]).toBe('Date,Country,Requests,Opportunities,Impressions,Fill,Revenue,eCPM');
  expect(lines.length).toBeGreaterThan(30);
  // Another tenant cannot download it.
  await page.context().clearCookies();
  await logIn(page, 'acme', server.url);
  expect((await page.request.get(`${server.url}${href}`)).status()).toBe(404);
});

test('opens the market report helper in a new tab, prefilled', async ({ page, context }) => {
  await signIn(page, 'demand', undefined, server.url);
  // hovered as a person does, again if the menu closed before the click landed (support/session.ts openFrom)
  let tab: Page | undefined;
  await expect(async () => {
    const item = page.getByTestId('nav-market-report');
    if (!(await item.isVisible())) await page.getByTestId('nav-menu-reports').hover();
    const opened = context.waitForEvent('page', { timeout: 5_000 });
    opened.catch(() => undefined); // a click that did not land leaves it to time out, unheard
    await item.click({ timeout: 2_000 });
    tab = await opened;
  }).toPass({ timeout: 30_000 });
  if (!tab) throw new Error('the market report did not open');
  await expect(tab).toHaveURL(/\/report\?store=1$/);
  await expect(tab.getByTestId('report-title')).toHaveText('Marketplace Report');
  await expect(tab.getByTestId('report-total-row')).toBeVisible();
  const headers = await tab.getByTestId('report-table').locator('thead th').allInnerTexts();
  expect(headers.map((h) => h.trim()).filter(Boolean)).toEqual([
    'Marketplace',
    'Marketplace Revenue',
    'Marketplace Deal Revenue',
    'Impressions',
    'Requests',
    'Opportunities',
    'Fill',
  ]);
  await expect(inputOf(tab.getByTestId('report-hide-errors'))).toBeChecked();
});

/**
 * Opens the fill funnel of the row the last 7 days counted most by `metric` (other specs add rows
 * without history to this server) and checks it has requests and a no_bid reason.
 */
async function busiestFunnel(
  page: Page,
  kind: 'channels' | 'tags',
  dimension: 'channel' | 'tag',
  metric: string,
  summary: string,
): Promise<void> {
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const answer = await page.request.post(`${server.url}/api/rrun`, {
    data: {
      startDate: day(6),
      endDate: day(0),
      dimensions: [dimension],
      metrics: [metric],
      sort: { by: metric, order: 'desc' },
      limit: 1,
    },
  });
  expect(answer.status()).toBe(200);
  const [busiest] = (await answer.json()) as Record<string, number | string>[];
  expect(Number(busiest![metric])).toBeGreaterThan(0);
  const list = new ResourcePage(page, kind, `${server.url}/${kind}`);
  await list.open();
  await list.search(String(busiest![`${dimension}_name`]));
  await page.getByTestId(`fill-funnel-${busiest![dimension]}`).click();
  const funnel = page.getByTestId('fill-funnel');
  await expect(funnel.getByTestId('fill-funnel-summary')).toContainText(summary);
  await expect(funnel.getByTestId('fill-funnel-requests')).toHaveText(/^[1-9][\d,]*$/);
  await expect(funnel.getByTestId('fill-funnel-reasons')).toContainText('no_bid');
}

test('reads the fill funnel of a channel and of a demand tag', async ({ page }) => {
  // the report call is the API's; the console opens on each list
  await logIn(page, 'demand', server.url);
  await busiestFunnel(page, 'channels', 'channel', 'reqs', 'eligible opportunities');
  await page.screenshot({ path: 'test-results/reports-funnel.png' });
  // A demand tag's funnel starts from the times it was considered.
  await busiestFunnel(page, 'tags', 'tag', 'source_reqs', 'demand requests');
  await page.screenshot({ path: 'test-results/reports-funnel-tag.png' });
});

test('the month-to-date system cost equals the finance page', async ({ page }) => {
  await signIn(page, 'demand', undefined, server.url);
  const mtd = page.getByTestId('mtd-system-cost');
  await expect(mtd).toHaveText(/^MTD cost \$[\d,]+\.\d{2}$/);
  const cost = (await mtd.innerText()).replace('MTD cost ', '');
  await expect(page.getByTestId('dashboard-stats')).toBeVisible();
  await page.screenshot({ path: 'test-results/reports-dashboard.png', fullPage: true });
  await page.context().clearCookies();
  await signInAt(page, 'admin', `${server.url}/finance`);
  const row = page.getByTestId('finance-table').locator('.ant-table-row', { hasText: 'Northwind Media' });
  await expect(row).toContainText(cost);
  await page.screenshot({ path: 'test-results/reports-finance.png', fullPage: true });
});

test('shows the apps seen in traffic, one by day, and adds one to an app list', async ({ page }) => {
  await signInAt(page, 'demand', `${server.url}/applications`);
  const rows = page.getByTestId('observed-table').locator('.ant-table-tbody .ant-table-row');
  await expect(rows.first()).toBeVisible();
  const bundle = (await rows.first().locator('a').innerText()).trim();
  await rows.first().locator('.ant-checkbox-input').check();
  await page.getByTestId('observed-add-to-list').click();
  await pickOption(page, page.getByTestId('observed-list-select'), '', '');
  // a multiple select stays open after a pick: close it before the modal's button
  await page.locator('.ant-modal-title').click();
  await expect(page.locator('.ant-select-dropdown:visible')).toHaveCount(0);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.locator('.ant-message')).toContainText(/Added to '.+' \+1|Already in the lists/);
  await rows.first().locator('a').click();
  await expect(page).toHaveURL(new RegExp(`/applications/${bundle.replaceAll('.', '\\.')}$`));
  await expect(
    page.getByTestId('observed-detail-table').locator('.ant-table-tbody .ant-table-row').first(),
  ).toBeVisible();
  await page.screenshot({ path: 'test-results/reports-observed.png', fullPage: true });
});
