import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { openedModal, stoppedMoving } from '../support/antdFields.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { openFromUserMenu, signIn, signInAt } from '../support/session.js';

/**
 * Drawer and modal forms (docs/console-resources.md, "Drawer and modal forms"): the footer with Save and Cancel stays in
 * view, jump links scroll to their section, Escape closes modals and drawers, the read-only view
 * reads as text without Save, and the SSP | DSP switch is there for those who may switch only.
 */
test.use({ viewport: { width: 1440, height: 900 } });

/**
 * A demo channel with every section of the channel drawer (a web channel's Prebid.js set-up and
 * ads.txt included), opened by name: rows other spec files add in the same server slot sort first.
 * The name is matched as a prefix, since a spec file that ran before in the slot may have renamed it
 * ("... (edited)").
 */
const WEB_CHANNEL = 'Demo player - waterfall';

/** Signs the demand user in straight onto the list at `path` and opens the row `name` (else its first row). */
async function openListRow(page: Page, path: string, name?: string): Promise<Locator> {
  await signInAt(page, 'demand', path);
  await (name ? page.getByRole('link', { name }).first() : page.locator('[data-testid^="row-open-"]').first()).click();
  const drawer = page.getByTestId('resource-drawer');
  await expect(drawer).toBeVisible();
  await expect(drawer.getByTestId('form-jump-links')).toBeVisible();
  return drawer;
}

/** Open the user menu's entry; the menu may re-render under the first click while the dashboard loads. */
const drawerBody = (page: Page) => page.locator('.ant-drawer-body');

test('a long drawer keeps Save and Cancel in view while it scrolls', async ({ page }) => {
  const drawer = await openListRow(page, '/channels', WEB_CHANNEL);
  const body = drawerBody(page);
  expect(await body.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeGreaterThan(300);
  await body.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await expect.poll(() => body.evaluate((el) => el.scrollTop)).toBeGreaterThan(300);
  await expect(drawer.getByTestId('resource-save')).toBeInViewport();
  await expect(drawer.getByTestId('resource-cancel')).toBeInViewport();
  // The jump links stay at the top of the body too.
  await expect(drawer.getByTestId('form-jump-links')).toBeInViewport();
});

test('a jump link scrolls the drawer to its section', async ({ page }) => {
  const drawer = await openListRow(page, '/channels', WEB_CHANNEL);
  const heading = drawer.locator('.form-section-title', { hasText: 'Invalid traffic' });
  await expect(heading).not.toBeInViewport();
  await drawer.getByTestId('jump-Invalid traffic').click();
  await expect(heading).toBeInViewport();
  // It lands just under the jump links, not hidden behind them.
  const bar = await drawer.getByTestId('form-jump-links').boundingBox();
  await expect
    .poll(async () => ((await heading.boundingBox())?.y ?? 0) - ((bar?.y ?? 0) + (bar?.height ?? 0)))
    .toBeGreaterThanOrEqual(0);
  await expect(drawer.getByTestId('jump-Invalid traffic')).toHaveAttribute('aria-current', 'true');

  // The smooth scroll of a jump has ended: the heading no longer moves.
  const settled = (heading: Locator) => stoppedMoving(heading, 'y');

  // Each link marks its own section once its scroll has settled, short sections included, and the
  // Prebid.js set-up and the ads.txt section at the end of the drawer have their links too.
  for (const title of ['Pricing', 'Demand', 'Basics', 'ads.txt', 'Prebid.js', 'Tag']) {
    await drawer.getByTestId(`jump-${title}`).click();
    await settled(drawer.locator('.form-section-title', { hasText: title }));
    await expect(drawer.getByTestId(`jump-${title}`)).toHaveAttribute('aria-current', 'true');
  }

  // Scrolled by hand (at once, from a still view) so that the tag box fills the view under its
  // heading, with only the end of the section above left at the top: "Tag" is the section being
  // read. (The Prebid.js set-up and the ads.txt section under it leave the drawer room to scroll that far.)
  const body = drawerBody(page);
  const tag = drawer.locator('.form-section-title', { hasText: 'Tag' });
  await drawer.getByTestId('jump-Basics').click();
  await settled(drawer.locator('.form-section-title', { hasText: 'Basics' }));
  const barBottom = (bar?.y ?? 0) + (bar?.height ?? 0);
  const shift = ((await tag.boundingBox())?.y ?? 0) - barBottom - 40;
  await body.evaluate((el, by) => el.scrollTo({ top: el.scrollTop + by, behavior: 'instant' }), shift);
  await settled(tag);
  await expect(drawer.getByTestId('jump-Tag')).toHaveAttribute('aria-current', 'true');
});

test('Escape closes a drawer, a modal, and a dialog inside a modal before the modal', async ({ page }) => {
  await openListRow(page, '/tags');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('resource-drawer')).toBeHidden();

  await openFromUserMenu(page, 'user-menu-settings', 'settings-close');
  await openedModal(page, 'settings-close');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('settings-close')).toBeHidden();

  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  await openedModal(page, 'profile-form');
  await page.getByTestId('profile-tab-tagParams').click();
  await page.getByTestId('tag-param-add').click();
  await expect(page.getByTestId('tag-param-name')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('tag-param-name')).toBeHidden();
  await expect(page.getByTestId('profile-form')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('profile-form')).toBeHidden();
});

test("a subpublisher's profile shows its values as text, without Save", async ({ page }) => {
  await signIn(page, 'sub');
  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  const modal = await openedModal(page, 'profile-form');
  await expect(modal.getByTestId('form-readonly-banner')).toContainText('View only');
  await expect(modal.getByTestId('profile-save')).toHaveCount(0);
  await expect(modal.getByTestId('profile-close')).toBeVisible();
  const name = modal.getByTestId('profile-name');
  await expect(name).toHaveValue('Harbor Video');
  await expect(name).toBeDisabled();
  // Text in the normal colour on no box: not antd's pale disabled grey on grey.
  const look = await name.evaluate((el) => {
    const style = getComputedStyle(el);
    const box = getComputedStyle(el.closest('.ant-input-affix-wrapper') ?? el);
    const border =
      box.borderTopStyle === 'none' ||
      parseFloat(box.borderTopWidth) === 0 ||
      box.borderTopColor === 'rgba(0, 0, 0, 0)';
    return { color: style.color, background: box.backgroundColor, border };
  });
  expect(look.color).toBe('rgba(0, 0, 0, 0.88)');
  expect(look.background).toBe('rgba(0, 0, 0, 0)');
  expect(look.border, 'no visible border').toBe(true);
});

test('the footer of the profile modal stays in view', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 560 });
  await signIn(page, 'demand');
  await openFromUserMenu(page, 'user-menu-profile', 'profile-form');
  await openedModal(page, 'profile-form');
  await expect(page.getByTestId('profile-save')).toBeInViewport();
});

test('a manager of a DSP tenant switches SSP | DSP in the bar; a subpublisher has no switch and the server refuses it', async ({
  page,
  browser,
}) => {
  await signInAt(page, 'manager', '/', 'ssp');
  await expect(page.getByTestId('mode-switch')).toBeVisible();
  await page.getByTestId('mode-switch-dsp').click();
  await expect(page.locator('[data-testid="nav-/campaigns"]')).toHaveCount(1);
  expect(await page.evaluate(() => localStorage.getItem('adplane_mode'))).toBe('dsp');

  const sub = await browser.newPage();
  await signIn(sub, 'sub', undefined, EDITION_SERVERS.default.url);
  await expect(sub.getByTestId('user-menu')).toBeVisible();
  await expect(sub.getByTestId('mode-switch')).toHaveCount(0);
  await expect(sub.locator('.app-header')).not.toContainText(/\b(SSP|DSP)\b/);
  const refused = await sub.request.put(`${EDITION_SERVERS.default.url}/api/ui/mode`, { data: { mode: 'dsp' } });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { message: string }).message).toMatch(/cannot switch to DSP/);
  await sub.close();
});
