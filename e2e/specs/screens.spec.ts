import { type Page, expect, test } from '@playwright/test';
import { RESOURCES, type ResourceKind } from '@adplane/shared';
import { openedModal } from '../support/antdFields.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { openFromUserMenu, signIn, useMode } from '../support/session.js';

/**
 * A screenshot of every list page and of a few drawers at 1440x900, saved to
 * test-results/screens/ to be looked at (issue 12), each with what must hold on it: the page's
 * heading, its table with rows, and nothing wider than the window.
 */
test.use({ viewport: { width: 1440, height: 900 } });

const DIR = 'test-results/screens';

async function noHorizontalOverflow(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
}

/** Open a list page and check its heading, its table with rows, and the page width. */
async function listPage(page: Page, kind: ResourceKind, url: string, hasRows = true): Promise<void> {
  const def = RESOURCES[kind];
  await page.goto(url);
  const card = page.getByTestId(`page-${kind}`);
  await expect(card).toBeVisible();
  await expect(card.locator('.ant-card-head-title')).toHaveText(def.plural);
  await expect(card.locator('.ant-table')).toBeVisible();
  if (hasRows) await expect(card.locator('.ant-table-row').first()).toBeVisible();
  // Names stay one line high: no row taller than two lines of text.
  const tallest = await card.locator('.ant-table-row').evaluateAll((rows) => Math.max(0, ...rows.map((r) => r.getBoundingClientRect().height)));
  expect(tallest).toBeLessThan(64);
  await noHorizontalOverflow(page);
  await page.screenshot({ path: `${DIR}/list-${kind}.png` });
}

const SSP_PAGES: ResourceKind[] = ['channels', 'tags', 'subs', 'advs', 'targetings', 'applists', 'ivts'];
const DSP_PAGES: ResourceKind[] = ['campaigns', 'creatives', 'sups', 'adexchanges', 'deals'];

test('every list page of the SSP view', async ({ page }) => {
  await signIn(page, 'demand');
  await useMode(page, 'ssp');
  for (const kind of SSP_PAGES) await listPage(page, kind, RESOURCES[kind].route);
});

test('every list page of the DSP view', async ({ page }) => {
  await signIn(page, 'demand');
  await useMode(page, 'dsp');
  for (const kind of DSP_PAGES) await listPage(page, kind, RESOURCES[kind].route);
});

test('the lists of the V2V edition and the admin pages', async ({ page }) => {
  const v2v = EDITION_SERVERS.V2V.url;
  await signIn(page, 'demand', undefined, v2v);
  for (const kind of ['crelists', 'publists'] as const) {
    await page.goto(`${v2v}${RESOURCES[kind].route}`);
    const card = page.getByTestId(`page-${kind}`);
    await expect(card.locator('.ant-card-head-title')).toHaveText(RESOURCES[kind].plural);
    await expect(card.locator('.ant-table')).toBeVisible();
    await noHorizontalOverflow(page);
    await page.screenshot({ path: `${DIR}/list-${kind}.png` });
  }
  await page.context().clearCookies();
  await signIn(page, 'admin');
  await listPage(page, 'demands', RESOURCES.demands.route);
  await listPage(page, 'tooltips', RESOURCES.tooltips.route, false);
});

test('drawers: a long editable one with its jump links, and the pixel example call inside its drawer', async ({ page }) => {
  await signIn(page, 'demand');
  await useMode(page, 'dsp');
  await page.goto('/campaigns');
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

test("a targeting's Content tab: the content categories and the blocked ad categories, each its own tree", async ({ page }) => {
  await signIn(page, 'demand');
  await page.goto('/targetings');
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
  await noHorizontalOverflow(page);
  await page.screenshot({ path: `${DIR}/profile-sub-readonly.png` });
});
