import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { RESOURCES, type ResourceKind } from '@adplane/shared';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { openFromBar, signInAt } from '../support/session.js';

/**
 * The list pages on a laptop: at 1280x800 every list fits the window with its default columns, so
 * the numbers beside each row and its actions are on screen without scrolling sideways (and at 1440
 * and 1920 too). Screenshots in test-results/screens/ (or SCREENS_DIR), as screens.spec.ts saves
 * them: list-<kind>-1280.png (and list-channels-1440.png, list-channels-1920.png). The values a
 * list is read for show whole where WHOLE says (not cut by their ellipsis). Also a web channel's
 * ads.txt box, checked against a local test host this spec starts (the e2e servers run with
 * ADPLANE_ADSTXT_ALLOW_PRIVATE=1).
 */
test.describe.configure({ timeout: 180_000 });

const DIR = process.env.SCREENS_DIR ?? 'test-results/screens';

const SSP_PAGES: ResourceKind[] = ['channels', 'tags', 'subs', 'advs', 'targetings', 'applists', 'ivts', 'supplydeals'];
const DSP_PAGES: ResourceKind[] = ['campaigns', 'creatives', 'sups', 'adexchanges', 'deals'];

const WEB_CHANNEL = 'Pinecrest Sports EU - web outstream (PreBid)';

/**
 * Columns whose values show whole from a window width up: a campaign's budgets and an SDK app's key
 * at 1280 px (1263 beside a scrollbar), a channel's type where the window is wide (WIDE_WINDOW,
 * columnWidths.ts). Below, or in other columns, a long value may end in an ellipsis, whole on hover.
 */
const WHOLE: Partial<Record<ResourceKind, { column: string; from: number }>> = {
  campaigns: { column: 'Budget', from: 1263 },
  channels: { column: 'Type', from: 1440 },
  sdkapps: { column: 'App key', from: 1263 },
};

/** Headless Chromium draws no scrollbar: 1263 px is a 1280 px window beside a classic 17 px one. */
const WIDTHS = [1263, 1280, 1440, 1920] as const;

let site: Server;
let host = '';
let adsTxt = '';

test.beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url !== '/ads.txt') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(adsTxt);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(site.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

/** `inner` stays within `outer`'s right edge, and nothing inside it scrolls sideways. */
async function noWiderThan(inner: Locator, outer: Locator): Promise<void> {
  const [a, b] = await Promise.all([inner.boundingBox(), outer.boundingBox()]);
  expect((a?.x ?? 0) + (a?.width ?? 0)).toBeLessThanOrEqual((b?.x ?? 0) + (b?.width ?? 0) + 1);
  const wider = await inner.evaluate(
    (el) =>
      [el, ...Array.from(el.querySelectorAll('*'))].filter(
        (e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible',
      ).length,
  );
  expect(wider).toBe(0);
}

interface Fit {
  kind: string;
  viewport: number;
  /** How far the table's scroll container (and the page) is wider than what it shows, in px. */
  table: number;
  page: number;
  /** The right edge of the last visible header cell (the actions) against the table's right edge. */
  actionsOut: number;
}

/** The values of the column titled `column` that its ellipsis cuts. */
async function cutValues(card: Locator, column: string): Promise<string[]> {
  return card.evaluate((el, title) => {
    const heads = Array.from(el.querySelectorAll('.ant-table-thead > tr > th'));
    const index = heads.findIndex((th) => th.textContent?.trim() === title);
    if (index < 0) return [`no column ${title}`];
    const values = Array.from(
      el.querySelectorAll(`.ant-table-tbody > tr.ant-table-row > td:nth-child(${index + 1}) .cell-ellipsis`),
    );
    return values.filter((v) => v.scrollWidth > v.clientWidth).map((v) => v.textContent ?? '');
  }, column);
}

/** Wait for an opened list: rows and their numbers loaded. */
async function loaded(page: Page, kind: ResourceKind): Promise<void> {
  const card = page.getByTestId(`page-${kind}`);
  await expect(card.locator('.ant-table')).toBeVisible({ timeout: 30_000 });
  await expect(card.locator('.ant-table-row, .ant-table-placeholder').first()).toBeVisible();
  // The numbers arrive after the rows: none still loading ('…').
  await expect(card.locator('.ant-table-tbody .ant-table-cell', { hasText: /^…$/ })).toHaveCount(0);
}

/**
 * Resize the window of an open list, as a person does, and measure the list once it has laid itself
 * out again (the resize observers' renders land within two frames).
 */
async function measureAt(page: Page, kind: ResourceKind, width: number): Promise<Fit> {
  await page.setViewportSize({ width, height: 800 });
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
  const card = page.getByTestId(`page-${kind}`);
  const fit = await card.evaluate((el) => {
    const over = (e: Element) => e.scrollWidth - e.clientWidth;
    const scrollers = Array.from(el.querySelectorAll('.ant-table-content, .ant-table-body, .ant-table-header'));
    const table = Math.max(0, ...scrollers.map(over));
    const doc = document.documentElement;
    const wrapper = el.querySelector('.ant-table')!.getBoundingClientRect();
    const heads = Array.from(el.querySelectorAll('.ant-table-thead > tr > th'));
    const last = heads[heads.length - 1]?.getBoundingClientRect();
    return { table, page: over(doc), actionsOut: last ? Math.round(last.right - wrapper.right) : 0 };
  });
  // Names stay one line high.
  const tallest = await card
    .locator('.ant-table-row')
    .evaluateAll((rows) => Math.max(0, ...rows.map((r) => r.getBoundingClientRect().height)));
  expect(tallest, `${kind} at ${width}px: a row wrapped`).toBeLessThan(64);
  return { kind, viewport: width, ...fit };
}

/**
 * Signs `user` in straight onto the first list (of the server at `base`, in `mode`), then opens each
 * next one from the bar, inside the console, and measures each at every width.
 */
async function checkLists(
  page: Page,
  user: string,
  pages: readonly ResourceKind[],
  { base = '', mode }: { base?: string; mode?: 'ssp' | 'dsp' } = {},
): Promise<void> {
  const overflowing: Fit[] = [];
  const cut: string[] = [];
  for (const [index, kind] of pages.entries()) {
    // Opened at the narrowest width, then widened: a list laid out for a narrow window must use a wider one.
    await page.setViewportSize({ width: WIDTHS[0], height: 800 });
    if (index === 0) await signInAt(page, user, `${base}${RESOURCES[kind].route}`, mode);
    else await openFromBar(page, RESOURCES[kind].route, `page-${kind}`);
    await loaded(page, kind);
    for (const width of WIDTHS) {
      const fit = await measureAt(page, kind, width);
      // Every list at 1280 px; the channels at each width too.
      if (width === 1280 || kind === 'channels') await page.screenshot({ path: `${DIR}/list-${kind}-${width}.png` });
      if (fit.table > 1 || fit.page > 0 || fit.actionsOut > 1) overflowing.push(fit);
      const whole = WHOLE[kind];
      if (whole && width >= whole.from)
        cut.push(
          ...(await cutValues(page.getByTestId(`page-${kind}`), whole.column)).map(
            (v) => `${kind} at ${width}px: ${v}`,
          ),
        );
    }
  }
  expect(overflowing, 'lists wider than the window').toEqual([]);
  expect(cut, 'values cut where they should show whole').toEqual([]);
}

test('the SSP lists fit a 1280 px window', async ({ page }) => {
  await checkLists(page, 'demand', SSP_PAGES, { mode: 'ssp' });
});

test('the DSP lists fit a 1280 px window', async ({ page }) => {
  await checkLists(page, 'demand', DSP_PAGES, { mode: 'dsp' });
});

test("the admin's lists and the V2V and CTVMediaV2V editions' own fit a 1280 px window", async ({ page }) => {
  await checkLists(page, 'demand', ['crelists', 'publists'], { base: EDITION_SERVERS.V2V.url });
  await checkLists(page, 'demand', ['managers'], { base: EDITION_SERVERS.CTVMediaV2V.url });
  await page.context().clearCookies();
  await checkLists(page, 'admin', ['demands']);
});

test("an SDK developer's apps list fits a 1280 px window", async ({ page }) => {
  await checkLists(page, 'sdk', ['sdkapps']);
});

test("a web channel's ads.txt box at 1280 px: the line, its copy button, the check and its result", async ({
  page,
}) => {
  const channels = new ResourcePage(page, 'channels', '/channels');
  await page.setViewportSize({ width: 1280, height: 800 });
  await channels.openAs('demand', 'ssp');
  await channels.search('Pinecrest Sports EU');
  await channels.openRow(WEB_CHANNEL);
  const box = channels.drawer.getByTestId('channel-adstxt');
  await box.scrollIntoViewIfNeeded();
  const line = box.getByTestId('channel-adstxt-line');
  await expect(line).toHaveText(/^[\w.-]+, [\w.-]+, (DIRECT|RESELLER)$/);
  await noWiderThan(box, channels.drawer.locator('.ant-drawer-body'));
  // The copy button sits level with the one-line box, and the row's stamps keep a form item's distance.
  const [lineBox, copyBox] = await Promise.all([
    line.boundingBox(),
    box.getByTestId('channel-adstxt-copy').boundingBox(),
  ]);
  expect(
    Math.abs((lineBox?.y ?? 0) + (lineBox?.height ?? 0) / 2 - ((copyBox?.y ?? 0) + (copyBox?.height ?? 0) / 2)),
  ).toBeLessThan(2);
  const [boxEnd, stamps] = await Promise.all([
    box.boundingBox(),
    channels.drawer.getByTestId('row-stamps').boundingBox(),
  ]);
  expect((stamps?.y ?? 0) - ((boxEnd?.y ?? 0) + (boxEnd?.height ?? 0))).toBeGreaterThanOrEqual(24);
  await page.screenshot({ path: `${DIR}/drawer-channel-adstxt.png` });

  adsTxt = `# ads.txt of pinecrestsports.test\ngoogle.com, pub-1, DIRECT, f08c47fec0942fa0\n${await line.innerText()}\n`;
  await box.getByTestId('channel-adstxt-domain').fill(host);
  await box.getByTestId('channel-adstxt-check').click();
  const result = box.getByTestId('channel-adstxt-result');
  await expect(result).toContainText('The line is in the ads.txt');
  await result.scrollIntoViewIfNeeded();
  await noWiderThan(box, channels.drawer.locator('.ant-drawer-body'));
  await page.screenshot({ path: `${DIR}/drawer-channel-adstxt-checked.png` });
});
