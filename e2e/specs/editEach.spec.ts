import { expect, test } from '../support/test.js';
import { EDITION_SERVERS } from '../support/servers.js';
import { ResourcePage } from '../support/resourcePage.js';
import { openFromNavMenu } from '../support/session.js';

/**
 * Every entity a demand user manages can be edited through the console: open a row of the demo
 * workspace, rename it, save, and find it under its new name (the server's answer, not the form's).
 */
const KINDS = [
  { kind: 'channels', path: '/channels', mode: 'ssp' },
  { kind: 'subs', path: '/subpublishers', mode: 'ssp' },
  { kind: 'tags', path: '/tags', mode: 'ssp' },
  { kind: 'advs', path: '/advertisers', mode: 'ssp' },
  { kind: 'targetings', path: '/targetings', mode: 'ssp' },
  { kind: 'applists', path: '/applists', mode: 'ssp' },
  { kind: 'ivts', path: '/ivts', mode: 'ssp' },
  { kind: 'sups', path: '/suppliers', mode: 'dsp' },
  { kind: 'campaigns', path: '/campaigns', mode: 'dsp' },
  { kind: 'creatives', path: '/creatives', mode: 'dsp' },
  { kind: 'adexchanges', path: '/adexchanges', mode: 'dsp' },
  { kind: 'deals', path: '/deals', mode: 'dsp' },
  { kind: 'publists', path: '/publists', mode: 'ssp', edition: 'V2V' },
  { kind: 'crelists', path: '/crelists', mode: 'ssp', edition: 'V2V' },
] as const;

for (const k of KINDS) {
  test(`edits a row of ${k.path}`, async ({ page }) => {
    const base = 'edition' in k ? EDITION_SERVERS[k.edition].url : '';
    const list = new ResourcePage(page, k.kind, `${base}${k.path}`);
    await list.openAs('demand', k.mode);
    const firstName = page.locator('.ant-table-row').first().getByRole('link').first();
    const oldName = (await firstName.textContent())!.trim();
    await firstName.click();
    await expect(list.drawer).toBeVisible();
    const name = list.drawer.locator('input#name');
    await expect(name).toHaveValue(oldName);
    const newName = `${oldName.slice(0, 200)} (edited)`;
    await name.fill(newName);
    await list.save();
    await list.search('(edited)');
    await expect(list.row(newName)).toBeVisible();
  });
}

test("a subpublisher's and an advertiser's forms show what is assigned to them", async ({ page }) => {
  const subs = new ResourcePage(page, 'subs', '/subpublishers');
  await subs.openAs('demand');
  await subs.search('Harbor Video');
  await subs.openRow('Harbor Video');
  await expect(page.getByTestId('assigned-channels')).toContainText(/Channels \([1-9]/);
  await expect(page.getByTestId('assigned-channels')).toContainText('Roku');
  await page.keyboard.press('Escape');
  await expect(subs.drawer).toBeHidden();
  // on to the advertisers inside the console, through the bar's Demand menu
  await openFromNavMenu(page, 'demand', 'nav-/advertisers', 'page-advs');
  const advs = new ResourcePage(page, 'advs', '/advertisers');
  await advs.search('Blue Fin Foods');
  await advs.openRow('Blue Fin Foods');
  await expect(page.getByTestId('assigned-campaigns')).toContainText(/Campaigns \([1-9]/);
  await expect(page.getByTestId('assigned-tags')).toContainText(/Tags \([1-9]/);
});
