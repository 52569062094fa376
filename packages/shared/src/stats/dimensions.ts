/**
 * The dimension catalogue of reports: what a report can be broken down and filtered by, the hourly
 * stats column behind it, and who may use it. `date` and `hour` are the UTC hour shifted by the
 * user's offset; entity dimensions hold ids whose names the server adds from the config store.
 */
type DimensionType = 'time' | 'entity' | 'text';

export interface DimensionDef {
  id: string;
  label: string;
  /** The hourly stats column (time dimensions derive from `hour`). */
  column: string;
  type: DimensionType;
  /** For entity dimensions: the resource kind whose name is shown beside the id. */
  entityKind?: string;
  /** Only admins break down by it (a tenant sees only its own rows anyway). */
  adminOnly?: boolean;
}

const entity = (id: string, label: string, column: string, entityKind: string): DimensionDef => ({
  id,
  label,
  column,
  type: 'entity',
  entityKind,
});
const text = (id: string, label: string, column = id): DimensionDef => ({ id, label, column, type: 'text' });

export const DIMENSIONS = [
  { id: 'date', label: 'Date', column: 'hour', type: 'time' },
  { id: 'hour', label: 'Hour', column: 'hour', type: 'time' },
  { id: 'tenant', label: 'Demand', column: 'tenant_id', type: 'entity', entityKind: 'demands', adminOnly: true },
  entity('channel', 'Channel', 'channel_id', 'channels'),
  entity('subpublisher', 'Subpublisher', 'subpublisher_id', 'subs'),
  // the arm of a channel's A/B split that served the request: 'A' or 'B', '' on a channel without a split
  text('arm', 'A/B arm'),
  entity('tag', 'Demand Tag', 'tag_id', 'tags'),
  text('partner', 'Partner'),
  entity('advertiser', 'Advertiser', 'advertiser_id', 'advs'),
  entity('campaign', 'Campaign', 'campaign_id', 'campaigns'),
  entity('creative', 'Creative', 'creative_id', 'creatives'),
  entity('supplier', 'Supplier', 'supplier_id', 'sups'),
  entity('adexchange', 'Ad Exchange', 'adexchange_id', 'adexchanges'),
  text('deal', 'Deal', 'deal_id'),
  text('marketplace_name', 'Marketplace'),
  text('country', 'Country'),
  text('region', 'Region'),
  text('us_state', 'US State'),
  text('device', 'Device'),
  text('os', 'OS'),
  text('browser', 'Browser'),
  text('app_bundle', 'App Bundle'),
  text('domain', 'Domain'),
  text('publisher_id', 'Publisher Id'),
  text('integration', 'Integration'),
  text('vast_error', 'VAST Error'),
  text('nofill_reason', 'No-fill Reason'),
] as const satisfies readonly DimensionDef[];

export type DimensionId = (typeof DIMENSIONS)[number]['id'];
export const DIMENSION_IDS = DIMENSIONS.map((d) => d.id) as [DimensionId, ...DimensionId[]];
export const DIMENSION_BY_ID: Readonly<Record<DimensionId, DimensionDef>> = Object.fromEntries(
  DIMENSIONS.map((d) => [d.id, d]),
) as Record<DimensionId, DimensionDef>;
export const isDimensionId = (id: string): id is DimensionId => Object.hasOwn(DIMENSION_BY_ID, id);

/**
 * The dimensions of the demand a request was offered to. A report by one of them (or filtered by one)
 * is a report of demand: each demand row counts its own requests and opportunities (a demand tag's `source_reqs` and
 * `source_opps`: the times it was considered and called), and the requests offered to no demand at
 * all are one row of their own, NO_DEMAND (docs/reports.md, "Requests and fill by scope").
 */
export const DEMAND_DIMENSIONS = [
  'tag',
  'partner',
  'advertiser',
  'campaign',
  'creative',
  'adexchange',
  'deal',
  'marketplace_name',
] as const satisfies readonly DimensionId[];
const DEMAND_SET: ReadonlySet<string> = new Set(DEMAND_DIMENSIONS);
export const isDemandDimension = (id: DimensionId): boolean => DEMAND_SET.has(id);
/** Whether a report broken down by `dimensions` is one of demand (a demand dimension is one of them; a filter on one makes it one too). */
export const isDemandReport = (dimensions: readonly DimensionId[]): boolean => dimensions.some(isDemandDimension);

/**
 * In a report of demand, the id its entity demand dimensions (tag, advertiser, campaign, creative,
 * ad exchange) answer for the requests that were offered to no demand source, and the name shown.
 */
export const NO_DEMAND_ID = -1;
export const NO_DEMAND_NAME = 'No demand called';

/** The field of a report row that carries an entity dimension's name: `channel` -> `channel_name`. */
export const nameField = (id: DimensionId) => `${id}_name`;
