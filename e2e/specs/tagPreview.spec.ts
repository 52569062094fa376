import { type Page } from '@playwright/test';
import { expect, test } from '../support/test.js';
import { clickUntilShown, exactRow, rowId } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { signIn, useMode } from '../support/session.js';

/**
 * Tags to paste (docs/console.md, "Tags to paste"): a channel's tag in a preview with its variants (CTV, app, web with the
 * macros each environment's players fill, example values), a labelled Copy that puts exactly the
 * shown text on the clipboard, "Test this tag", and the same preview from the list row; an RTB
 * channel's test call is one the edge accepts.
 */
const base = EDITION_SERVERS.default.url;
const CTV_CHANNEL = 'Harbor Video - Roku CTV preroll (VAST)';
const RTB_CHANNEL = 'Lakeside Streaming - in-app video (RTB)';

test.beforeEach(async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, 'demand');
});

async function channelUid(page: Page, name: string): Promise<string> {
  return page.evaluate(async (wanted) => {
    const list = (await (await fetch('/api/demand/channels/list')).json()) as { name: string; uid: string }[];
    return list.find((c) => c.name === wanted)!.uid;
  }, name);
}

async function openChannel(page: Page, name: string): Promise<ResourcePage> {
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.open();
  await channels.search(name);
  await channels.openRow(name);
  return channels;
}

test("a VAST channel's tag: its environment first, each variant with its players' macros, copied as shown", async ({
  page,
}) => {
  const uid = await channelUid(page, CTV_CHANNEL);
  const channels = await openChannel(page, CTV_CHANNEL);
  const preview = channels.drawer.getByTestId('channel-tag-preview');
  const code = channels.drawer.getByTestId('channel-tag');
  await preview.scrollIntoViewIfNeeded();

  // A CTV channel opens on its CTV tag: device type, IFA, app bundle and store URL, no page URL.
  await expect(preview).toHaveAttribute('data-variant', 'ctv');
  await expect(code).toContainText(`${base}/vast/${uid}?w={{width}}&h={{height}}`);
  for (const macro of [
    'device_type={{device_type}}',
    'device_id={{device_id}}',
    'app_bundle={{app_bundle}}',
    'app_store_url={{app_store_url}}',
  ])
    await expect(code).toContainText(macro);
  await expect(code).not.toContainText('page_url');
  await page.screenshot({ path: test.info().outputPath('tag-preview-ctv.png') });

  // Web: page URL and domain, none of the app's.
  await channels.drawer.getByTestId('channel-tag-variant-web').click();
  await expect(preview).toHaveAttribute('data-variant', 'web');
  await expect(code).toContainText('page_url={{page_url}}');
  await expect(code).toContainText('domain={{domain}}');
  await expect(code).not.toContainText('device_id');
  const shown = (await code.textContent()) ?? '';
  expect(new URL(shown).pathname).toBe(`/vast/${uid}`);

  await channels.drawer.getByTestId('channel-tag-copy').click();
  await expect(page.getByText('Copied: the tag is in your clipboard')).toBeVisible();
  await expect(channels.drawer.getByTestId('channel-tag-copy')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);

  // App with example values: what a phone's player sends, no macro left.
  await channels.drawer.getByTestId('channel-tag-variant-app').click();
  await channels.drawer.getByTestId('channel-tag-example').click();
  await expect(code).toContainText('app_bundle=com.example.news');
  await expect(code).not.toContainText('{{');
  await expect(code).not.toContainText('device_type');
  const example = new URL((await code.textContent()) ?? '');
  expect(example.searchParams.get('app_bundle')).toBe('com.example.news');
  await page.screenshot({ path: test.info().outputPath('tag-preview-app-example.png') });

  // "Test this tag" runs the tester in the shown variant's environment.
  await channels.drawer.getByTestId('channel-tag-test').click();
  await expect(page.getByTestId('tag-test-drawer')).toBeVisible();
});

test("an RTB channel's test call is a bid request the edge accepts", async ({ page }) => {
  const uid = await channelUid(page, RTB_CHANNEL);
  const channels = await openChannel(page, RTB_CHANNEL);
  const code = channels.drawer.getByTestId('channel-tag');
  await code.scrollIntoViewIfNeeded();
  await expect(code).toHaveText(`${base}/rtb/${uid}`);
  await channels.drawer.getByTestId('channel-tag-variant-test').click();
  const call = (await code.textContent()) ?? '';
  expect(call).toContain(`curl -sS -X POST '${base}/rtb/${uid}'`);
  const body = JSON.parse(/-d '([\s\S]*)'$/.exec(call)![1]) as Record<string, unknown>;
  expect(body).toMatchObject({ test: 1, app: { bundle: 'com.example.news' } });
  const answer = await page.request.post(`${base}/rtb/${uid}`, { data: body, headers: { 'x-openrtb-version': '2.6' } });
  expect([200, 204]).toContain(answer.status());
});

test('a list row opens the same preview instead of copying blind', async ({ page }) => {
  const uid = await channelUid(page, CTV_CHANNEL);
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.open();
  await channels.search(CTV_CHANNEL);
  const id = await rowId(exactRow(page, CTV_CHANNEL));
  const code = page.getByTestId(`row-tag-${id}`);
  await clickUntilShown(page.getByTestId(`copy-tag-${id}`), code);
  await expect(code).toContainText(`/vast/${uid}?`);
  await page.getByTestId(`row-tag-${id}-variant-app`).click();
  await expect(code).toContainText('app_store_url={{app_store_url}}');
  await page.screenshot({ path: test.info().outputPath('tag-preview-row.png') });
  await page.getByTestId(`row-tag-${id}-copy`).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await code.textContent());
});

test("a supplier's bid endpoint and its test call, which the edge accepts", async ({ page }) => {
  await useMode(page, 'dsp');
  const sups = new ResourcePage(page, 'sups', '/suppliers');
  await sups.open();
  const name = 'Granite Ad Network - in-app';
  await sups.search(name);
  await sups.openRow(name);
  const code = sups.drawer.getByTestId('supplier-endpoint');
  const endpoint = (await code.textContent()) ?? '';
  expect(endpoint).toMatch(new RegExp(`^${base.replace(/\./g, '\\.')}/rtb/bid/[0-9a-f]{16}$`));
  await sups.drawer.getByTestId('supplier-endpoint-variant-test').click();
  await expect(code).toContainText(`curl -sS -X POST '${endpoint}'`);
  await page.screenshot({ path: test.info().outputPath('tag-preview-supplier.png') });
  const body = JSON.parse(/-d '([\s\S]*)'$/.exec((await code.textContent()) ?? '')![1]) as Record<string, unknown>;
  expect(body).toMatchObject({ test: 1, imp: [{ video: { mimes: ['video/mp4'] } }] });
  const answer = await page.request.post(endpoint, { data: body, headers: { 'x-openrtb-version': '2.6' } });
  expect([200, 204]).toContain(answer.status());
});
