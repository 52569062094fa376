import { type Locator, type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { rowId } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { logIn } from '../support/session.js';

/**
 * One number for one thing on every screen (docs/reports.md, "Requests and fill by scope"), in
 * Chromium against a real server: a demand tag of the demo's own partner served through /vast and
 * /ev (four requests, three impressions) beside a paused channel (two requests that reach no demand);
 * the tags list, a report by channel and demand tag, and the dashboard's top demand tags against the
 * tags list over the week. Screenshots in /tmp/shots/reports-agree-*.png.
 */
test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1440, height: 900 } });

const server = EDITION_SERVERS.default;
const run = Date.now().toString(36);
const names = { tag: `Agree tag ${run}`, channel: `Agree channel ${run}`, paused: `Agree paused ${run}` };
const SERVED = 4;
const SHOWN = 3;
const NOT_CALLED = 2;

async function create(page: Page, kind: string, body: Record<string, unknown>): Promise<{ id: number; uid: string }> {
  const res = await page.request.post(`${server.url}/api/demand/${kind}`, { data: body });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: number; uid: string };
}

/** Requests on a channel until `count` were answered (the edge knows a new channel once its snapshot is rebuilt: 404 before, counting nothing). */
async function serve(page: Page, uid: string, count: number): Promise<string[]> {
  const answers: string[] = [];
  await expect(async () => {
    const res = await page.request.get(`${server.url}/vast/${uid}?w=640&h=360&cb=${Date.now()}`);
    if (res.status() === 200) answers.push(await res.text());
    expect(answers.length).toBeGreaterThanOrEqual(count);
  }).toPass({ timeout: 60_000, intervals: [100, 250, 500] });
  return answers;
}

/** The cells' text of the report table's row that holds `text`. */
async function reportRow(page: Page, text: string): Promise<string[]> {
  const row = page.getByTestId('report-table').locator('.ant-table-tbody .ant-table-row', { hasText: text });
  await expect(row).toHaveCount(1);
  return row.locator('td').allInnerTexts();
}

const cell = (page: Page, metric: string, id: number | string): Locator => page.getByTestId(`metric-${metric}-${id}`);

test("a tag's requests, impressions and fill are the same in the tags list, a report by channel and tag, and the dashboard", async ({
  page,
}) => {
  await logIn(page, 'demand');
  // the demo's own demand partner at $40 CPM: above every campaign of the demo workspace, it fills each request
  const tag = await create(page, 'tags', {
    name: names.tag,
    vastUrl: `${server.url}/demo/demand/vast?price=40`,
    price: { type: 'cpm', cpm: 40_000_000 },
  });
  const demand = [{ tagId: tag.id, priority: 1 }];
  const channel = await create(page, 'channels', {
    name: names.channel,
    vastVersion: '4.2',
    demandMode: 'auction',
    timeoutMs: 3000,
    demand,
  });
  const paused = await create(page, 'channels', { name: names.paused, vastVersion: '4.2', status: 0, demand });

  const answers = await serve(page, channel.uid, SERVED);
  expect(answers.length).toBe(SERVED);
  for (const body of answers.slice(0, SHOWN)) {
    const m = /<!\[CDATA\[([^\s<>]*?\/ev\?e=impression&[^\s<>]*?)\]\]>/.exec(body);
    expect(m, 'an ad with our impression pixel').not.toBeNull();
    const pixel = m![1]!;
    expect((await page.request.get(`${server.url}${pixel.slice(pixel.indexOf('/ev'))}`)).status()).toBeLessThan(400);
  }
  expect(await serve(page, paused.uid, NOT_CALLED)).toHaveLength(NOT_CALLED);

  // the tags list of today: the tag's requests (times it was considered), impressions and fill
  const tags = new ResourcePage(page, 'tags', '/tags');
  await tags.open();
  await tags.search(names.tag);
  // the edge writes its counts every few seconds: the list asks again when reopened
  await expect(async () => {
    await tags.open();
    await tags.search(names.tag);
    await expect(cell(page, 'imps', tag.id)).toHaveText(String(SHOWN), { timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  await expect(cell(page, 'source_reqs', tag.id)).toHaveText(String(SERVED));
  await expect(cell(page, 'sourceFill', tag.id)).toHaveText('75.00%');
  await page.screenshot({ path: '/tmp/shots/reports-agree-tags-list.png' });

  // a report by channel and demand tag over the same day: the tag on one row with the same numbers, and the
  // paused channel's requests on a row of their own that names them
  const stats = (await (
    await page.request.get(`${server.url}/api/rowStats?kind=tags&period=today&ids=${tag.id}`)
  ).json()) as { startDate: string; endDate: string; timezone: number };
  const saved = await page.request.post(`${server.url}/api/savedReports`, {
    data: {
      name: `Channel x tag ${run}`,
      request: {
        startDate: stats.startDate,
        endDate: stats.endDate,
        timezone: stats.timezone,
        dimensions: ['channel', 'tag'],
        metrics: ['reqs', 'imps', 'fill'],
        filters: { channel: [channel.id, paused.id] },
      },
    },
  });
  expect(saved.ok(), await saved.text()).toBe(true);
  const { id } = (await saved.json()) as { id: number };
  await page.goto(`/report/${id}?saved=1`);
  await expect(page.getByTestId('report-total-row')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('report-table').locator('.ant-table-tbody .ant-table-row')).toHaveCount(2);
  const tagRow = await reportRow(page, names.tag);
  expect(tagRow.slice(2)).toEqual([String(SERVED), String(SHOWN), '75.00%']);
  expect(tagRow[0]).toContain(names.channel);
  const noDemand = await reportRow(page, 'No demand called');
  expect(noDemand[0]).toContain(names.paused);
  expect(noDemand.slice(2)).toEqual([String(NOT_CALLED), '0', '0.00%']);
  await expect(page.getByTestId('report-total-reqs')).toHaveText(String(SERVED + NOT_CALLED));
  await expect(page.getByTestId('report-total-fill')).toHaveText('75.00%');
  await page.screenshot({ path: '/tmp/shots/reports-agree-channel-tag.png', fullPage: true });

  // the dashboard's top demand tags of the week, and the tags list over the same week
  await page.goto('/');
  const top = page.getByTestId('dashboard-top-demand');
  await expect(top.locator('.ant-table-tbody .ant-table-row').first()).toBeVisible({ timeout: 30_000 });
  await top.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/reports-agree-dashboard.png', fullPage: true });
  const [name, , imps, fill] = await top
    .locator('.ant-table-tbody .ant-table-row')
    .first()
    .locator('td')
    .allInnerTexts();
  await tags.open();
  const week = page.waitForResponse((r) => r.url().includes('/api/rowStats?kind=tags&period=last7'));
  await page.getByTestId('period-select').getByText('Last 7 days', { exact: true }).click();
  await week;
  await tags.search(name!);
  const row = tags.row(name!).first();
  const topId = await rowId(row);
  await expect(cell(page, 'imps', topId)).toHaveText(imps!);
  await expect(cell(page, 'sourceFill', topId)).toHaveText(fill!);
  await page.screenshot({ path: '/tmp/shots/reports-agree-tags-week.png' });
});
