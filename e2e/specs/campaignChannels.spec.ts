import { type DecisionTrace } from '@adplane/shared';
import { expect, test } from '../support/test.js';
import { exactRow, formItem, inputOf, pickOption } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { createRow, getInPage, dayFromToday, videoCreativeBody } from '../support/sampleRows.js';

/**
 * A campaign assigned to one channel on purpose: in the campaign form's Supply section the trader
 * picks "Only these" and the channel; the list's Channels column says so; a VAST player's request
 * on another channel of the account is not served the campaign (the decision trace says its channel
 * assignment left it out) while a request on its own channel is; the channel's drawer lists the
 * campaigns that can run on it. Screenshots at 1440x900 in /tmp/shots/campaign-channels-*.png.
 */
test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 1440, height: 900 } });

test('a campaign assigned to one channel in the console is not served on another channel of the account', async ({
  page,
}) => {
  const run = Date.now() % 100_000;
  const media = `https://cdn.example.com/e2e-channels-${run}.mp4`;
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  const channel = (name: string) =>
    createRow(page, '/api/demand/channels', {
      name,
      integration: 'VAST',
      environment: 'web',
      format: 'video',
      payout: { type: 'revshare', percent: 60 },
    });
  const own = { name: `E2E assigned channel ${run}`, ...(await channel(`E2E assigned channel ${run}`)) };
  const other = { name: `E2E other channel ${run}`, ...(await channel(`E2E other channel ${run}`)) };
  const creative = await createRow(
    page,
    '/api/demand/creatives',
    videoCreativeBody(`E2E channels spot ${run}`, {
      approval: 'approved',
      mediaFiles: [{ url: media, mime: 'video/mp4', duration: 15, width: 640, height: 360, bitrate: 800 }],
    }),
  );
  const name = `E2E channel-assigned campaign ${run}`;
  const campaign = await createRow(page, '/api/demand/campaigns', {
    name,
    startDate: dayFromToday(-1),
    endDate: dayFromToday(30),
    // above every campaign of the demo account: it wins wherever it may run
    bidCpm: 95_000_000,
    pacing: 'asap',
    creativeIds: [creative.id],
    channelScope: 'all',
  });

  /** Whether the VAST a player gets on a channel carries the campaign's spot. */
  const served = async (uid: string) => {
    const res = await getInPage(page, `/vast/${uid}?w=640&h=360`);
    expect(res.status).toBe(200);
    return res.text.includes(media);
  };
  // all my channels (the choice it was made with): it serves on both
  await expect(async () => expect([await served(own.uid), await served(other.uid)]).toEqual([true, true])).toPass({
    timeout: 20_000,
  });

  // the console read the account's channels when the page opened, before these were made through the
  // API: its stored lists are dropped so that the picker offers them (as after a Force data reload)
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  await expect(page.getByTestId('page-campaigns')).toBeVisible({ timeout: 30_000 });
  await campaigns.search(name);
  await campaigns.openRow(name);
  const d = campaigns.drawer;
  const channels = formItem(d, 'Channels');
  await expect(channels.locator('.ant-radio-button-wrapper-checked')).toHaveText('All my channels');
  await channels.getByText('Only these', { exact: true }).click();
  await pickOption(page, formItem(d, 'Runs only on').locator('.ant-select'), own.name, `${run}`);
  await d.locator('.ant-drawer-title').click(); // closes the picker's list
  await formItem(d, 'Runs only on').scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/campaign-channels-form.png' });
  await campaigns.save();

  await campaigns.showColumns('channelScope');
  await expect(exactRow(page, name)).toContainText(`Only: ${own.name}`);
  await page.screenshot({ path: '/tmp/shots/campaign-channels-list.png' });

  // the edge picks the change up: the other channel's player no longer gets the campaign, its own does
  await expect(async () => expect([await served(own.uid), await served(other.uid)]).toEqual([true, false])).toPass({
    timeout: 20_000,
  });
  const traced = await getInPage(page, `/vast/${other.uid}?w=640&h=360&debug=1`);
  expect(traced.status).toBe(200);
  const { trace } = JSON.parse(traced.text) as { trace: DecisionTrace };
  expect(trace.indexedOutCampaigns?.find((c) => c.id === campaign.id)).toMatchObject({
    name,
    reason: 'channel_not_assigned',
  });

  // the channels' drawers: the campaign under its own channel's Campaigns, not under the other's
  const channelsPage = new ResourcePage(page, 'channels', '/channels');
  await channelsPage.openAs('demand', 'ssp');
  await channelsPage.search(own.name);
  await channelsPage.openRow(own.name);
  const section = channelsPage.drawer.getByTestId('channel-campaigns');
  await expect(section.getByTestId(`channel-campaign-${campaign.id}`)).toHaveText(name);
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/shots/campaign-channels-drawer.png' });
  await page.keyboard.press('Escape');
  await expect(channelsPage.drawer).toBeHidden();
  await channelsPage.search(other.name);
  await channelsPage.openRow(other.name);
  await expect(channelsPage.drawer.getByTestId('channel-campaigns')).toBeVisible();
  await expect(channelsPage.drawer.getByTestId(`channel-campaign-${campaign.id}`)).toHaveCount(0);
});

test.describe('a new campaign', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('shows "All my channels" chosen in its form and sends that choice when saved', async ({ page }) => {
    const run = Date.now() % 100_000;
    const name = `E2E new campaign channels ${run}`;
    const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
    await campaigns.openAs('demand', 'dsp');
    await campaigns.startNew();
    const d = campaigns.drawer;
    await inputOf(formItem(d, 'Name')).fill(name);
    await inputOf(d.getByTestId('campaign-bid')).fill('3.5');
    const channels = formItem(d, 'Channels');
    await channels.scrollIntoViewIfNeeded();
    await expect(channels.locator('.ant-radio-button-wrapper-checked')).toHaveText('All my channels');
    await expect(channels).toContainText('Every channel of the account, those added later too');
    await page.screenshot({ path: '/tmp/shots/campaign-channels-new.png' });

    const posted = page.waitForRequest(
      (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/demand/campaigns',
    );
    await campaigns.save();
    expect((await posted).postDataJSON()).toMatchObject({ name, channelScope: 'all', channelIds: [] });
    await campaigns.search(name);
    await campaigns.showColumns('channelScope');
    await expect(exactRow(page, name)).toContainText('All my channels');
  });
});
