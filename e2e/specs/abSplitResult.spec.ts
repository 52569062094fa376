import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { logIn } from '../support/session.js';

/**
 * A split channel's A/B result in the console (docs/reports.md, "A/B arms compared"), in Chromium
 * against a real server: a channel whose arm A calls the demo's own demand partner at $40 and whose
 * arm B, half of the requests, calls it at $50, served through /vast and /ev (each answer's
 * impression fired); the report by arm (POST /api/rrun) and the channel drawer's "A/B result" show
 * the same requests, impressions and revenue per arm, and, all of it in one hour, say there are too
 * few requests to compare yet. Screenshot in /tmp/shots/ab-split-result.png.
 *
 * The significant verdict needs each arm's requests over at least six hours, and the edge counts
 * into the current hour only (the stats store is a DuckDB file the server alone writes): for that
 * case the modal's report request still goes to the server, which must answer it, and its answer is
 * replaced in the browser by twelve hours of rows where arm B earns a quarter more per request.
 * Screenshot in /tmp/shots/ab-split-result-significant.png.
 */
test.describe.configure({ timeout: 180_000 });
test.use({ viewport: { width: 1440, height: 900 } });

const server = EDITION_SERVERS.default;
const run = Date.now().toString(36);
const channelName = `AB result ${run}`;
const SERVED = 24;

async function create(page: Page, kind: string, body: Record<string, unknown>): Promise<{ id: number; uid: string }> {
  const res = await page.request.post(`${server.url}/api/demand/${kind}`, { data: body });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: number; uid: string };
}

interface ArmRow {
  arm: string;
  reqs: number;
  imps: number;
  revenue: number;
}

test("a split channel's drawer compares its arms with the numbers of the report by arm", async ({ page }) => {
  // the rows are made and served with API calls: the console opens once, on the channels' list
  await logIn(page, 'demand');
  // the demo's own demand partner above every campaign of the demo workspace: it fills each request
  const tag = (price: number) =>
    create(page, 'tags', {
      name: `AB arm at $${price} ${run}`,
      vastUrl: `${server.url}/demo/demand/vast?price=${price}`,
      price: { type: 'cpm', cpm: price * 1_000_000 },
    });
  const a = await tag(40);
  const b = await tag(50);
  const channel = await create(page, 'channels', {
    name: channelName,
    demand: [{ tagId: a.id, priority: 1 }],
    split: { percent: 50, demand: [{ tagId: b.id, priority: 1 }] },
  });

  // requests from viewers named by their device, each kept in one arm; the edge knows the channel once
  // its snapshot is rebuilt (404 before, counting nothing)
  let answered = 0;
  let fired = 0;
  await expect(async () => {
    while (answered < SERVED) {
      const res = await page.request.get(
        `${server.url}/vast/${channel.uid}?w=640&h=360&device_id=viewer-${run}-${answered}&cb=${Date.now()}`,
      );
      if (res.status() !== 200) return expect(res.status()).toBe(200);
      answered++;
      const token = /\/ev\?e=impression&(?:amp;)?t=([A-Za-z0-9_~.-]+)/.exec(await res.text())?.[1];
      expect(token).toBeTruthy();
      const beacon = await page.request.get(`${server.url}/ev?e=impression&t=${token}`);
      expect(beacon.status()).toBe(200);
      fired++;
    }
  }).toPass({ timeout: 60_000, intervals: [100, 250, 500] });
  expect(fired).toBe(SERVED);

  // the report by arm, once the edge has flushed its counts (every 5 s)
  const today = new Date().toISOString().slice(0, 10);
  let arms: ArmRow[] = [];
  await expect(async () => {
    const res = await page.request.post(`${server.url}/api/rrun`, {
      data: {
        startDate: today,
        endDate: today,
        timezone: 0,
        dimensions: ['arm'],
        metrics: ['reqs', 'imps', 'revenue'],
        filters: { channel: [channel.id] },
      },
    });
    expect(res.status()).toBe(200);
    arms = ((await res.json()) as (ArmRow & { total?: boolean })[]).filter((r) => !r.total);
    expect(arms.reduce((n, r) => n + r.imps, 0)).toBe(SERVED);
  }).toPass({ timeout: 60_000, intervals: [500, 1_000] });
  expect(arms.map((r) => r.arm).sort()).toEqual(['A', 'B']);
  for (const r of arms) expect(r.revenue).toBe(r.imps * (r.arm === 'A' ? 40_000 : 50_000));

  // the drawer's A/B result says the same
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.openAs('demand', 'ssp');
  await channels.search(channelName);
  await channels.openRow(channelName);
  await channels.drawer.getByTestId('channel-split-result').click();
  const result = page.getByTestId('split-result');
  await expect(result).toBeVisible();
  for (const r of arms) {
    const cells = page.getByTestId(`split-arm-${r.arm}`).locator('td');
    await expect(cells.nth(1)).toHaveText(r.reqs.toLocaleString('en-US'));
    await expect(cells.nth(2)).toHaveText(r.imps.toLocaleString('en-US'));
    await expect(cells.nth(3)).toHaveText(`$${(r.revenue / 1_000_000).toFixed(2)}`);
    // revenue per 1,000 requests: every request filled, so the arm's CPM
    await expect(cells.nth(4)).toHaveText(r.arm === 'A' ? '$40.00' : '$50.00');
  }
  await expect(page.getByTestId('split-verdict')).toContainText(
    'Too few requests to compare yet: each arm needs at least 1,000 requests over 6 hours',
  );
  await page.screenshot({ path: '/tmp/shots/ab-split-result.png' });
});

/** Twelve hours by arm, each arm's requests 150-260 an hour, all filled: A at a $40 CPM, B at $50, within 3 % an hour. */
function hoursWhereBEarnsMore(now: number): Record<string, unknown>[] {
  const noise = [1.03, 0.97, 1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.02, 0.98, 1.0];
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < 12; i++) {
    const hour = `${new Date(now - (12 - i) * 3_600_000).toISOString().slice(0, 13).replace('T', ' ')}:00`;
    const [a, b] = [150 + 10 * i, 150 + 10 * (11 - i)];
    rows.push({ hour, arm: 'A', reqs: a, imps: a, revenue: Math.round(a * 40_000 * noise[i]!) });
    rows.push({ hour, arm: 'B', reqs: b, imps: b, revenue: Math.round(b * 50_000 * noise[11 - i]!) });
  }
  const sum = (k: string) => rows.reduce((n, r) => n + (r[k] as number), 0);
  return [...rows, { total: true, reqs: sum('reqs'), imps: sum('imps'), revenue: sum('revenue') }];
}

test('the A/B result says which arm earns more when the intervals do not overlap', async ({ page }) => {
  await logIn(page, 'demand');
  const tag = (price: number) =>
    create(page, 'tags', {
      name: `AB significant arm at $${price} ${run}`,
      vastUrl: `${server.url}/demo/demand/vast?price=${price}`,
      price: { type: 'cpm', cpm: price * 1_000_000 },
    });
  const a = await tag(40);
  const b = await tag(50);
  const name = `AB significant ${run}`;
  const channel = await create(page, 'channels', {
    name,
    demand: [{ tagId: a.id, priority: 1 }],
    split: { percent: 50, demand: [{ tagId: b.id, priority: 1 }] },
  });

  // the modal's report by hour and arm of this channel: asked of the server, answered with the hours
  let asked = 0;
  await page.route(
    (url) => url.pathname === '/api/rrun',
    async (route) => {
      const body = route.request().postDataJSON() as { dimensions?: string[]; filters?: { channel?: number[] } };
      if (body.filters?.channel?.[0] !== channel.id || !body.dimensions?.includes('arm')) return route.continue();
      const real = await route.fetch();
      expect(real.status(), await real.text()).toBe(200);
      asked++;
      await route.fulfill({ status: 200, json: hoursWhereBEarnsMore(Date.now()) });
    },
  );

  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.openAs('demand', 'ssp');
  await channels.search(name);
  await channels.openRow(name);
  await channels.drawer.getByTestId('channel-split-result').click();
  await expect(page.getByTestId('split-result')).toBeVisible();
  expect(asked).toBeGreaterThan(0);
  const cells = (arm: string) => page.getByTestId(`split-arm-${arm}`).locator('td');
  await expect(cells('A').nth(1)).toHaveText('2,460');
  await expect(cells('B').nth(1)).toHaveText('2,460');
  await expect(cells('A').nth(4)).toHaveText('$39.99');
  await expect(cells('B').nth(4)).toHaveText('$49.98');
  await expect(page.getByTestId('split-interval-A')).toHaveText('$39.59 – $40.38');
  await expect(page.getByTestId('split-interval-B')).toHaveText('$49.49 – $50.47');
  await expect(page.getByTestId('split-verdict')).toHaveText(
    'Arm B earns more per 1,000 requests: $49.98 against $39.99 (+25.0%), and the 95% intervals do not overlap.',
  );
  // the verdict's colour says it: a success, not the warning of too few requests
  await expect(page.locator('.ant-alert-success', { has: page.getByTestId('split-verdict') })).toBeVisible();
  await page.screenshot({ path: '/tmp/shots/ab-split-result-significant.png' });
});
