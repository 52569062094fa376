import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { signIn, useMode } from '../support/session.js';

/**
 * A split channel's A/B result in the console (docs/reports.md, "A/B arms compared"), in Chromium
 * against a real server: a channel whose arm A calls the demo's own demand partner at $40 and whose
 * arm B, half of the requests, calls it at $50, served through /vast and /ev (each answer's
 * impression fired); the report by arm (POST /api/rrun) and the channel drawer's "A/B result" show
 * the same requests, impressions and revenue per arm, and, all of it in one hour, say there are too
 * few requests to compare yet. Screenshot in /tmp/shots/ab-split-result.png.
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
  await signIn(page, 'demand');
  await useMode(page, 'ssp');
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
  await channels.open();
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
