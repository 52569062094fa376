import { expect, test } from '../support/test.js';
import { formItem, openedModal } from '../support/antdFields.js';
import { ResourcePage } from '../support/resourcePage.js';
import { createRow, getInPage, dayFromToday, videoCreativeBody } from '../support/sampleRows.js';

/**
 * A channel assigns its campaigns: in a channel's drawer the trader opens "Assign campaigns", finds
 * the account's campaigns by name, checks one that ran only on another channel and unchecks one of
 * all channels, and saves; the drawer's Campaigns box reads them again, each campaign's own form
 * shows its Channels changed as little as that takes ("Only these" gains the channel, "All my
 * channels" becomes "All but these" it), and a VAST player on the channel gets the campaign assigned
 * to it. Screenshot of the modal at 1280x900 in /tmp/shots/channel-campaigns-modal.png.
 */
test.describe.configure({ timeout: 120_000 });
test.use({ viewport: { width: 1280, height: 900 } });

test("a channel's campaigns assigned from its drawer show in each campaign's Channels and serve there", async ({
  page,
}) => {
  const run = Date.now() % 100_000;
  const media = `https://cdn.example.com/e2e-channel-campaigns-${run}.mp4`;
  const channelsPage = new ResourcePage(page, 'channels', '/channels');
  await channelsPage.openAs('demand', 'ssp');
  const channel = (name: string) =>
    createRow(page, '/api/demand/channels', {
      name,
      integration: 'VAST',
      environment: 'web',
      format: 'video',
      payout: { type: 'revshare', percent: 60 },
    });
  const here = { name: `E2E assigning channel ${run}`, ...(await channel(`E2E assigning channel ${run}`)) };
  const elsewhere = { name: `E2E elsewhere channel ${run}`, ...(await channel(`E2E elsewhere channel ${run}`)) };
  const creative = await createRow(
    page,
    '/api/demand/creatives',
    videoCreativeBody(`E2E channel campaigns spot ${run}`, {
      approval: 'approved',
      mediaFiles: [{ url: media, mime: 'video/mp4', duration: 15, width: 640, height: 360, bitrate: 800 }],
    }),
  );
  const joining = `E2E joins the channel ${run}`;
  const leaving = `E2E leaves the channel ${run}`;
  const campaign = (name: string, bidCpm: number, assignment: Record<string, unknown>) =>
    createRow(page, '/api/demand/campaigns', {
      name,
      startDate: dayFromToday(-1),
      endDate: dayFromToday(30),
      bidCpm,
      pacing: 'asap',
      creativeIds: [creative.id],
      ...assignment,
    });
  // above every campaign of the demo account: it wins wherever it may run (this spec's channels only)
  const joins = await campaign(joining, 96_000_000, { channelScope: 'include', channelIds: [elsewhere.id] });
  // below them all: on the account's other channels, which later specs read, it wins nothing
  const leaves = await campaign(leaving, 50_000, { channelScope: 'all' });

  // made through the API after the page opened: the console's stored lists are dropped (as after a Force data reload)
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  await expect(page.getByTestId('page-channels')).toBeVisible({ timeout: 30_000 });
  await channelsPage.search(here.name);
  await channelsPage.openRow(here.name);
  const box = channelsPage.drawer.getByTestId('channel-campaigns');
  await expect(box.getByTestId(`channel-campaign-${leaves.id}`)).toHaveText(leaving);
  await expect(box.getByTestId(`channel-campaign-${joins.id}`)).toHaveCount(0);

  await box.getByTestId('channel-campaigns-assign').click();
  const modal = await openedModal(page, 'assign-campaigns');
  await modal.getByTestId('assign-campaigns-search').locator('input').fill(`${run}`);
  await expect(modal.getByTestId(`assign-campaign-scope-${joins.id}`)).toHaveText('only some (1)');
  await expect(modal.getByTestId(`assign-campaign-scope-${leaves.id}`)).toHaveText('all channels');
  await expect(modal.getByTestId(`assign-campaign-${joins.id}`)).not.toBeChecked();
  await expect(modal.getByTestId(`assign-campaign-${leaves.id}`)).toBeChecked();
  await modal.getByTestId(`assign-campaign-${joins.id}`).check();
  await modal.getByTestId(`assign-campaign-${leaves.id}`).uncheck();
  await expect(modal.getByText('starts here')).toBeVisible();
  await expect(modal.getByText('stops here')).toBeVisible();
  await page.screenshot({ path: '/tmp/shots/channel-campaigns-modal.png' });
  await modal.getByTestId('assign-campaigns-save').click();
  await expect(modal).toBeHidden();
  await expect(box.getByTestId(`channel-campaign-${joins.id}`)).toHaveText(joining);
  await expect(box.getByTestId(`channel-campaign-${leaves.id}`)).toHaveCount(0);
  await page.screenshot({ path: '/tmp/shots/channel-campaigns-drawer.png' });

  // a player on the channel gets the campaign assigned to it; the one taken off is left out by its assignment
  await expect(async () => {
    const res = await getInPage(page, `/vast/${here.uid}?w=640&h=360&debug=1`);
    expect(res.status).toBe(200);
    const { trace } = JSON.parse(res.text) as {
      trace: { winner?: { id: number }; indexedOutCampaigns?: { id: number; reason: string }[] };
    };
    expect(trace.winner?.id).toBe(joins.id);
    expect(trace.indexedOutCampaigns?.find((c) => c.id === leaves.id)?.reason).toBe('channel_not_assigned');
  }).toPass({ timeout: 20_000 });

  // each campaign's form: its Channels say what the channel's choice made of them
  const campaigns = new ResourcePage(page, 'campaigns', '/campaigns');
  await campaigns.openAs('demand', 'dsp');
  await campaigns.search(joining);
  await campaigns.openRow(joining);
  let channels = formItem(campaigns.drawer, 'Channels');
  await expect(channels.locator('.ant-radio-button-wrapper-checked')).toHaveText('Only these');
  const only = formItem(campaigns.drawer, 'Runs only on');
  await expect(only).toContainText(elsewhere.name);
  await expect(only).toContainText(here.name);
  await page.keyboard.press('Escape');
  await expect(campaigns.drawer).toBeHidden();
  await campaigns.search(leaving);
  await campaigns.openRow(leaving);
  channels = formItem(campaigns.drawer, 'Channels');
  await expect(channels.locator('.ant-radio-button-wrapper-checked')).toHaveText('All but these');
  const never = formItem(campaigns.drawer, 'Never runs on');
  await expect(never).toContainText(here.name);
  await expect(never).not.toContainText(elsewhere.name);

  // the campaign of all but this channel stops, so that it bids on none of the account's other channels
  const paused = await page.evaluate(async (id) => {
    const res = await fetch('/api/demand/campaigns/bulk', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'pause', ids: [id] }),
    });
    return res.status;
  }, leaves.id);
  expect(paused).toBe(200);
});
