import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Locator, type Page } from '@playwright/test';
import { type DecisionTrace } from '@adplane/shared';
import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';
import { exactRow, pickOption, rowId } from '../support/antdFields.js';
import { createRow, getInPage } from '../support/sampleRows.js';
import { EDITION_SERVERS } from '../support/servers.js';

/**
 * Deals for buyers (SSP mode, Supply menu): the demand user packages a channel as a supply deal on one
 * of its RTB tags, with a floor, an auction type, a private auction, buyer seats and advertiser
 * domains, capped at 50,000 impressions and 5,000 a day; the list shows its terms and caps, and what
 * it delivered against them. The tag picker offers the OpenRTB tags only (a VAST tag carries no deal).
 * A capped deal a local bidder (started by this spec) bids on, served through /vast and /ev, shows
 * its impressions against its caps in the list and the drawer.
 */
const run = Date.now().toString(36);
const name = `E2E Supply deal ${run}`;
const dealId = `E2E-SSP-${run}`.toUpperCase();

const field = (scope: Page | Locator, label: string): Locator =>
  scope.getByLabel(new RegExp(`^${label}(\\s*\\(optional\\))?$`));

/** Types words into a tags select, each ended with Enter. */
async function typeWords(select: Locator, words: string[]): Promise<void> {
  await select.click();
  for (const w of words) {
    await select.pressSequentially(w);
    await select.press('Enter');
  }
}

test('a supply deal sells a channel to named buyers on an RTB tag', async ({ page }) => {
  const deals = new ResourcePage(page, 'supplydeals', '/supply-deals');
  await deals.openAs('demand', 'ssp');
  await deals.startNew();
  const d = deals.drawer;
  await field(d, 'Name').fill(name);
  await field(d, 'Deal ID').fill(dealId);
  await field(d, 'Floor CPM').fill('9.5');
  await pickOption(page, field(d, 'Auction type'), 'Second price', '');
  await d.getByRole('switch', { name: 'Private auction' }).click();
  await typeWords(field(d, 'Buyer seats'), ['ttd-e2e-1', 'dv360-e2e-2']);
  await typeWords(field(d, 'Advertiser domains'), ['bluefinfoods.test']);
  await pickOption(page, field(d, 'Channels'), 'Harbor Video - Roku CTV preroll (VAST)', 'Harbor');
  // a VAST tag is not offered: only OpenRTB tags carry a deal
  const tags = field(d, 'Demand tags');
  await tags.click();
  await page.keyboard.type('Blue Fin');
  await expect(page.locator('.ant-select-dropdown:visible .ant-select-item-option')).toHaveCount(0);
  await tags.fill('');
  await pickOption(page, tags, 'Crestline Exchange - OpenRTB 2.6 - video', 'Crestline');
  await page.keyboard.press('Escape');
  await expect(page.locator('.ant-select-dropdown:visible')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('supply-deal-form.png') });
  // the caps: empty is unlimited; a number caps the deal's impressions
  const capField = field(d, 'Impression cap');
  await expect(capField).toHaveValue('');
  await capField.fill('50000');
  await field(d, 'Daily impression cap').fill('5000');
  await capField.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('supply-deal-caps.png') });
  await deals.save();

  await deals.showColumns('auctionType', 'buyerSeats', 'advertiserDomains');
  const row = exactRow(page, name);
  await expect(row).toContainText(dealId);
  await expect(row).toContainText('$9.50');
  await expect(row).toContainText('Second price, private');
  await expect(row).toContainText('ttd-e2e-1, dv360-e2e-2');
  await expect(row).toContainText('bluefinfoods.test');
  await expect(row).toContainText('Always on');
  // nothing delivered yet, against each cap
  const cap = row.getByTestId('deal-cap');
  await expect(cap.locator('.deal-delivery-text')).toHaveText(['0 / 50,000', '0 / 5,000 today']);
  await page.screenshot({ path: test.info().outputPath('supply-deals-list.png') });
});

test("Test this tag names the channel's deals for buyers it offers", async ({ page }) => {
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.openAs('demand', 'ssp');
  await page.getByTestId(`tag-test-${await rowId(exactRow(page, 'Lakeside Streaming - in-app video (RTB)'))}`).click();
  const drawer = page.locator('.ant-drawer').filter({ has: page.getByTestId('tag-test-run') });
  // a request the channel takes: an app of its allow-list in a medium player (its targeting), not the
  // form's example bundle, which its IVT check blocks before any deal is looked at
  await drawer.getByLabel(/^App bundle or store id/).fill('com.foxsports.android');
  await pickOption(page, drawer.getByLabel(/^Player size/), '480×270 (medium)', '');
  await drawer.getByTestId('tag-test-run').click();
  await expect(drawer.getByTestId('tag-test-result')).toBeVisible({ timeout: 15_000 });
  await expect(drawer.getByTestId('tag-test-deals')).toHaveText(
    'Deals for buyers: Lakeside in-app video - Blue Fin PMP (NW-LS-APP-2026-014) offered.',
  );
  await page.screenshot({ path: test.info().outputPath('tag-test-deals.png') });
});

const server = EDITION_SERVERS.default;
const DELIVERED_DEAL = `E2E-DLV-${run}`.toUpperCase();
const DEAL_MEDIA = `https://cdn.example.com/e2e-deal-${run}.mp4`;

/**
 * Why a VAST answer of `path` lacks the deal's ad, in the words of the same request's decision trace
 * (`debug=1`, the console's session): the result, the deals offered and left out, and each source's
 * fate, so that a failure says what beat the deal or refused it.
 */
async function whyNotTheDeal(page: Page, path: string): Promise<string> {
  const res = await getInPage(page, `${path}&debug=1`);
  if (res.status !== 200) return `debug=1 answered ${res.status}: ${res.text.slice(0, 500)}`;
  const { trace } = JSON.parse(res.text) as { trace: DecisionTrace };
  const fates = trace.sources.map((s) =>
    [
      `${s.source} "${s.name}" ${s.fate}`,
      s.reason && `(${s.reason})`,
      s.bidCpm !== undefined && `bid $${(s.bidCpm / 1e6).toFixed(2)} CPM`,
      s.dealId && `deal ${s.dealId}`,
      s.lostTo && `lost to ${s.lostTo}`,
      s.ms !== undefined && `${s.ms} ms`,
    ]
      .filter(Boolean)
      .join(' '),
  );
  return [
    `result ${trace.result}, snapshot ${trace.snapshotVersion}, channel ${trace.channel?.mode ?? 'none'}`,
    `deals offered: ${JSON.stringify(trace.deals ?? [])}`,
    `deals left out: ${JSON.stringify(trace.dealsLeftOut ?? [])}`,
    `sources: ${fates.join('; ')}`,
  ].join('\n');
}

/** A buyer's bidder: every bid request gets a $45 bid on the deal, with an inline VAST ad. */
function startBidder(): Promise<Server> {
  const vast = `<?xml version="1.0" encoding="UTF-8"?><VAST version="3.0"><Ad id="e2e-deal-ad"><InLine><AdSystem>E2E bidder</AdSystem><AdTitle>Deal spot</AdTitle><Impression><![CDATA[https://brand.example.com/imp]]></Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[${DEAL_MEDIA}]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;
  const bidder = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as { id: string; imp: { id: string }[] };
      const bid = { id: 'b1', impid: request.imp[0]!.id, price: 45, adm: vast, adomain: ['brand.example.com'] };
      const answer = {
        id: request.id,
        cur: 'USD',
        seatbid: [{ seat: 'e2e-seat', bid: [{ ...bid, crid: 'e2e-cr', dealid: DELIVERED_DEAL }] }],
      };
      res
        .writeHead(200, { 'content-type': 'application/json', 'x-openrtb-version': '2.6' })
        .end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) => bidder.listen(0, '127.0.0.1', () => resolve(bidder)));
}

test("a capped deal's row and drawer show what it delivered against its caps", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const bidder = await startBidder();
  try {
    const deals = new ResourcePage(page, 'supplydeals', '/supply-deals');
    await deals.openAs('demand', 'ssp');
    const tag = await createRow(page, '/api/demand/tags', {
      name: `E2E deal bidder ${run}`,
      integration: 'RTB',
      endpoint: `http://127.0.0.1:${(bidder.address() as AddressInfo).port}/bid`,
      price: { type: 'cpm', cpm: 0 },
      timeoutMs: 1000,
    });
    const channel = await createRow(page, '/api/demand/channels', {
      name: `E2E deal channel ${run}`,
      demand: [{ tagId: tag.id, priority: 1 }],
    });
    const dealName = `E2E delivered deal ${run}`;
    await createRow(page, '/api/demand/supplydeals', {
      name: dealName,
      dealId: DELIVERED_DEAL,
      channelIds: [channel.id],
      tagIds: [tag.id],
      impCap: 20,
      dailyImpCap: 5,
    });

    // three impressions won on the deal (the edge knows the channel once its snapshot is rebuilt: 404 before)
    let served = 0;
    await expect(async () => {
      while (served < 3) {
        const path = `/vast/${channel.uid}?w=640&h=360&cb=${run}-${served}`;
        const res = await page.request.get(`${server.url}${path}`);
        expect(res.status()).toBe(200);
        const vast = await res.text();
        // the deal's bid won: its ad is served (else the message says why, from the decision trace)
        if (!vast.includes(DEAL_MEDIA))
          expect(vast, `the deal's ad is not served:\n${await whyNotTheDeal(page, path)}`).toContain(DEAL_MEDIA);
        const token = /\/ev\?e=impression&(?:amp;)?t=([A-Za-z0-9_~.-]+)/.exec(vast)?.[1];
        expect(token).toBeTruthy();
        expect((await page.request.get(`${server.url}/ev?e=impression&t=${token}`)).status()).toBe(200);
        served++;
      }
    }).toPass({ timeout: 30_000, intervals: [100, 250, 500] });

    await deals.open();
    await deals.search(dealName);
    const row = exactRow(page, dealName);
    const cap = row.getByTestId('deal-cap');
    await expect(cap.locator('.deal-delivery-text')).toHaveText(['3 / 20', '3 / 5 today']);
    await expect(cap.locator('.deal-delivery-line').nth(0)).toHaveAttribute('data-percent', '15');
    await expect(cap.locator('.deal-delivery-line').nth(1)).toHaveAttribute('data-percent', '60');
    await page.screenshot({ path: test.info().outputPath('supply-deals-delivered.png') });

    await deals.openRow(dealName);
    const delivered = deals.drawer.getByTestId('deal-delivered');
    await expect(delivered.locator('.deal-delivery-text')).toHaveText(['3 / 20', '3 / 5 today']);
    await expect(deals.drawer.getByTestId('delivery-state')).toContainText('Serving');
    await page.screenshot({ path: test.info().outputPath('supply-deal-drawer-delivered.png') });
  } finally {
    await new Promise<void>((resolve) => bidder.close(() => resolve()));
  }
});
