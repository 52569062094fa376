import { type StatsSumColumn } from '@adplane/shared';

/**
 * The one row the edge's counters hand to the stats plane: sums for one UTC hour and one
 * combination of dimensions. The edge aggregates in memory and flushes these in batches; a stats
 * store (DuckDB by default, ClickHouse when CLICKHOUSE_URL is set) appends them, and reports sum them.
 *
 * Dimension columns hold '' (text) or 0 (ids) when they do not apply, never null, so that a
 * GROUP BY on any engine treats "none" as one value. Money is integer micro-dollars.
 */
export interface HourlyDimensions {
  /** UTC hour bucket, 'YYYY-MM-DD HH:00:00'. */
  hour: string;
  tenant_id: number;
  channel_id: number;
  subpublisher_id: number;
  tag_id: number;
  /** Prebid partner code of a PreBid demand tag. */
  partner: string;
  advertiser_id: number;
  campaign_id: number;
  creative_id: number;
  supplier_id: number;
  adexchange_id: number;
  /** The deal's id string (OpenRTB dealid), '' outside deals. */
  deal_id: string;
  /** Name of the programmatic source (ad exchange, RTB or Prebid partner) for marketplace revenue. */
  marketplace_name: string;
  country: string;
  region: string;
  us_state: string;
  device: string;
  os: string;
  browser: string;
  app_bundle: string;
  domain: string;
  publisher_id: string;
  /** VAST, RTB or PreBid. */
  integration: string;
  /** VAST error code (100..999) as text, '' when none. */
  vast_error: string;
  /** Why a demand source did not fill (a reason id of the edge's catalogue), '' when it filled. */
  nofill_reason: string;
  /** The arm of the channel's A/B split that served the request ('A' or 'B'), '' on a channel without a split. */
  arm: string;
}

export interface HourlyMetrics {
  reqs: number;
  opps: number;
  demand_calls: number;
  responses: number;
  timeouts: number;
  bids: number;
  wins: number;
  imps: number;
  starts: number;
  first_quartiles: number;
  midpoints: number;
  third_quartiles: number;
  completes: number;
  clicks: number;
  errors: number;
  ivt: number;
  postbid_imps: number;
  /** Micro-dollars: what demand pays for won impressions. */
  revenue: number;
  /** Micro-dollars: what the tenant pays its publishers. */
  cost: number;
  /** Micro-dollars: revenue from programmatic (marketplace) demand, and of that, through deals. */
  rev_m: number;
  rev_md: number;
  /**
   * On a demand tag's row: times the tag was considered for a request (offered it, refused it by its
   * own rules or caps, or not reached in a waterfall), with the no-fill reason when it did not fill.
   */
  source_reqs: number;
  /** On a demand tag's row: times the tag passed its own rules and caps and was offered the request (called). */
  source_opps: number;
  /** Post-bid impressions a pixel's vendor reported as invalid traffic (its postback, edge/postbid/), on the impression's dimensions. */
  postbid_ivt: number;
  /**
   * On a demand tag's row under a supply deal's id: its calls whose bid request offered that deal
   * (imp.pmp), one per deal offered, so a call offering two deals adds one to each deal and nothing
   * to the tag's own requests.
   */
  deal_reqs: number;
}

export type HourlyRow = HourlyDimensions & HourlyMetrics;

/** True when A and B are the same union (for the compile-time checks below). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The dimension columns in table order. Migrations name the columns they add, as the metrics' do:
 * 0001 made the first list, 0006 added the A/B arm at the end of the table.
 */
export const DIMENSION_COLUMNS_0001 = [
  'hour',
  'tenant_id',
  'channel_id',
  'subpublisher_id',
  'tag_id',
  'partner',
  'advertiser_id',
  'campaign_id',
  'creative_id',
  'supplier_id',
  'adexchange_id',
  'deal_id',
  'marketplace_name',
  'country',
  'region',
  'us_state',
  'device',
  'os',
  'browser',
  'app_bundle',
  'domain',
  'publisher_id',
  'integration',
  'vast_error',
  'nofill_reason',
] as const satisfies readonly (keyof HourlyDimensions)[];
const DIMENSION_COLUMNS_0006 = ['arm'] as const satisfies readonly (keyof HourlyDimensions)[];

export const DIMENSION_COLUMNS = [
  ...DIMENSION_COLUMNS_0001,
  ...DIMENSION_COLUMNS_0006,
] as const satisfies readonly (keyof HourlyDimensions)[];
// Compile-time: every dimension of the row is a column
const dimensionsInStep: Same<keyof HourlyDimensions, (typeof DIMENSION_COLUMNS)[number]> = true;
void dimensionsInStep;

/** The dimension columns that hold numeric ids (0 when none); every other one but `hour` holds text ('' when none). */
const ID_DIMENSIONS = [
  'tenant_id',
  'channel_id',
  'subpublisher_id',
  'tag_id',
  'advertiser_id',
  'campaign_id',
  'creative_id',
  'supplier_id',
  'adexchange_id',
] as const satisfies readonly (keyof HourlyDimensions)[];
type NumericDimension = {
  [K in keyof HourlyDimensions]: HourlyDimensions[K] extends number ? K : never;
}[keyof HourlyDimensions];
// Compile-time: exactly the numeric dimensions are listed
const idsInStep: Same<NumericDimension, (typeof ID_DIMENSIONS)[number]> = true;
void idsInStep;
const ID_SET: ReadonlySet<string> = new Set(ID_DIMENSIONS);
export const isIdDimension = (column: string): boolean => ID_SET.has(column);

/**
 * The metric columns in table order. Migrations name the columns they add (a migration that has
 * shipped never changes): 0001 created the first list, 0003 added the demand tags' requests and
 * opportunities at the end, 0004 the post-bid IVT verdicts, 0007 supply deals' requests (the DuckDB
 * appender writes in table order).
 */
export const METRIC_COLUMNS_0001 = [
  'reqs',
  'opps',
  'demand_calls',
  'responses',
  'timeouts',
  'bids',
  'wins',
  'imps',
  'starts',
  'first_quartiles',
  'midpoints',
  'third_quartiles',
  'completes',
  'clicks',
  'errors',
  'ivt',
  'postbid_imps',
  'revenue',
  'cost',
  'rev_m',
  'rev_md',
] as const satisfies readonly (keyof HourlyMetrics)[];
export const METRIC_COLUMNS_0003 = ['source_reqs', 'source_opps'] as const satisfies readonly (keyof HourlyMetrics)[];
export const METRIC_COLUMNS_0004 = ['postbid_ivt'] as const satisfies readonly (keyof HourlyMetrics)[];
export const METRIC_COLUMNS_0007 = ['deal_reqs'] as const satisfies readonly (keyof HourlyMetrics)[];

export const METRIC_COLUMNS = [
  ...METRIC_COLUMNS_0001,
  ...METRIC_COLUMNS_0003,
  ...METRIC_COLUMNS_0004,
  ...METRIC_COLUMNS_0007,
] as const satisfies readonly (keyof HourlyMetrics)[];

// Compile-time: every metric of the row is a column, and the catalogue of reports sums exactly these.
const inStep: Same<keyof HourlyMetrics, (typeof METRIC_COLUMNS)[number]> &
  Same<StatsSumColumn, (typeof METRIC_COLUMNS)[number]> = true;
void inStep;

/**
 * A batch of rows handed to a stats store: an array, or rows made one at a time as the store reads
 * them (the edge's counters: each row object lives only while the store encodes it, so a flush does
 * not fill V8's old generation with thousands of row objects). A store reads a batch once.
 */
export type HourlyRows = Iterable<HourlyRow> & { readonly length: number };

/**
 * A flush of the edge's counters as flat numbers (stats/counterTable.ts has the layout): row r's key
 * is keys[r * KEY_WIDTH ..], its sums sums[r * METRICS ..], its text columns indexes into `text`.
 */
export interface CounterTable {
  readonly rows: number;
  readonly keys: Float64Array;
  readonly sums: Float64Array;
  /** The text of each index the keys hold; the counters only append to it (a new list starts a new array). */
  readonly text: readonly string[];
}

/** Where the edge's counters go: a stats store appends the rows (in one batch, or fails whole). */
export interface StatsSink {
  write(rows: HourlyRows): Promise<void>;
  /**
   * Appends a flush handed over as its arrays, whole or not at all, the rows made and encoded
   * where the store runs (the DuckDB store's thread): the caller's arrays are copied, never kept.
   */
  writeTable?(table: CounterTable): Promise<void>;
}
