import { type APIResponse, type Page, type Response } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { decryptJsonBody, JSON_ENCRYPT_HEADER } from '@adplane/shared';
import { exactRow } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { videoCreativeBody } from '../support/sampleRows.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { logIn, signInAt } from '../support/session.js';

/**
 * Live campaign pacing (list column and drawer), "Used by" in drawers with links that open the using
 * row, and bulk "add to list" of selected creatives (V2V: creative lists), each checked against the
 * API the console reads. Screenshots at 1440x900 in test-results/pacing-*.png.
 */
test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 1440, height: 900 } });

interface Pacing {
  campaignId: number;
  spentToday: number;
  targetSoFar: number | null;
  state: string;
}
const usd = (micros: number) =>
  `$${(micros / 1_000_000).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

async function apiGet<T>(page: Page, url: string): Promise<T> {
  return page.evaluate(async (u) => (await fetch(u)).json() as Promise<T>, url);
}

/** An API answer's JSON, decrypted when the server encrypts its answers (V2V). */
async function jsonOf<T>(res: APIResponse | Response): Promise<T> {
  const text = await res.text();
  return JSON.parse(res.headers()[JSON_ENCRYPT_HEADER] === '1' ? decryptJsonBody(text) : text) as T;
}

test('the campaign list shows live spent / target, and the drawer the pacing panel', async ({ page }) => {
  // the list refreshes its pacing every 15 s and an even campaign's target grows by the second:
  // the cells are checked against the latest answer the console read
  const isPacing = (r: Response) => r.url().includes('/api/demand/campaigns/pacing?ids=');
  let latest: { campaigns: Pacing[] } | null = null;
  page.on('response', (r) => {
    if (isPacing(r))
      void r.json().then(
        (body: { campaigns: Pacing[] }) => (latest = body),
        () => undefined,
      );
  });
  const answer = page.waitForResponse(isPacing);
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  const live = (await (await answer).json()) as { campaigns: Pacing[] };
  expect(live.campaigns.length).toBeGreaterThan(0);
  await expect(async () => {
    for (const p of (latest ?? live).campaigns.slice(0, 5)) {
      const cell = page.getByTestId(`metric-pacing-${p.campaignId}`);
      expect(await cell.getAttribute('data-state')).toBe(p.state);
      expect(await cell.textContent()).toBe(
        p.targetSoFar === null ? usd(p.spentToday) : `${usd(p.spentToday)} / ${usd(p.targetSoFar)}`,
      );
    }
  }).toPass({ timeout: 20_000 });
  const first = live.campaigns[0]!;
  await page.getByTestId(`metric-pacing-${first.campaignId}`).hover();
  await expect(page.locator('.ant-tooltip')).toContainText('Spent today');
  await page.screenshot({ path: 'test-results/pacing-list.png' });

  await page.goto(`/campaigns?open=${first.campaignId}`);
  const panel = page.getByTestId('pacing-panel');
  await expect(panel).toBeVisible();
  await expect(panel).toHaveAttribute('data-state', /^(on_pace|ahead|behind|capped|not_delivering)$/);
  await expect(page.getByTestId('pacing-spent')).toContainText('$');
  await expect(page.getByTestId('pacing-chart').locator('canvas')).toBeVisible();
  await page.screenshot({ path: 'test-results/pacing-drawer.png' });
});

test('a demand tag shows the channels that use it, and a link opens the channel', async ({ page }) => {
  // the tags' list: a page of the console for the calls below, reopened on the tag after them
  await signInAt(page, 'demand', '/tags', 'ssp');
  const run = Date.now() % 100_000;
  const ids = await page.evaluate(async (r) => {
    const post = async (url: string, body: unknown) =>
      (await (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as { id: number };
    const tag = await post('/api/demand/tags', {
      name: `E2E used tag ${r}`,
      integration: 'VAST',
      vastUrl: 'https://ads.e2e.test/vast',
      price: { type: 'cpm', cpm: 5_000_000 },
    });
    const channel = await post('/api/demand/channels', {
      name: `E2E using channel ${r}`,
      integration: 'VAST',
      environment: 'ctv',
      format: 'video',
      domain: 'roku.example.com',
      floorCpm: 1_000_000,
      payout: { type: 'revshare', percent: 60 },
      demand: [{ tagId: tag.id, priority: 1 }],
    });
    return { tag: tag.id, channel: channel.id };
  }, run);
  expect(
    await apiGet<{ kind: string; items: { id: number }[] }[]>(page, `/api/demand/tags/${ids.tag}/usedBy`),
  ).toMatchObject([{ kind: 'channels', items: [{ id: ids.channel }] }]);

  await page.goto(`/tags?open=${ids.tag}`);
  const usedBy = page.getByTestId('used-by');
  await usedBy.scrollIntoViewIfNeeded();
  await expect(page.getByTestId('used-by-channels')).toContainText('Channels (1)');
  await page.screenshot({ path: 'test-results/pacing-used-by.png' });
  await page.getByTestId(`used-by-link-channels-${ids.channel}`).click();
  await expect(page).toHaveURL(/\/channels/);
  await expect(page.getByTestId('resource-drawer')).toContainText(`E2E using channel ${run}`);
});

test('bulk add to list puts the selected creatives into the picked creative list, as the API stored it', async ({
  page,
}) => {
  const server = EDITION_SERVERS.V2V;
  // the rows are made with API calls: the console opens once, on the creatives' list
  await logIn(page, 'demand', server.url);
  const run = Date.now() % 100_000;
  const names = [0, 1].map((i) => `E2E listed ${run} ${i}`);
  const post = async (path: string, data: unknown) => {
    const res = await page.request.post(`${server.url}${path}`, { data, headers: { origin: server.url } });
    expect(res.status(), await res.text()).toBe(201);
    return jsonOf<{ id: number }>(res);
  };
  for (const n of names) {
    await post('/api/demand/creatives', videoCreativeBody(n));
  }
  const list = await post('/api/demand/crelists', { name: `E2E creative list ${run}`, items: [] });

  const creatives = new ResourcePage(page, 'creatives', `${server.url}/creatives`);
  await creatives.openAs('demand', 'dsp');
  await creatives.search(`E2E listed ${run}`);
  await expect(page.locator('.ant-table-row')).toHaveCount(2);
  for (const name of names) await exactRow(page, name).locator('.ant-checkbox-input').check();
  await page.getByTestId('bulk-addToList').click();
  await page.getByTestId('bulk-list-select').locator('.ant-select').click();
  await page.locator('.ant-select-item-option', { hasText: `E2E creative list ${run}` }).click();
  const done = page.waitForResponse((r) => r.url().endsWith('/api/demand/creatives/bulk'));
  await page.getByRole('button', { name: 'Add to lists' }).click();
  const answer = await jsonOf<{ changed: number[]; lists: { id: number; added: number }[] }>(await done);
  expect(answer.lists).toEqual([expect.objectContaining({ id: list.id, added: 2 })]);
  await expect(page.getByText(`to 'E2E creative list ${run}' +2`)).toBeVisible();
  const stored = await jsonOf<{ items: string[] }>(
    await page.request.get(`${server.url}/api/demand/crelists/${list.id}`),
  );
  expect(stored.items.sort()).toEqual(answer.changed.map(String).sort());
});

test('apps seen in traffic go to an app list from /applications in one call', async ({ page }) => {
  // the list is made with an API call before the console opens on the page
  await logIn(page, 'demand');
  const run = Date.now() % 100_000;
  const created = await page.request.post('/api/demand/applists', {
    data: { name: `E2E seen apps ${run}`, items: [] },
    headers: { origin: EDITION_SERVERS.default.url },
  });
  expect(created.status()).toBe(201);
  const list = await jsonOf<{ id: number }>(created);
  await signInAt(page, 'demand', '/applications');
  const firstRow = page.getByTestId('observed-table').locator('.ant-table-row').first();
  await expect(firstRow).toBeVisible();
  const bundle = (await firstRow.locator('a').first().textContent())!.trim();
  await firstRow.locator('.ant-checkbox-input').check();
  await page.getByTestId('observed-add-to-list').click();
  await page.getByTestId('observed-list-select').click();
  await page.locator('.ant-select-item-option', { hasText: `E2E seen apps ${run}` }).click();
  // a multiple select stays open after a pick: close it before the modal's button
  await page.locator('.ant-modal-title').click();
  await expect(page.locator('.ant-select-dropdown:visible')).toHaveCount(0);
  const done = page.waitForResponse((r) => r.url().endsWith('/api/demand/applists/add'));
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  expect(await jsonOf<{ lists: unknown[] }>(await done)).toEqual({
    lists: [{ id: list.id, name: `E2E seen apps ${run}`, added: 1, total: 1 }],
  });
  expect((await jsonOf<{ items: string[] }>(await page.request.get(`/api/demand/applists/${list.id}`))).items).toEqual([
    bundle,
  ]);
});
