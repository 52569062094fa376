import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { logIn } from '../support/session.js';

/**
 * One clock: a row's Updated time reads the same in the list and in its drawer, and it is
 * the server's stored UTC time shifted by the signed-in user's own offset, with the offset said. A
 * team member of the same tenant with another offset sees the same instant on their own clock.
 */
test.describe.configure({ mode: 'serial' });
test.use({ viewport: { width: 1440, height: 900 } });

const run = Date.now().toString(36);
const pixelName = `E2E Clock pixel ${run}`;

/** A pixel as the IVT form sends it. */
const pixel = (name: string) => ({
  name,
  vendor: 'E2E clock',
  urlTemplate: 'https://pixel.e2e.test/p?cb={{cachebuster}}',
  stage: 'postbid',
  samplePercent: 5,
});

/** The stored instant as a person in `offset` reads it, computed here apart from the console's formatter. */
function expected(iso: string, offset: number): string {
  const shifted = new Date(Date.parse(iso) + offset * 3_600_000);
  const two = (n: number) => String(n).padStart(2, '0');
  const day = `${shifted.getUTCFullYear()}-${two(shifted.getUTCMonth() + 1)}-${two(shifted.getUTCDate())}`;
  const zone = offset === 0 ? 'UTC±0' : `UTC${offset > 0 ? '+' : '-'}${Math.abs(offset)}`;
  return `${day} ${two(shifted.getUTCHours())}:${two(shifted.getUTCMinutes())} ${zone}`;
}

/** The signed-in user's offset and the pixel's stored row, read from the API as that user. */
async function storedPixel(
  page: Page,
  name: string,
): Promise<{ timezone: number; id: number; updatedAt: string; createdAt: string }> {
  return page.evaluate(async (wanted) => {
    const session = (await (await fetch('/api/auth/session')).json()) as { user: { timezone: number } };
    const list = (await (await fetch('/api/demand/ivts/list')).json()) as { id: number; name: string }[];
    const id = list.find((r) => r.name === wanted)!.id;
    const row = (await (await fetch(`/api/demand/ivts/${id}`)).json()) as { updatedAt: string; createdAt: string };
    return { timezone: session.user.timezone, id, updatedAt: row.updatedAt, createdAt: row.createdAt };
  }, name);
}

/** The list row's Updated cell and the drawer's stamps of the pixel, as shown on the pixels' list `pixels`. */
async function shownTimes(
  page: Page,
  pixels: ResourcePage,
  id: number,
  shots?: string,
): Promise<{ list: string; drawer: string; created: string }> {
  await pixels.showColumns('updatedAt');
  await pixels.search(pixelName);
  const cell = page.getByTestId(`row-updated-${id}`);
  await expect(cell).toBeVisible();
  const list = (await cell.textContent())?.trim() ?? '';
  if (shots) await page.screenshot({ path: test.info().outputPath(`${shots}-list.png`) });
  await pixels.openRow(pixelName);
  const drawer = (await pixels.drawer.getByTestId('drawer-updated').textContent())?.trim() ?? '';
  const created = (await pixels.drawer.getByTestId('drawer-created').textContent())?.trim() ?? '';
  if (shots) await page.screenshot({ path: test.info().outputPath(`${shots}-drawer.png`) });
  return { list, drawer, created };
}

test('a row reads the same time in the list and its drawer: the stored UTC time in the user offset', async ({
  page,
}) => {
  // the pixel is made with the call the IVT form sends, before the console opens on the pixels' list
  await logIn(page, 'demand');
  const created = await page.request.post('/api/demand/ivts', { data: pixel(pixelName) });
  expect(created.status()).toBeLessThan(300);
  const pixels = new ResourcePage(page, 'ivts', '/ivts');
  await pixels.open();

  const stored = await storedPixel(page, pixelName);
  expect(stored.updatedAt).toMatch(/Z$|[+-]00:?00$/);
  const shown = await shownTimes(page, pixels, stored.id, 'clock-owner');
  expect(shown.list).toBe(expected(stored.updatedAt, stored.timezone));
  expect(shown.drawer).toBe(shown.list);
  expect(shown.created).toBe(expected(stored.createdAt, stored.timezone));
  // The demo account is five hours behind UTC: the shift is visible, not a no-op.
  expect(stored.timezone).toBe(-5);
  expect(shown.list).toMatch(/ UTC-5$/);
});

test('a team member with another offset sees the same instant on their own clock', async ({ page }) => {
  const pixels = new ResourcePage(page, 'ivts', '/ivts');
  await pixels.openAs('manager');
  const stored = await storedPixel(page, pixelName);
  expect(stored.timezone).not.toBe(-5);
  const shown = await shownTimes(page, pixels, stored.id, 'clock-member');
  expect(shown.list).toBe(expected(stored.updatedAt, stored.timezone));
  expect(shown.drawer).toBe(shown.list);
  expect(shown.list).not.toBe(expected(stored.updatedAt, -5));
});

test('User Activity shows when on the same clock: the stored UTC time in the user offset', async ({ page }) => {
  const server = EDITION_SERVERS.CTVMediaV2V;
  // a change made and read with the console's own calls, then User Activity opened on it
  await logIn(page, 'demand', server.url);
  const name = `${pixelName} log`;
  expect((await page.request.post(`${server.url}/api/demand/ivts`, { data: pixel(name) })).status()).toBeLessThan(300);
  const session = (await (await page.request.get(`${server.url}/api/auth/session`)).json()) as {
    user: { timezone: number };
  };
  const log = (await (await page.request.get(`${server.url}/api/activity?limit=20&kind=ivts`)).json()) as {
    id: number;
    at: string;
    after: { name?: string } | null;
  }[];
  const mine = log.find((e) => e.after?.name === name)!;
  const entry = { id: mine.id, at: mine.at, timezone: session.user.timezone };
  await page.goto(`${server.url}/log`);
  const when = page.getByTestId(`log-at-${entry.id}`);
  await expect(when).toHaveText(expected(entry.at, entry.timezone));
  await expect(when).toContainText(' UTC-5');
  await page.screenshot({ path: test.info().outputPath('clock-log.png') });
});
