import {
  DASHBOARD_TOP_FIELD,
  type DashboardAnswer,
  type DashboardTop,
  dashboardTopMetrics,
  dashboardTopsFor,
  type Mode,
  type ReportRow,
  type UserType,
} from '@adplane/shared';

export interface TopList {
  /** The entity the list ranks: SSP channels and demand tags, DSP campaigns and suppliers. */
  dimension: DashboardTop;
  title: string;
  /** The third number beside revenue and impressions: a source's fill, a campaign's eCPM. */
  third: 'fill' | 'ecpm';
  revenueLabel: string;
  testId: string;
}

const WEEK = 'last 7 days';

const NAMES: Record<DashboardTop, { top: string; own: string; testId: string }> = {
  channel: { top: 'Top channels', own: 'Your channels', testId: 'dashboard-top-channels' },
  tag: { top: 'Top demand tags', own: 'Your demand tags', testId: 'dashboard-top-demand' },
  campaign: { top: 'Top campaigns', own: 'Your campaigns', testId: 'dashboard-top-campaigns' },
  supplier: { top: 'Top suppliers', own: 'Your suppliers', testId: 'dashboard-top-suppliers' },
};

/**
 * The top lists of the dashboard, in the words of the view: in the SSP view
 * the tenant sells its channels' traffic to demand tags; in the DSP view it buys for its campaigns
 * from suppliers (the Demand and Supply menus of that view). A subpublisher sees its own channels,
 * an advertiser its campaigns and tags; neither has a DSP view. Which lists is the server's rule
 * (dashboardTopsFor), so the page shows exactly the lists GET /api/dashboard fills.
 */
export function topListsFor(type: UserType, mode: Mode): TopList[] {
  const own = type === 'sub' || type === 'adv';
  return dashboardTopsFor(type, mode).map((dimension) => ({
    dimension,
    title: `${own ? NAMES[dimension].own : NAMES[dimension].top}, ${WEEK}`,
    third: dashboardTopMetrics({ type }, dimension)[2],
    revenueLabel: type === 'adv' ? 'Spend' : 'Revenue',
    testId: NAMES[dimension].testId,
  }));
}

/** A list's rows in the dashboard answer. */
export const topRowsOf = (answer: DashboardAnswer, list: TopList): ReportRow[] =>
  answer[DASHBOARD_TOP_FIELD[list.dimension]];
