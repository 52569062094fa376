import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { RESOURCES, type ResourceKind } from '@adplane/shared';
import { exactRow, formItem, openedModal, pickOption, rowId, stoppedMoving } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { openFromUserMenu, signIn, signInAt, useMode } from '../support/session.js';

/**
 * A screenshot of every list page and of a few drawers at 1440x900, saved to
 * test-results/screens/ (or SCREENS_DIR) for a person to look at, each with what must hold on it:
 * the page's heading, its table with rows, and nothing wider than the window.
 */
test.use({ viewport: { width: 1440, height: 900 } });

const DIR = process.env.SCREENS_DIR ?? 'test-results/screens';

/** The pager's count under the table, as every list shows it: `1-3 of 3`. */
async function pagerCounts(table: Locator): Promise<void> {
  const wrapper = table.locator(
    'xpath=ancestor-or-self::div[contains(concat(" ", @class, " "), " ant-table-wrapper ")]',
  );
  await expect(wrapper.locator('.ant-pagination-total-text')).toHaveText(/^1-\d+ of [\d,]+$/);
}

/** The lines the browser wrapped an element's text into, as drawn. */
async function renderedLines(el: Locator): Promise<string[]> {
  return el.evaluate((node) => {
    const lines: string[] = [];
    const range = document.createRange();
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    let top: number | null = null;
    for (let text = walker.nextNode() as Text | null; text; text = walker.nextNode() as Text | null) {
      for (let i = 0; i < text.length; i++) {
        range.setStart(text, i);
        range.setEnd(text, i + 1);
        const at = Math.round(range.getBoundingClientRect().top);
        if (top === null || at !== top) lines.push('');
        top = at;
        lines[lines.length - 1] += text.data[i];
      }
    }
    return lines;
  });
}

async function noHorizontalOverflow(page: Page): Promise<void> {
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
  ).toBeLessThanOrEqual(0);
}

/**
 * Open a list page (unless the console is on it already: signed in there) and check its heading, its
 * table with rows, and the page width.
 */
async function listPage(page: Page, kind: ResourceKind, url: string, hasRows = true): Promise<void> {
  const def = RESOURCES[kind];
  if (new URL(page.url()).pathname !== url) await page.goto(url);
  const card = page.getByTestId(`page-${kind}`);
  await expect(card).toBeVisible();
  await expect(card.locator('.ant-card-head-title')).toHaveText(def.plural);
  await expect(card.locator('.ant-table')).toBeVisible();
  if (hasRows) await expect(card.locator('.ant-table-row').first()).toBeVisible();
  // Names stay one line high: no row taller than two lines of text.
  const tallest = await card
    .locator('.ant-table-row')
    .evaluateAll((rows) => Math.max(0, ...rows.map((r) => r.getBoundingClientRect().height)));
  expect(tallest).toBeLessThan(64);
  await noHorizontalOverflow(page);
  await page.screenshot({ path: `${DIR}/list-${kind}.png` });
}

const SSP_PAGES: ResourceKind[] = ['channels', 'tags', 'subs', 'advs', 'targetings', 'applists', 'ivts'];
const DSP_PAGES: ResourceKind[] = ['campaigns', 'creatives', 'sups', 'adexchanges', 'deals'];

test('every list page of the SSP view', async ({ page }) => {
  await signInAt(page, 'demand', RESOURCES[SSP_PAGES[0]!].route, 'ssp');
  for (const kind of SSP_PAGES) await listPage(page, kind, RESOURCES[kind].route);
});

test('every list page of the DSP view', async ({ page }) => {
  await signInAt(page, 'demand', RESOURCES[DSP_PAGES[0]!].route, 'dsp');
  for (const kind of DSP_PAGES) await listPage(page, kind, RESOURCES[kind].route);
});

test('the lists of the V2V edition and the admin pages', async ({ page }) => {
  const v2v = EDITION_SERVERS.V2V.url;
  await signInAt(page, 'demand', `${v2v}${RESOURCES.crelists.route}`);
  for (const kind of ['crelists', 'publists'] as const) {
    if (new URL(page.url()).pathname !== RESOURCES[kind].route) await page.goto(`${v2v}${RESOURCES[kind].route}`);
    const card = page.getByTestId(`page-${kind}`);
    await expect(card.locator('.ant-card-head-title')).toHaveText(RESOURCES[kind].plural);
    await expect(card.locator('.ant-table')).toBeVisible();
    await noHorizontalOverflow(page);
    await page.screenshot({ path: `${DIR}/list-${kind}.png` });
  }
  await page.context().clearCookies();
  await signInAt(page, 'admin', RESOURCES.demands.route);
  await listPage(page, 'demands', RESOURCES.demands.route);
  await listPage(page, 'tooltips', RESOURCES.tooltips.route, false);
});

test('drawers: a long editable one with its jump links, and the pixel example call inside its drawer', async ({
  page,
}) => {
  await signInAt(page, 'demand', '/campaigns', 'dsp');
  await page.locator('[data-testid^="row-open-"]').first().click();
  const drawer = page.getByTestId('resource-drawer');
  await expect(drawer.getByTestId('form-jump-links')).toBeVisible();
  await expect(drawer.getByTestId('resource-save')).toBeInViewport();
  await noHorizontalOverflow(page);
  await page.screenshot({ path: `${DIR}/drawer-campaign.png` });
  await drawer.getByTestId('jump-Supply').click();
  await expect(drawer.locator('.form-section-title', { hasText: 'Supply' })).toBeInViewport();
  await page.screenshot({ path: `${DIR}/drawer-campaign-supply.png` });
  await page.keyboard.press('Escape');

  await useMode(page, 'ssp');
  await page.goto('/ivts');
  await page.locator('[data-testid^="row-open-"]').first().click();
  // The example call wraps inside the drawer.
  const preview = drawer.getByTestId('ivt-preview');
  await expect(preview).toBeVisible();
  const [box, panel] = await Promise.all([preview.boundingBox(), drawer.locator('.ant-drawer-body').boundingBox()]);
  expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual((panel?.x ?? 0) + (panel?.width ?? 0));
  await page.screenshot({ path: `${DIR}/drawer-ivt.png` });
  await page.keyboard.press('Escape');
});

test("a targeting's Content tab: the content categories and the blocked ad categories, each its own tree", async ({
  page,
}) => {
  await signInAt(page, 'demand', '/targetings');
  await page.locator('[data-testid^="row-open-"]').first().click();
  const drawer = page.getByTestId('resource-drawer');
  await drawer.getByRole('tab', { name: /Content/ }).click();
  await expect(drawer.getByTestId('targeting-iab-tree')).toBeVisible();
  const blocked = drawer.getByTestId('targeting-blocked-ad-tree');
  await blocked.scrollIntoViewIfNeeded();
  await expect(blocked).toBeVisible();
  await noHorizontalOverflow(page);
  await page.screenshot({ path: `${DIR}/drawer-targeting-content.png` });
  await page.keyboard.press('Escape');
});

test('the read-only profile of a subpublisher', async ({ page }) => {
  await signIn(page, 'sub');
  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  const modal = await openedModal(page, 'profile-form');
  await expect(modal.getByTestId('form-readonly-banner')).toBeVisible();
  // Labels in sentence case; the sub's empty fields (no company, no API token) show the empty mark.
  await expect(modal.getByText('Time zone', { exact: true })).toBeVisible();
  await expect(modal.getByTestId('profile-companyAddress')).toHaveAttribute('placeholder', '—');
  await expect(modal.getByTestId('profile-token')).toHaveText('—');
  await noHorizontalOverflow(page);
  await page.screenshot({ path: `${DIR}/profile-sub-readonly.png` });
});

test('a read-only drawer: an archived campaign, its empty fields showing the empty mark', async ({ page }) => {
  // A copy of a demo campaign without deals or suppliers, archived: a row that opens read-only (and, paused, never bids).
  const name = 'Crescent Auto - Spring Sales Event display';
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  await campaigns.moreAction(await rowId(exactRow(page, name)), 'duplicate');
  const copy = exactRow(page, `${name} (copy)`);
  await campaigns.moreAction(await rowId(copy), 'archive');
  await expect(copy).toHaveCount(0);
  await page.locator('.ant-segmented-item', { hasText: 'Archived' }).click();
  await campaigns.openRow(`${name} (copy)`);
  const drawer = campaigns.drawer;
  await expect(drawer.getByTestId('form-readonly-banner')).toContainText('archived');
  await settled(drawer);
  // No deals and no suppliers: the mark, in the secondary grey, not the editing hint ("None (open auction only)").
  const deals = formItem(drawer, 'Deals').locator('.ant-select-placeholder');
  await expect(deals).toHaveText('—');
  await expect(deals).toHaveCSS('color', 'rgba(0, 0, 0, 0.45)');
  await expect(formItem(drawer, 'Suppliers').locator('.ant-select-placeholder')).toHaveText('—');
  // It starts under its label, as values do (antd sets a multiple select's placeholder in).
  const [markAt, labelAt] = await Promise.all([
    textLeft(deals),
    textLeft(formItem(drawer, 'Deals').locator('.ant-form-item-label label')),
  ]);
  expect(Math.abs(markAt - labelAt)).toBeLessThan(3);
  await expect(formItem(drawer, 'Targeting')).not.toContainText('—');
  await formItem(drawer, 'Creatives').scrollIntoViewIfNeeded();
  await noHorizontalOverflow(page);
  await page.screenshot({ path: `${DIR}/drawer-campaign-readonly.png` });
  await page.keyboard.press('Escape');
});

/** Where an element's text starts on screen. */
async function textLeft(el: Locator): Promise<number> {
  return el.evaluate((node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return range.getBoundingClientRect().left;
  });
}

/** Once the element has stopped moving (a drawer sliding in). */
const settled = (el: Locator): Promise<void> => stoppedMoving(el, 'x');

/** A full-page screenshot once `testId` shows (pages that are not resource lists). */
async function shot(page: Page, url: string, testId: string, name: string, fullPage = true): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId(testId)).toBeVisible({ timeout: 30_000 });
  await noHorizontalOverflow(page);
  await page.screenshot({ path: `${DIR}/${name}.png`, fullPage });
}

test('the pages around the lists: dashboard, a report with results, saved reports, traffic seen, an empty list', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signInAt(page, 'demand', '/', 'ssp');
  await expect(page.getByTestId('dashboard-stats')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('dashboard-top-channels').locator('.ant-table-row').first()).toBeVisible();
  await page.screenshot({ path: `${DIR}/page-dashboard.png`, fullPage: true });

  await page.goto('/report');
  await expect(page.getByTestId('report-title')).toBeVisible({ timeout: 30_000 });
  await pickOption(page, page.getByTestId('report-preset'), 'Last 7 days', '');
  await pickOption(page, page.getByTestId('report-dimensions'), 'Channel');
  await page.getByTestId('report-run').click();
  await expect(page.getByTestId('report-total-row')).toBeVisible({ timeout: 60_000 });
  await page.screenshot({ path: `${DIR}/page-report.png`, fullPage: true });

  await shot(page, '/reports', 'saved-reports-page', 'page-saved-reports');
  await shot(page, '/applications', 'observed-table', 'page-observed-apps');
  await pagerCounts(page.getByTestId('observed-table'));

  await page.goto('/channels?search=no-such-channel');
  await expect(page.getByTestId('page-channels').locator('.ant-table')).toBeVisible();
  await page.screenshot({ path: `${DIR}/list-channels-empty.png` });
});

test("drawers of the SSP view: a channel's tag and Prebid set-up, a demand tag, a new channel", async ({ page }) => {
  await signInAt(page, 'demand', '/channels', 'ssp');
  const drawer = page.getByTestId('resource-drawer');
  await page.getByText('Demo player - auction', { exact: true }).click();
  await expect(drawer.getByTestId('resource-save')).toBeVisible();
  await page.screenshot({ path: `${DIR}/drawer-channel.png` });
  const tag = drawer.getByTestId('channel-tag');
  await tag.scrollIntoViewIfNeeded();
  // The tag wraps between its parts (before '/', '?', '&'), never inside a parameter or a macro.
  const lines = await renderedLines(tag);
  expect(lines.length).toBeGreaterThan(1);
  for (const line of lines.slice(1)) expect(line, lines.join('\n')).toMatch(/^[/?&#]/);
  await page.screenshot({ path: `${DIR}/drawer-channel-tag.png` });
  await drawer.getByTestId('channel-prebid').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${DIR}/drawer-channel-prebid.png` });
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();

  await page.getByTestId('resource-new').click();
  await expect(drawer.getByTestId('resource-save')).toBeVisible();
  await settled(drawer);
  await page.screenshot({ path: `${DIR}/drawer-channel-new.png` });
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();

  await page.goto('/tags');
  await page.locator('[data-testid^="row-open-"]').first().click();
  await expect(drawer.getByTestId('resource-save')).toBeVisible();
  await page.screenshot({ path: `${DIR}/drawer-tag.png` });
  await page.keyboard.press('Escape');

  await page.goto('/subpublishers');
  await page.locator('[data-testid^="row-open-"]').first().click();
  await expect(drawer.getByTestId('resource-save')).toBeVisible();
  await page.screenshot({ path: `${DIR}/drawer-sub.png` });
  await page.keyboard.press('Escape');
});

test('the DSP view: dashboard and a creative; the admin: finance and a demand account', async ({ page }) => {
  await signInAt(page, 'demand', '/', 'dsp');
  const drawer = page.getByTestId('resource-drawer');
  await expect(page.getByTestId('dashboard-stats')).toBeVisible({ timeout: 30_000 });
  // The DSP view's words: its campaigns and suppliers, not the SSP's channels and demand tags.
  await expect(page.getByTestId('dashboard-top-campaigns')).toContainText('Top campaigns');
  await expect(page.getByTestId('dashboard-top-campaigns').locator('.ant-table-row').first()).toBeVisible();
  await expect(page.getByTestId('dashboard-top-suppliers').locator('.ant-table-row').first()).toBeVisible();
  await expect(page.getByTestId('dashboard-top-channels')).toHaveCount(0);
  await expect(page.getByTestId('dashboard-top-demand')).toHaveCount(0);
  await page.screenshot({ path: `${DIR}/page-dashboard-dsp.png`, fullPage: true });
  await page.goto('/creatives');
  await page.locator('[data-testid^="row-open-"]').first().click();
  await expect(drawer.getByTestId('resource-save')).toBeVisible();
  await page.screenshot({ path: `${DIR}/drawer-creative.png` });
  await page.keyboard.press('Escape');
  await page.goto('/deals');
  await page.locator('[data-testid^="row-open-"]').first().click();
  await expect(drawer.getByTestId('resource-save')).toBeVisible();
  await page.screenshot({ path: `${DIR}/drawer-deal.png` });
  await page.keyboard.press('Escape');

  await page.context().clearCookies();
  await signIn(page, 'admin');
  // (the admin's dashboard, once its numbers have come: not the sign-in page it left)
  await expect(page.getByTestId('dashboard-stats')).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: `${DIR}/page-dashboard-admin.png`, fullPage: true });
  await shot(page, '/finance', 'finance-table', 'page-finance');
  await pagerCounts(page.getByTestId('finance-table'));
  await page.goto('/demands');
  await page.locator('[data-testid^="row-open-"]').first().click();
  await expect(drawer.getByTestId('resource-save')).toBeVisible();
  await page.screenshot({ path: `${DIR}/drawer-demand.png` });
});

test('the CTVMediaV2V pages: user activity and managers; the sign-in page', async ({ page }) => {
  const ctv = EDITION_SERVERS.CTVMediaV2V.url;
  await signIn(page, 'demand', undefined, ctv);
  await shot(page, `${ctv}/log`, 'page-log', 'page-log');
  await shot(page, `${ctv}/managers`, 'page-managers', 'list-managers');
  await page.context().clearCookies();
  await page.goto('/login');
  await expect(page.getByTestId('login-submit')).toBeVisible();
  await page.screenshot({ path: `${DIR}/page-login.png` });
});
