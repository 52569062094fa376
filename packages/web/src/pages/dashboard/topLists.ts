import { type DashboardAnswer, type Mode, type ReportRequestInput, type ReportRow, type UserType } from '@adplane/shared';

/** The entity a top list ranks: SSP channels and demand tags, DSP campaigns and suppliers. */
export type TopDimension = 'channel' | 'tag' | 'campaign' | 'supplier';

export interface TopList {
  dimension: TopDimension;
  title: string;
  /** The third number beside revenue and impressions: a source's fill, a campaign's eCPM. */
  third: 'fill' | 'ecpm';
  revenueLabel: string;
  testId: string;
  /** Where the rows come from: the dashboard answer (GET /api/dashboard), else a report of the week. */
  fromAnswer?: 'topChannels' | 'topDemand' | 'topCampaigns';
}

const WEEK = 'last 7 days';

/**
 * The top lists of the dashboard, in the words of the view (spec sections 1 and 2): in the SSP view
 * the tenant sells its channels' traffic to demand tags; in the DSP view it buys for its campaigns
 * from suppliers (the Demand and Supply menus of that view). A subpublisher sees its own channels,
 * an advertiser its campaigns and tags; neither has a DSP view.
 */
export function topListsFor(type: UserType, mode: Mode): TopList[] {
  if (type === 'sub') {
    return [{ dimension: 'channel', title: `Your channels, ${WEEK}`, third: 'fill', revenueLabel: 'Revenue', testId: 'dashboard-top-channels', fromAnswer: 'topChannels' }];
  }
  if (type === 'adv') {
    return [
      { dimension: 'campaign', title: `Your campaigns, ${WEEK}`, third: 'ecpm', revenueLabel: 'Spend', testId: 'dashboard-top-campaigns', fromAnswer: 'topCampaigns' },
      { dimension: 'tag', title: `Your demand tags, ${WEEK}`, third: 'fill', revenueLabel: 'Spend', testId: 'dashboard-top-demand', fromAnswer: 'topDemand' },
    ];
  }
  if (mode === 'dsp') {
    return [
      { dimension: 'campaign', title: `Top campaigns, ${WEEK}`, third: 'ecpm', revenueLabel: 'Revenue', testId: 'dashboard-top-campaigns' },
      { dimension: 'supplier', title: `Top suppliers, ${WEEK}`, third: 'fill', revenueLabel: 'Revenue', testId: 'dashboard-top-suppliers' },
    ];
  }
  return [
    { dimension: 'channel', title: `Top channels, ${WEEK}`, third: 'fill', revenueLabel: 'Revenue', testId: 'dashboard-top-channels', fromAnswer: 'topChannels' },
    { dimension: 'tag', title: `Top demand tags, ${WEEK}`, third: 'fill', revenueLabel: 'Revenue', testId: 'dashboard-top-demand', fromAnswer: 'topDemand' },
  ];
}

/** How many rows a top list shows. */
export const TOP_ROWS = 5;

/**
 * The report behind a list the dashboard answer does not carry (the DSP view's): the week the answer
 * covers, by revenue, one row more than shown since rows without the entity are left out.
 */
export function topListRequest(list: TopList, answer: Pick<DashboardAnswer, 'weekStart' | 'today' | 'timezone'>): ReportRequestInput {
  return {
    startDate: answer.weekStart,
    endDate: answer.today,
    timezone: answer.timezone,
    dimensions: [list.dimension],
    metrics: ['revenue', 'imps', list.third],
    sort: { by: 'revenue', order: 'desc' },
    limit: TOP_ROWS + 1,
  };
}

/** A report's rows as a top list: no totals row, no row without the entity (id 0), at most TOP_ROWS. */
export function topRows(rows: readonly ReportRow[], dimension: TopDimension): ReportRow[] {
  return rows.filter((r) => !r.total && Number(r[dimension]) > 0).slice(0, TOP_ROWS);
}
