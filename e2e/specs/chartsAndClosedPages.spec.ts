import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { formatDate, formatHour } from '@adplane/shared';
import { EDITION_SERVERS } from '../support/servers.js';
import { logIn, signIn, signInAt } from '../support/session.js';

/**
 * Numbers and charts that do not mislead, pages that say why they are closed, and one rule for the
 * SSP | DSP switch, in Chromium against a real server: a report by two dimensions names both in its
 * chart, the hour the server is still counting is marked partial (dashboard and report), the
 * dashboard shows a skeleton while its numbers load and the error in their place when they fail,
 * /log in the default edition tells the admin why it is closed, and each role gets the switch
 * exactly when the user the server sends says `showDsp`. Screenshots in /tmp/shots/charts-*.png.
 */
test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 1440, height: 900 } });

const server = EDITION_SERVERS.default;

/** Hover the chart in `box` over category `index` of `count` (a category axis, grid `left`/`right` px). */
async function hoverCategory(box: Locator, index: number, count: number, left: number, right: number, y: number) {
  const size = await box.boundingBox();
  if (!size) throw new Error('the chart has no box');
  const x = left + ((index + 0.5) * (size.width - left - right)) / count;
  await box.page().mouse.move(size.x + x - 20, size.y + y);
  await box.page().mouse.move(size.x + x, size.y + y, { steps: 4 });
}

/** Save a report as the signed-in user and open it (it runs on opening). */
async function openSavedReport(page: Page, name: string, request: Record<string, unknown>): Promise<void> {
  const saved = await page.request.post(`${server.url}/api/savedReports`, { data: { name, request } });
  expect(saved.status(), await saved.text()).toBe(201);
  const { id } = (await saved.json()) as { id: number };
  await page.goto(`/report/${id}?saved=1`);
  await expect(page.getByTestId('report-total-row')).toBeVisible({ timeout: 60_000 });
}

test('a report by two dimensions names both in its bars: the first on the axis, the second as the series', async ({
  page,
}) => {
  await logIn(page, 'demand');
  const today = formatDate(Date.now());
  const weekAgo = formatDate(Date.now() - 6 * 86_400_000);
  await openSavedReport(page, `Two dimensions ${Date.now()}`, {
    startDate: weekAgo,
    endDate: today,
    dimensions: ['channel', 'tag'],
    metrics: ['revenue'],
  });
  const chart = page.getByTestId('report-chart');
  await expect(chart.locator('canvas')).toBeVisible();
  // the table's rows: a channel with more than one demand tag is what the old chart drew as bars of one name
  const rows = page.getByTestId('report-table').locator('.ant-table-tbody .ant-table-row');
  const cells = await rows.evaluateAll((trs) =>
    trs.map((tr) =>
      Array.from(tr.querySelectorAll('td'))
        .slice(0, 2)
        .map((td) => td.textContent?.trim() ?? ''),
    ),
  );
  const tags = new Set(cells.map(([, tag]) => tag));
  expect(tags.size).toBeGreaterThan(1);
  // ECharts' description of the chart (its aria label) lists each series: one per demand tag
  const label = (await page.getByTestId('report-chart-canvas').getAttribute('aria-label')) ?? '';
  expect(label).toMatch(/It consists of \d+ series count/);
  // the table names an entity with its id (`Name #8`); the chart by its name
  const [topChannel, topTag] = cells[0]!.map((text) => text.replace(/\s#\d+$/, ''));
  expect(label).toContain(`representing ${topTag}`);
  expect(label).toContain(`the data for ${topChannel} is`);
  await page.screenshot({ path: '/tmp/shots/charts-two-dimensions.png' });
});

test("the report by hour marks the hour the server is still counting, by the server's clock", async ({ page }) => {
  await logIn(page, 'demand');
  // a request on one of the tenant's channels now: this hour has a row
  const channels = (await (await page.request.get(`${server.url}/api/demand/channels/list`)).json()) as {
    uid: string;
    status: number;
    archived: boolean;
  }[];
  const channel = channels.find((c) => c.status === 1 && !c.archived)!;
  await page.request.get(`${server.url}/vast/${channel.uid}?w=640&h=360&cb=${Date.now()}`);
  const { now } = (await (await page.request.get(`${server.url}/api/clock`)).json()) as { now: number };
  const partial = formatHour(now, 0);
  const request = {
    startDate: formatDate(now - 86_400_000),
    endDate: formatDate(now),
    timezone: 0,
    dimensions: ['hour'],
    metrics: ['reqs'],
  };
  // the edge writes its counts every few seconds: wait for this hour's row
  await expect(async () => {
    const rows = (await (await page.request.post(`${server.url}/api/rrun`, { data: request })).json()) as {
      hour?: string;
    }[];
    expect(rows.some((r) => r.hour === partial)).toBe(true);
  }).toPass({ timeout: 30_000 });
  await openSavedReport(page, `By hour ${Date.now()}`, request);
  const chart = page.getByTestId('report-chart');
  await expect(chart).toHaveAttribute('data-partial-hour', partial);
  const hours = await page
    .getByTestId('report-table')
    .locator('.ant-table-tbody .ant-table-row')
    .evaluateAll((trs) => trs.length);
  expect(hours).toBeGreaterThan(1);
  // the partial hour is the chart's last category (at the plot's right end, before the axis name):
  // moving in from the right, the first category whose tooltip shows is it, and it says so
  const box = page.getByTestId('report-chart-canvas');
  const size = (await box.boundingBox())!;
  const note = chart.getByText('partial hour, still being counted');
  let at = size.width;
  for (; at > size.width - 200; at -= 6) {
    await page.mouse.move(size.x + at, size.y + 160);
    if (await note.count()) break;
  }
  await expect(note).toBeVisible();
  await page.screenshot({ path: '/tmp/shots/charts-report-partial-hour.png' });
  // two categories to the left, an hour that reads as any other
  const categories = Number(await chart.getAttribute('data-categories'));
  await page.mouse.move(size.x + at - (2 * (size.width - 70)) / categories, size.y + 160, { steps: 4 });
  await expect(chart.getByText('2026-', { exact: false }).first()).toBeVisible();
  await expect(chart.getByText('partial hour, still being counted')).toHaveCount(0);
});

test("the dashboard's revenue by hour ends in a dashed partial hour, named in its tooltip", async ({ page }) => {
  await signIn(page, 'demand');
  const { hourNow } = (await (await page.request.get(`${server.url}/api/dashboard?view=ssp`)).json()) as {
    hourNow: string;
  };
  const card = page.getByTestId('dashboard-hours-chart');
  const box = page.getByTestId('dashboard-hours-canvas');
  await expect(box).toBeVisible();
  await hoverCategory(box, Number(hourNow.slice(11, 13)), 24, 60, 16, 130);
  await expect(card.getByText('partial hour, still being counted')).toBeVisible();
  await card.screenshot({ path: '/tmp/shots/charts-dashboard-partial-hour.png' });
});

test('the dashboard shows a skeleton while its numbers load, and the error in their place when they fail', async ({
  page,
}) => {
  await logIn(page, 'demand');
  // hold the dashboard's numbers until the skeleton has been seen, then let them fail once
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  await page.route(
    (url) => url.pathname === '/api/dashboard',
    async (route) => {
      calls++;
      if (calls === 1) {
        await held;
        await route.fulfill({ status: 503, json: { message: 'The stats store is busy; try again' } });
      } else await route.continue();
    },
  );
  await page.goto('/');
  await expect(page.getByTestId('dashboard-stats-loading')).toBeVisible();
  await page.screenshot({ path: '/tmp/shots/charts-dashboard-loading.png' });
  release();
  const error = page.getByTestId('dashboard-stats-error');
  await expect(error).toContainText('The numbers could not be loaded');
  await expect(error).toContainText('The stats store is busy; try again');
  await page.screenshot({ path: '/tmp/shots/charts-dashboard-error.png' });
  // still signed in, and Try again brings the numbers
  await page.getByTestId('dashboard-stats-retry').click();
  await expect(page.getByTestId('dashboard-stat-revenue')).toContainText(/\$[\d,]+\.\d{2}/);
});

test('a list whose numbers fail says so in their place, not as zeros, and its rows still work', async ({ page }) => {
  await logIn(page, 'demand');
  await page.route(
    (url) => url.pathname === '/api/rowStats',
    (route) => route.fulfill({ status: 503, json: { message: 'The stats store is busy; try again' } }),
  );
  await page.goto('/channels');
  await expect(page.getByTestId('period-range')).toHaveText('The numbers could not be loaded');
  await expect(page.locator('[data-testid$="-failed"]').first()).toBeVisible();
  await expect(page.locator('.metric-cell')).toHaveCount(0);
  await expect(page.locator('.ant-table-row').first()).toBeVisible();
  await page.screenshot({ path: '/tmp/shots/charts-list-numbers-failed.png' });
});

test('/log in the default edition tells the admin why it is closed, with a way back, and keeps the session', async ({
  page,
}) => {
  await signInAt(page, 'admin', '/log');
  await expect(page.getByTestId('closed-page-reason')).toHaveText(
    'User Activity is not part of this edition (default)',
  );
  await expect(page).toHaveURL(/\/log$/);
  await expect(page.getByTestId('login-submit')).toHaveCount(0);
  // the server answers its API with the same sentence
  const api = await page.request.get(`${server.url}/api/activity`);
  expect(api.status()).toBe(403);
  expect(((await api.json()) as { message: string }).message).toBe(
    'User Activity is not part of this edition (default)',
  );
  await page.screenshot({ path: '/tmp/shots/charts-closed-log.png' });
  await page.getByTestId('closed-page-home').click();
  await expect(page.getByTestId('dashboard')).toBeVisible();
  expect((await page.request.get(`${server.url}/api/auth/user`)).status()).toBe(200);
});

for (const [role, may] of [
  ['admin', true],
  ['demand', true],
  ['manager', true],
  ['acme', false],
  ['sub', false],
  ['adv', false],
  ['sdk', false],
] as const) {
  test(`the SSP | DSP switch: ${role} ${may ? 'gets it' : 'does not'}, as its showDsp and the server say`, async ({
    page,
  }) => {
    await signIn(page, role);
    const user = (await (await page.request.get(`${server.url}/api/auth/user`)).json()) as { showDsp: boolean };
    expect(user.showDsp).toBe(may);
    await expect(page.getByTestId('mode-switch')).toHaveCount(may ? 1 : 0);
    const put = await page.request.put(`${server.url}/api/ui/mode`, { data: { mode: 'dsp' } });
    expect(put.status()).toBe(may ? 200 : 403);
    if (role === 'manager') {
      // a team member's own flag is off: the tenant's DSP view is what lets it switch
      await page.getByTestId('mode-switch-dsp').click();
      await expect(page.locator('[data-testid="nav-/campaigns"]')).toHaveCount(1);
      await page.screenshot({ path: '/tmp/shots/charts-manager-dsp.png' });
    }
  });
}
