import '../../test/setup.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { type AuthUser, DIMENSION_IDS, METRIC_IDS, type UserType } from '@adplane/shared';
import { makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { reportPickerOptions, ReportFormCard } from './ReportFormCard.js';
import { defaultForm, marketReportForm, type ReportForm, visibleForm } from './reportState.js';

vi.setConfig({ testTimeout: 20_000 });
afterEach(cleanup);

/** The tenant's margin and the platform's fee: what only the tenant (and admins) see. */
const MARGIN = ['cost', 'profit', 'margin'];

const users: Record<string, AuthUser> = {
  admin: makeUser('admin'),
  demand: makeUser('demand', { showSystemCost: true }),
  manager: makeUser('demand', { managerId: 3 }),
  sub: makeUser('sub'),
  adv: makeUser('adv'),
};

describe('the report pickers', () => {
  it('offer each user type only the metrics and dimensions the server runs for it', () => {
    const offered = (name: string) => {
      const { metricOptions, dimensionOptions } = reportPickerOptions(users[name]);
      return {
        metrics: metricOptions.map((o) => o.value as string),
        dimensions: dimensionOptions.map((o) => o.value as string),
      };
    };
    expect(offered('admin')).toEqual({ metrics: [...METRIC_IDS], dimensions: [...DIMENSION_IDS] });
    expect(offered('demand').metrics).toEqual([...METRIC_IDS]);
    expect(offered('demand').dimensions).not.toContain('tenant');
    expect(offered('manager').metrics).toEqual(METRIC_IDS.filter((id) => id !== 'systemCost'));
    for (const name of ['sub', 'adv']) {
      const { metrics } = offered(name);
      for (const id of [...MARGIN, 'systemCost', 'rev_m', 'rev_md']) expect(metrics, `${name} ${id}`).not.toContain(id);
      expect(metrics).toEqual(expect.arrayContaining(['imps', 'revenue', 'ecpm']));
    }
    // a subpublisher sees its traffic, not the demand it is sold to; an advertiser its buying, not the supply
    expect(offered('sub').dimensions).toEqual(expect.arrayContaining(['channel', 'country', 'domain']));
    for (const id of [
      'tag',
      'partner',
      'advertiser',
      'campaign',
      'adexchange',
      'deal',
      'marketplace_name',
      'supplier',
      'tenant',
    ])
      expect(offered('sub').dimensions).not.toContain(id);
    expect(offered('adv').dimensions).toEqual(expect.arrayContaining(['campaign', 'tag', 'country']));
    for (const id of ['channel', 'subpublisher', 'supplier', 'adexchange', 'publisher_id', 'tenant'])
      expect(offered('adv').dimensions).not.toContain(id);
    expect(offered('adv').metrics).not.toContain('fill');
  });

  it('offers a subpublisher the demand and an advertiser the supply when their tenant shows it, and no more metrics', async () => {
    const sub = makeUser('sub', { tenantShowDemandToSubs: true });
    const adv = makeUser('adv', { tenantShowSupplyToAdvs: true });
    const demandNames = ['tag', 'partner', 'advertiser', 'campaign', 'creative', 'deal', 'marketplace_name'];
    const supplyNames = ['channel', 'subpublisher', 'supplier', 'adexchange', 'publisher_id'];
    const dimensions = (user: AuthUser) => reportPickerOptions(user).dimensionOptions.map((o) => o.value as string);
    const metrics = (user: AuthUser) => reportPickerOptions(user).metricOptions.map((o) => o.value as string);
    expect(dimensions(sub)).toEqual(
      expect.arrayContaining([...demandNames, 'channel', 'subpublisher', 'publisher_id']),
    );
    expect(dimensions(adv)).toEqual(expect.arrayContaining([...supplyNames, ...demandNames]));
    for (const user of [sub, adv]) expect(dimensions(user)).not.toContain('tenant');
    expect(metrics(sub)).toEqual(metrics(users.sub));
    expect(metrics(adv)).toEqual(metrics(users.adv));
    // each choice is for its own side: the other type's switch changes nothing
    expect(dimensions(makeUser('sub', { tenantShowSupplyToAdvs: true }))).toEqual(dimensions(users.sub));
    expect(dimensions(makeUser('adv', { tenantShowDemandToSubs: true }))).toEqual(dimensions(users.adv));
    // a saved report by advertiser opens whole while the choice is on
    const saved: ReportForm = {
      ...defaultForm(0),
      dimensions: ['date', 'advertiser'],
      metrics: ['imps', 'revenue'],
      filters: { tag: [4] },
    };
    expect(visibleForm(saved, sub)).toMatchObject({ dimensions: ['date', 'advertiser'], filters: { tag: [4] } });
    expect(visibleForm(saved, users.sub)).toMatchObject({ dimensions: ['date'], filters: {} });

    /** The options the dimension picker and the filter picker show for what is typed in their search. */
    const search = async (testId: string, text: string) => {
      const picker = screen.getByTestId(testId);
      fireEvent.mouseDown(picker.querySelector('.ant-select-selector, .ant-select-content') ?? picker);
      fireEvent.change(picker.querySelector('input')!, { target: { value: text } });
      await waitFor(() => expect(document.querySelector('.ant-select-dropdown')).not.toBeNull());
      return [
        ...document.querySelectorAll('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option'),
      ].map((o) => o.textContent);
    };
    renderWithAuth(<ReportFormCard user={sub} form={defaultForm(0)} onChange={() => undefined} />, sub);
    expect(await search('report-dimensions', 'Advertiser')).toEqual(['Advertiser']);
    cleanup();
    renderWithAuth(
      <ReportFormCard user={users.sub} form={visibleForm(defaultForm(0), users.sub)} onChange={() => undefined} />,
      users.sub,
    );
    expect(await search('report-dimensions', 'Advertiser')).toEqual([]);
  });

  it("names revenue in the user's words: a subpublisher's payout, an advertiser's spend", () => {
    const revenue = (type: UserType) =>
      reportPickerOptions(users[type]).metricOptions.find((o) => o.value === 'revenue')!;
    expect(revenue('sub')).toMatchObject({ label: 'Revenue', title: expect.stringContaining('payout') });
    expect(revenue('adv')).toMatchObject({ label: 'Spend' });
    expect(revenue('demand')).toMatchObject({ label: 'Revenue', title: 'what demand pays for the impressions it won' });
  });

  it("finds no margin in a subpublisher's metric picker, and the tenant's margin in its own", async () => {
    const form: ReportForm = defaultForm(0);
    /** The metric picker's options for what is typed in its search (the list shows ten at a time). */
    const search = async (text: string) => {
      const picker = screen.getByTestId('report-metrics');
      fireEvent.mouseDown(picker.querySelector('.ant-select-selector, .ant-select-content') ?? picker);
      fireEvent.change(picker.querySelector('input')!, { target: { value: text } });
      await waitFor(() => expect(document.querySelector('.ant-select-dropdown')).not.toBeNull());
      return [...document.querySelectorAll('.ant-select-dropdown .ant-select-item-option')].map((o) => o.textContent);
    };
    renderWithAuth(
      <ReportFormCard user={users.sub} form={visibleForm(form, users.sub)} onChange={() => undefined} />,
      users.sub,
    );
    for (const label of ['Cost', 'Profit', 'Margin', 'System Cost', 'Marketplace'])
      expect(await search(label), label).toEqual([]);
    expect(await search('Revenue')).toEqual(['Revenue']);
    cleanup();

    renderWithAuth(<ReportFormCard user={users.demand} form={form} onChange={() => undefined} />, users.demand);
    expect(await search('Profit')).toEqual(['Profit']);
    expect(await search('Margin')).toEqual(['Margin']);
  });

  it('leaves out of a saved report, the default form and the market helper what the user may not see', () => {
    const saved: ReportForm = {
      ...defaultForm(0),
      dimensions: ['date', 'tag', 'channel'],
      metrics: ['imps', 'profit', 'margin', 'revenue'],
      filters: { tag: [4], country: ['US'] },
      sortBy: 'profit',
    };
    expect(visibleForm(saved, users.sub)).toMatchObject({
      dimensions: ['date', 'channel'],
      metrics: ['imps', 'revenue'],
      filters: { country: ['US'] },
      sortBy: null,
    });
    expect(visibleForm(saved, users.demand)).toEqual(saved);
    // the advertiser's default form loses the publishers' requests and fill
    expect(visibleForm(defaultForm(0), users.adv).metrics).toEqual(['imps', 'revenue', 'ecpm']);
    // the market report's marketplace and its revenue are not a subpublisher's: its traffic is left
    expect(visibleForm(marketReportForm(0), users.sub)).toMatchObject({
      dimensions: [],
      metrics: ['imps', 'reqs', 'opps', 'fill'],
      sortBy: null,
    });
  });
});
