import { describe, expect, it } from 'vitest';
import { type DashboardAnswer, dashboardTopsFor, USER_TYPES } from '@adplane/shared';
import { topListsFor, topRowsOf } from './topLists.js';

const titles = (type: Parameters<typeof topListsFor>[0], mode: Parameters<typeof topListsFor>[1]) =>
  topListsFor(type, mode).map((l) => l.title);

describe('the dashboard top lists, in the words of the view', () => {
  it('SSP: channels and demand tags', () => {
    expect(titles('demand', 'ssp')).toEqual(['Top channels, last 7 days', 'Top demand tags, last 7 days']);
    expect(topListsFor('admin', 'ssp').map((l) => l.testId)).toEqual([
      'dashboard-top-channels',
      'dashboard-top-demand',
    ]);
  });

  it('DSP: campaigns (with eCPM) and suppliers (with fill), never channels or demand tags', () => {
    for (const type of ['demand', 'admin'] as const) {
      const lists = topListsFor(type, 'dsp');
      expect(lists.map((l) => l.title)).toEqual(['Top campaigns, last 7 days', 'Top suppliers, last 7 days']);
      expect(lists.map((l) => l.dimension)).toEqual(['campaign', 'supplier']);
      expect(lists.map((l) => l.third)).toEqual(['ecpm', 'fill']);
      expect(lists.map((l) => l.testId)).toEqual(['dashboard-top-campaigns', 'dashboard-top-suppliers']);
      expect(lists.some((l) => /channel|demand tag/i.test(l.title))).toBe(false);
    }
  });

  it("a subpublisher's and an advertiser's own lists, whatever the stored view", () => {
    for (const mode of ['ssp', 'dsp'] as const) {
      expect(titles('sub', mode)).toEqual(['Your channels, last 7 days']);
      expect(titles('adv', mode)).toEqual(['Your campaigns, last 7 days', 'Your demand tags, last 7 days']);
    }
    expect(topListsFor('adv', 'ssp').map((l) => l.revenueLabel)).toEqual(['Spend', 'Spend']);
  });

  it('shows exactly the lists the server fills for the role and view (the shared dashboardTopsFor)', () => {
    for (const type of USER_TYPES) {
      for (const mode of ['ssp', 'dsp'] as const)
        expect(
          topListsFor(type, mode).map((l) => l.dimension),
          `${type} ${mode}`,
        ).toEqual(dashboardTopsFor(type, mode));
    }
  });

  it('reads each list from its field of the answer', () => {
    const answer = {
      topChannels: [{ channel: 1 }],
      topDemand: [{ tag: 2 }],
      topCampaigns: [{ campaign: 3 }],
      topSuppliers: [{ supplier: 4 }],
    } as unknown as DashboardAnswer;
    expect(topListsFor('demand', 'dsp').map((l) => topRowsOf(answer, l))).toEqual([
      [{ campaign: 3 }],
      [{ supplier: 4 }],
    ]);
    expect(topListsFor('demand', 'ssp').map((l) => topRowsOf(answer, l))).toEqual([[{ channel: 1 }], [{ tag: 2 }]]);
  });
});
