import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';
import { signIn } from '../support/session.js';

/**
 * The channel page's ads.txt section: the line the publisher adds (the subpublisher's sellers.json
 * id on the tenant's domain), and the check of a publisher's live file against a local test host
 * this spec starts (the e2e servers run with ADPLANE_ADSTXT_ALLOW_PRIVATE=1). The channel is a CTV
 * one, so the file is the app-ads.txt of the app developer's website, and the host serves only that.
 */
const CHANNEL = 'Harbor Video - Roku CTV preroll (VAST)';
const LINE = 'ads.northwind.test, nw1-sub-1, DIRECT';

let site: Server;
let host = '';
let appAdsTxt = '';

test.beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url !== '/app-ads.txt') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(appAdsTxt);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(site.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

test("a CTV channel shows its ads.txt line and checks the developer's app-ads.txt", async ({ page }) => {
  await signIn(page, 'demand');
  const channels = new ResourcePage(page, 'channels', '/channels');
  await channels.open();
  await channels.search('Roku CTV preroll');
  await channels.openRow(CHANNEL);

  const box = channels.drawer.getByTestId('channel-adstxt');
  await box.scrollIntoViewIfNeeded();
  await expect(box.getByTestId('channel-adstxt-line')).toHaveText(LINE);

  // The developer's file carries the line, with its own spacing, case and comments.
  appAdsTxt = `# app-ads.txt of harborvideo.test\ngoogle.com, pub-1, DIRECT, f08c47fec0942fa0\nADS.northwind.test,nw1-sub-1,  direct # adplane\n`;
  await expect(box.getByPlaceholder("Developer website domain (from the app's store listing)")).toBeVisible();
  await box.getByTestId('channel-adstxt-domain').fill(host);
  await box.getByTestId('channel-adstxt-check').click();
  const result = box.getByTestId('channel-adstxt-result');
  await expect(result).toContainText('The line is in the app-ads.txt');
  await expect(result).toContainText(`Read from http://${host}/app-ads.txt`);
  await expect(result).toContainText('line 3: ADS.northwind.test,nw1-sub-1,  direct');
  await result.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('adsTxt-found.png') });

  // The same id as a reseller: found, with a hint that the relationship differs.
  appAdsTxt = 'ads.northwind.test, nw1-sub-1, RESELLER\n';
  await box.getByTestId('channel-adstxt-check').click();
  await expect(result).toContainText('Found, with the other relationship');
  await expect(result).toContainText('the line should say DIRECT');

  // Not there at all.
  appAdsTxt = 'other-exchange.test, 42, DIRECT\n';
  await box.getByTestId('channel-adstxt-check').click();
  await expect(result).toContainText('The line is not in the app-ads.txt');
  await expect(result).toContainText(`should add "${LINE}"`);
});
