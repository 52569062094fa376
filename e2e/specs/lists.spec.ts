import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { exactRow, inputOf, rowId } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { signIn, useMode } from '../support/session.js';

/**
 * The list pages as a trader uses them all day: each row's numbers for a period (equal to a report
 * over the same days), a column chooser that survives a reload, a bulk pause recorded in the activity
 * log, and every list at 1440x900 with its numbers on screen (screenshots in test-results/lists-*.png).
 */
test.describe.configure({ timeout: 120_000 });

interface RowStatsAnswer {
  startDate: string;
  endDate: string;
  timezone: number;
  metrics: string[];
  rows: Record<string, Record<string, number>>;
}

/** Open a list, pick a period, and return the numbers the page asked for. */
async function openWithPeriod(
  page: Page,
  list: ResourcePage,
  period: 'Today' | 'Yesterday' | 'Last 7 days',
  query: string,
): Promise<RowStatsAnswer> {
  await list.open();
  const answer = page.waitForResponse((r) => r.url().includes('/api/rowStats?') && r.url().includes(query));
  if (period !== 'Today') await page.getByTestId('period-select').getByText(period, { exact: true }).click();
  const stats = (await (await answer).json()) as RowStatsAnswer;
  await expect(page.getByTestId('period-range')).toContainText(stats.endDate);
  return stats;
}

/** The same numbers through POST /api/rrun, by the list's dimension over the answer's days and zone. */
async function reportOf(page: Page, stats: RowStatsAnswer, dimension: string): Promise<Record<string, number>[]> {
  return page.evaluate(
    async (body) => {
      const res = await fetch('/api/rrun', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Record<string, number>[];
    },
    {
      startDate: stats.startDate,
      endDate: stats.endDate,
      timezone: stats.timezone,
      dimensions: [dimension],
      metrics: stats.metrics,
    },
  );
}

/** Each row on screen that the report has: its cells show the report's values (a few rows, every metric). */
async function expectCellsEqualReport(
  page: Page,
  stats: RowStatsAnswer,
  report: Record<string, number>[],
  dimension: string,
): Promise<void> {
  const onScreen = await page
    .locator('.ant-table-row[data-row-key]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-row-key')));
  const rows = report
    .filter((r) => !r.total && onScreen.includes(String(r[dimension])) && Number(r.imps) > 0)
    .slice(0, 3);
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    let compared = 0;
    for (const m of stats.metrics) {
      const cell = page.getByTestId(`metric-${m}-${r[dimension]}`);
      // A list may hide a metric until asked (campaigns: bids and wins); the rest are on screen.
      if ((await cell.count()) === 0) continue;
      compared++;
      await expect(cell).toBeVisible();
      expect(Number(await cell.getAttribute('data-value')), `${dimension} ${r[dimension]} ${m}`).toBeCloseTo(
        Number(r[m]),
        6,
      );
    }
    await expect(page.getByTestId(`metric-revenue-${r[dimension]}`)).toHaveText(/^\$[\d,]+\.\d{2}$/);
    // at least impressions, revenue and eCPM on every list, four or more on channels and tags
    expect(compared).toBeGreaterThanOrEqual(dimension === 'campaign' ? 3 : 4);
  }
}

test('the numbers beside channels, tags and campaigns equal a report over the same days', async ({ page }) => {
  await signIn(page, 'demand');
  const channels = new ResourcePage(page, 'channels', '/channels');
  const week = await openWithPeriod(page, channels, 'Last 7 days', 'period=last7');
  expect(week.metrics).toEqual(['reqs', 'imps', 'fill', 'revenue', 'ecpm']);
  await expectCellsEqualReport(page, week, await reportOf(page, week, 'channel'), 'channel');

  // The period is remembered: the next list opens on it.
  const tags = new ResourcePage(page, 'tags', '/tags');
  const tagAnswer = page.waitForResponse((r) => r.url().includes('/api/rowStats?kind=tags&period=last7'));
  await tags.open();
  const tagWeek = (await (await tagAnswer).json()) as RowStatsAnswer;
  await expectCellsEqualReport(page, tagWeek, await reportOf(page, tagWeek, 'tag'), 'tag');

  // Sorting by a number orders the rows on the page by it.
  await page.locator('.ant-table-thead th', { hasText: 'Revenue' }).click();
  const revenues = await page
    .locator('[data-testid^="metric-revenue-"]')
    .evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-value'))));
  expect(revenues).toEqual([...revenues].sort((a, b) => a - b));

  await useMode(page, 'dsp');
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  const yesterday = await openWithPeriod(page, campaigns, 'Yesterday', 'period=yesterday');
  expect(yesterday.startDate).toBe(yesterday.endDate);
  await expectCellsEqualReport(page, yesterday, await reportOf(page, yesterday, 'campaign'), 'campaign');
  // live pacing: spent today / target so far, from the delivery counters (pacing.spec.ts checks them against the API)
  await expect(page.locator('[data-testid^="metric-pacing-"]').first()).toHaveText(
    /^\$[\d,]+\.\d{2}( \/ \$[\d,]+\.\d{2})?$/,
  );
});

test('the column chooser keeps its choice across a reload', async ({ page }) => {
  await signIn(page, 'demand');
  const tags = new ResourcePage(page, 'tags', '/tags');
  await tags.open();
  const header = page.locator('.ant-table-thead th', { hasText: /^Price$/ });
  await expect(header).toBeVisible();
  await tags.setColumns({ price: false, priority: true });
  await expect(header).toHaveCount(0);
  await expect(page.locator('.ant-table-thead th', { hasText: /^Priority$/ })).toBeVisible();

  await page.reload();
  await expect(page.getByTestId('page-tags')).toBeVisible();
  await expect(page.locator('.ant-table-row').first()).toBeVisible();
  await expect(header).toHaveCount(0);
  await expect(page.locator('.ant-table-thead th', { hasText: /^Priority$/ })).toBeVisible();
  await page.getByTestId('column-chooser-open').click();
  await expect(inputOf(page.getByTestId('column-toggle-price'))).not.toBeChecked();
  await page.getByTestId('column-reset').click();
  await expect(header).toBeVisible();
});

test('a bulk pause of three rows pauses them at once, each in the activity log', async ({ page }) => {
  const server = EDITION_SERVERS.CTVMediaV2V;
  await signIn(page, 'demand', undefined, server.url);
  const run = Date.now().toString(36);
  const names = [1, 2, 3].map((i) => `E2E Bulk ${run} ${i}`);
  // Three active tags, made through the API as the signed-in user.
  for (const name of names) {
    const status = await page.evaluate(async (n) => {
      const res = await fetch('/api/demand/tags', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: n,
          integration: 'VAST',
          vastUrl: 'https://ads.e2e.test/vast',
          price: { type: 'cpm', cpm: 5_000_000 },
        }),
      });
      return res.status;
    }, name);
    expect(status).toBe(201);
  }
  const tags = new ResourcePage(page, 'tags', `${server.url}/tags`);
  await tags.open();
  await tags.search(`E2E Bulk ${run}`);
  await expect(page.locator('.ant-table-row')).toHaveCount(3);
  for (const name of names) await exactRow(page, name).locator('.ant-checkbox-input').check();
  await expect(page.getByTestId('bulk-count')).toHaveText('3 selected');
  await page.getByTestId('bulk-pause').click();
  await expect(page.getByText('Paused 3 of 3 tags')).toBeVisible();
  for (const name of names) await expect(exactRow(page, name)).toContainText('Paused');
  await expect(page.getByTestId('bulk-bar')).toHaveCount(0);
  const ids = await Promise.all(names.map((n) => rowId(exactRow(page, n))));

  await page.goto(`${server.url}/log`);
  await expect(page.getByTestId('page-log')).toBeVisible();
  for (const name of names) {
    const entry = page.locator('.ant-table-row', { hasText: name }).first();
    await expect(entry).toContainText('update');
    await expect(entry).toContainText('status');
  }
  // And through the API: one update per row, status 1 -> 0.
  const entries = await page.evaluate(async (tagIds) => {
    const out: { before: { status: number }; after: { status: number } }[] = [];
    for (const id of tagIds)
      out.push(...((await (await fetch(`/api/activity?kind=tags&entityId=${id}&action=update`)).json()) as never[]));
    return out;
  }, ids);
  expect(entries.map((e) => [e.before.status, e.after.status])).toEqual([
    [1, 0],
    [1, 0],
    [1, 0],
  ]);
});

const SSP_LISTS = [
  ['channels', '/channels'],
  ['tags', '/tags'],
  ['subs', '/subpublishers'],
  ['advs', '/advertisers'],
] as const;
const DSP_LISTS = [
  ['campaigns', '/campaigns'],
  ['creatives', '/creatives'],
  ['sups', '/suppliers'],
  ['adexchanges', '/adexchanges'],
  ['deals', '/deals'],
] as const;

test('every list at 1440x900 shows its numbers, status and actions without scrolling sideways', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, 'demand');
  const shoot = async (lists: readonly (readonly [string, string])[]) => {
    for (const [kind, path] of lists) {
      const list = new ResourcePage(page, kind, path);
      await list.open();
      await expect(page.locator('.ant-table-row').first()).toBeVisible();
      await expect(page.locator('[data-testid^="metric-revenue-"]').first()).toBeVisible();
      // Nothing that matters hides behind the horizontal scroll.
      for (const title of ['Status', 'eCPM'])
        await expect(page.locator('.ant-table-thead th', { hasText: new RegExp(`^${title}$`) }).first()).toBeInViewport(
          { ratio: 1 },
        );
      await expect(
        page
          .locator('.ant-table-row')
          .first()
          .getByTestId(/^row-more-/),
      ).toBeInViewport();
      // Rows stay one line high.
      const heights = await page
        .locator('.ant-table-row')
        .evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height));
      expect(Math.max(...heights), `${kind} row height`).toBeLessThan(45);
      await page.screenshot({ path: `test-results/lists-${kind}.png` });
    }
  };
  await shoot(SSP_LISTS);
  await useMode(page, 'dsp');
  await shoot(DSP_LISTS);
});
