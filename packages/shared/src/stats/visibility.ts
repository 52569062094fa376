/**
 * Who sees which numbers: the one rule for every answer with stats (reports, report files, saved
 * reports, the dashboard, the numbers beside list rows, the postbid report) and for the console's
 * metric and dimension pickers. The server refuses a metric or dimension outside it with a 400
 * naming the field; the console does not offer it.
 *
 * - Admins see everything.
 * - The tenant's demand users (the owner and its team) see every metric of their tenant, the
 *   platform's fee (`systemCost`) only with showSystemCost, and every dimension but `tenant`.
 * - A subpublisher sees its own side: the traffic of its channels and what it earns. Its `revenue`
 *   is its payout (the stored `cost` of its rows: what the tenant pays for its impressions) and its
 *   eCPM is over that payout. The tenant's gross, cost, profit and margin and the demand side's
 *   counts are not its to see, nor the demand it is sold to (tags, partners, advertisers,
 *   campaigns...) unless its tenant shows it that demand (`tenantShowDemandToSubs`).
 * - An advertiser sees what it buys: its delivery, what it spends (`revenue`: what demand pays) and
 *   the demand counts of its tags and campaigns. Not the tenant's cost, profit or margin, nor the
 *   publishers' traffic, nor the supply it bought (channels, subpublishers, suppliers, ad exchanges,
 *   publisher ids) unless its tenant shows it that supply (`tenantShowSupplyToAdvs`).
 * - The tenant's choice adds names to break down and filter by, never a metric: the other side's
 *   money and counts stay out whatever the tenant chooses.
 * - SDK users see no numbers.
 */
import { type AuthUser, type UserType } from '../schemas/auth.js';
import { DIMENSION_BY_ID, DIMENSION_IDS, type DimensionId } from './dimensions.js';
import { METRIC_BY_ID, METRIC_IDS, type MetricId, type StatsSumColumn } from './metrics.js';

/**
 * What the rule reads of a user: its type, whether it was granted the platform's fee, and what its
 * tenant chose to show each side of the trade of the other (read for sub and adv users only; the
 * console's signed-in user carries them, the server reads them from the tenant's row).
 */
export type StatsViewer = Pick<AuthUser, 'type'> & {
  showSystemCost?: boolean | null;
  tenantShowDemandToSubs?: boolean | null;
  tenantShowSupplyToAdvs?: boolean | null;
};

/** How the type is named in a refusal: `'profit' is not available to subpublisher users`. */
const USER_TYPE_NAMES: Readonly<Record<UserType, string>> = {
  admin: 'admin',
  demand: 'demand',
  sub: 'subpublisher',
  adv: 'advertiser',
  sdk: 'SDK',
};

const VIDEO: readonly MetricId[] = ['starts', 'firstQuartiles', 'midpoints', 'thirdQuartiles', 'completes', 'vtr'];
const POSTBID: readonly MetricId[] = ['postbidImps', 'postbidIvt', 'postbidIvtRate'];
const PLACE: readonly DimensionId[] = [
  'date',
  'hour',
  'country',
  'region',
  'us_state',
  'device',
  'os',
  'browser',
  'app_bundle',
  'domain',
  'integration',
  'vast_error',
  'nofill_reason',
];
/** The names of the demand a request was sold to: an advertiser's own, shown to a subpublisher only by its tenant's choice. */
const DEMAND_NAMES: readonly DimensionId[] = [
  'advertiser',
  'tag',
  'partner',
  'campaign',
  'creative',
  'deal',
  'marketplace_name',
];
/**
 * The names of the supply an impression came from: shown to an advertiser only by its tenant's choice.
 * The A/B arm is the channel's: whoever may name the channel may name its arm.
 */
const SUPPLY_NAMES: readonly DimensionId[] = [
  'channel',
  'subpublisher',
  'arm',
  'supplier',
  'adexchange',
  'publisher_id',
];

/** The metrics of each type, in no order (the catalogue's order is kept when listing them). */
const METRICS_OF: Readonly<Record<UserType, ReadonlySet<MetricId>>> = {
  admin: new Set(METRIC_IDS),
  demand: new Set(METRIC_IDS),
  sub: new Set<MetricId>([
    'reqs',
    'opps',
    'ivt',
    'imps',
    ...VIDEO,
    'clicks',
    'ctr',
    'errors',
    ...POSTBID,
    'revenue',
    'ecpm',
    'fill',
  ]),
  adv: new Set<MetricId>([
    'source_reqs',
    'source_opps',
    'deal_reqs',
    'demandCalls',
    'responses',
    'timeouts',
    'bids',
    'wins',
    'sourceFill',
    'imps',
    ...VIDEO,
    'clicks',
    'ctr',
    'errors',
    ...POSTBID,
    'revenue',
    'ecpm',
  ]),
  sdk: new Set(),
};

const DIMENSIONS_OF: Readonly<Record<UserType, ReadonlySet<DimensionId>>> = {
  admin: new Set(DIMENSION_IDS),
  demand: new Set(DIMENSION_IDS.filter((id) => !('adminOnly' in DIMENSION_BY_ID[id] && DIMENSION_BY_ID[id].adminOnly))),
  sub: new Set<DimensionId>([...PLACE, 'channel', 'subpublisher', 'arm', 'publisher_id']),
  adv: new Set<DimensionId>([...PLACE, ...DEMAND_NAMES]),
  sdk: new Set(),
};

/** The other side's names a sub or adv user may add by its tenant's choice (none for the others). */
function otherSideShown(viewer: StatsViewer): readonly DimensionId[] {
  if (viewer.type === 'sub' && viewer.tenantShowDemandToSubs) return DEMAND_NAMES;
  if (viewer.type === 'adv' && viewer.tenantShowSupplyToAdvs) return SUPPLY_NAMES;
  return [];
}

/** Why `viewer` may not see metric `id`, or null when it may. */
function metricRefusal(viewer: StatsViewer, id: MetricId): string | null {
  if (!METRICS_OF[viewer.type].has(id)) return `'${id}' is not available to ${USER_TYPE_NAMES[viewer.type]} users`;
  if (id === 'systemCost' && viewer.type !== 'admin' && !viewer.showSystemCost)
    return "'systemCost' is shown only to admins and users with showSystemCost";
  return null;
}

/** Why `viewer` may not break down or filter by dimension `id`, or null when it may. */
function dimensionRefusal(viewer: StatsViewer, id: DimensionId): string | null {
  if (DIMENSIONS_OF[viewer.type].has(id) || otherSideShown(viewer).includes(id)) return null;
  const def = DIMENSION_BY_ID[id];
  if ('adminOnly' in def && def.adminOnly && viewer.type !== 'sdk') return `'${id}' is for admins only`;
  if (viewer.type === 'sub' && DEMAND_NAMES.includes(id))
    return `'${id}' is not available to subpublisher users unless their demand account shows them the demand`;
  if (viewer.type === 'adv' && SUPPLY_NAMES.includes(id))
    return `'${id}' is not available to advertiser users unless their demand account shows them the supply`;
  return `'${id}' is not available to ${USER_TYPE_NAMES[viewer.type]} users`;
}

export const isMetricVisible = (viewer: StatsViewer, id: MetricId): boolean => metricRefusal(viewer, id) === null;
export const isDimensionVisible = (viewer: StatsViewer, id: DimensionId): boolean =>
  dimensionRefusal(viewer, id) === null;

/** The metrics `viewer` may see, in the catalogue's order. */
export const visibleMetrics = (viewer: StatsViewer): MetricId[] =>
  METRIC_IDS.filter((id) => isMetricVisible(viewer, id));
/** The dimensions `viewer` may break down and filter by, in the catalogue's order. */
export const visibleDimensions = (viewer: StatsViewer): DimensionId[] =>
  DIMENSION_IDS.filter((id) => isDimensionVisible(viewer, id));

/**
 * The stored column `viewer`'s `revenue` is summed from (and the eCPM over it): a subpublisher's is
 * its payout, the `cost` of its rows; everyone else's is what demand paid.
 */
export const revenueColumnFor = (viewer: StatsViewer): Extract<StatsSumColumn, 'revenue' | 'cost'> =>
  viewer.type === 'sub' ? 'cost' : 'revenue';

/** How a metric reads for a type where it means something narrower than the catalogue says. */
const WORDS_OF: Partial<Record<UserType, Partial<Record<MetricId, { label: string; formula: string }>>>> = {
  sub: {
    revenue: { label: 'Revenue', formula: 'what your channels earned: your payout for their impressions' },
    ecpm: { label: 'eCPM', formula: 'revenue (your payout) / imps x 1000' },
  },
  adv: {
    revenue: { label: 'Spend', formula: 'what you paid for the impressions you won' },
    ecpm: { label: 'eCPM', formula: 'spend / imps x 1000' },
  },
};

/** A metric's name and formula as `viewer` reads them (a subpublisher's revenue is its payout, an advertiser's its spend). */
export function metricWordsFor(viewer: StatsViewer, id: MetricId): { label: string; formula: string } {
  return WORDS_OF[viewer.type]?.[id] ?? { label: METRIC_BY_ID[id].label, formula: METRIC_BY_ID[id].formula };
}

/** The report fields `viewer` may not run: `[path, reason]` of each metric, dimension and filter outside its rule. */
export function reportRefusals(
  viewer: StatsViewer,
  report: {
    metrics: readonly MetricId[];
    dimensions: readonly DimensionId[];
    filters: Readonly<Record<string, unknown>>;
  },
): [string, string][] {
  const out: [string, string][] = [];
  report.dimensions.forEach((id, i) => {
    const why = dimensionRefusal(viewer, id);
    if (why) out.push([`dimensions.${i}`, why]);
  });
  report.metrics.forEach((id, i) => {
    const why = metricRefusal(viewer, id);
    if (why) out.push([`metrics.${i}`, why]);
  });
  for (const key of Object.keys(report.filters)) {
    const why = Object.hasOwn(DIMENSION_BY_ID, key) ? dimensionRefusal(viewer, key as DimensionId) : null;
    if (why) out.push([`filters.${key}`, why]);
  }
  return out;
}
