/**
 * The metric catalogue of reports (docs/reports.md, "Metrics"): every number a report, the
 * dashboard or finance shows is defined here once, with its formula and its format. The server turns
 * `compute` into SQL (one builder, two dialects); the console formats with `format`.
 *
 * Units in the API: counts are whole numbers; money ('usd') is integer micro-dollars (eCPM too: micro-
 * dollars per 1,000 impressions); percents are numbers of percent (12.5 means 12.50%).
 */
import { csvNumber } from '../csv.js';
import { formatPercent, formatUsdMicros } from '../format.js';

/** Columns of the hourly stats row that reports sum (packages/server/src/stats/hourlyRow.ts). */
export const STATS_SUM_COLUMNS = [
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
  'source_reqs',
  'source_opps',
  'postbid_ivt',
  'deal_reqs',
] as const;
export type StatsSumColumn = (typeof STATS_SUM_COLUMNS)[number];

type MetricFormat = 'count' | 'usd' | 'percent';

/** How a metric is computed from summed columns; ratios are over the sums, so totals stay right. */
export type MetricCompute =
  | { kind: 'sum'; column: StatsSumColumn }
  | { kind: 'difference'; minuend: StatsSumColumn; subtrahend: StatsSumColumn }
  | { kind: 'ratio'; numerator: StatsSumColumn | 'profit'; denominator: StatsSumColumn; scale: number }
  /** The platform's fee, from the tenant's prices (see `systemCost` below). */
  | { kind: 'systemCost' };

export interface MetricDef {
  id: string;
  label: string;
  format: MetricFormat;
  /** The formula in words, shown as the column's tooltip and in docs/reports.md. */
  formula: string;
  compute: MetricCompute;
}

const sum = (
  id: string,
  label: string,
  formula: string,
  column: StatsSumColumn,
  format: MetricFormat = 'count',
): MetricDef => ({
  id,
  label,
  format,
  formula,
  compute: { kind: 'sum', column },
});

export const METRICS = [
  sum(
    'reqs',
    'Requests',
    'ad requests received: tag calls, bid requests, header-bidding requests. In a report by or filtered by a demand dimension (demand tag, partner, advertiser, campaign, creative, ad exchange, deal, marketplace): on a demand row, the times it was considered for a request (Demand Requests); on the "No demand called" row, the requests offered to no demand source',
    'reqs',
  ),
  sum(
    'opps',
    'Opportunities',
    'requests (each slot of an ad pod) that passed validation and IVT filtering and were offered to at least one demand source. In a report by or filtered by a demand dimension: on a demand row, the times it was called (Demand Opportunities); none on the "No demand called" row',
    'opps',
  ),
  sum(
    'source_reqs',
    'Demand Requests',
    'times a demand tag was considered for a request: offered it, refused it by its own rules or caps, or not reached in a waterfall',
    'source_reqs',
  ),
  sum(
    'source_opps',
    'Demand Opportunities',
    'times a demand tag passed its own rules and caps and was offered the request (called)',
    'source_opps',
  ),
  sum(
    'deal_reqs',
    'Deal Requests',
    "bid requests that offered a supply deal: each call of a demand tag whose imp.pmp carried it, counted on the tag's row under the deal (a call offering two deals counts once for each)",
    'deal_reqs',
  ),
  sum('demandCalls', 'Demand Calls', 'calls made to demand sources', 'demand_calls'),
  sum('responses', 'Responses', 'answers received from demand sources', 'responses'),
  sum('timeouts', 'Timeouts', 'demand calls that missed the deadline', 'timeouts'),
  sum('bids', 'Bids', 'answers with a price from demand', 'bids'),
  sum('wins', 'Wins', 'bids that won our auction', 'wins'),
  sum('imps', 'Impressions', 'impression events, each counted once', 'imps'),
  sum('starts', 'Starts', 'video start events', 'starts'),
  sum('firstQuartiles', 'First Quartile', 'video firstQuartile events', 'first_quartiles'),
  sum('midpoints', 'Mid Point', 'video midpoint events', 'midpoints'),
  sum('thirdQuartiles', 'Third Quartile', 'video thirdQuartile events', 'third_quartiles'),
  sum('completes', 'Complete', 'video complete events', 'completes'),
  sum('clicks', 'Clicks', 'click events', 'clicks'),
  sum('errors', 'Errors', 'VAST errors and failed requests counted by the edge', 'errors'),
  sum('ivt', 'IVT', 'requests flagged as invalid traffic', 'ivt'),
  sum('postbidImps', 'Post-bid Impressions', 'impressions scanned by post-bid pixels', 'postbid_imps'),
  sum('postbidIvt', 'Post-bid IVT', "post-bid impressions a pixel's vendor reported as invalid traffic", 'postbid_ivt'),
  {
    id: 'postbidIvtRate',
    label: 'Post-bid IVT Rate',
    format: 'percent',
    formula: 'postbid_ivt / postbid_imps x 100: the share of scanned impressions the vendors flagged',
    compute: { kind: 'ratio', numerator: 'postbid_ivt', denominator: 'postbid_imps', scale: 100 },
  },
  sum('revenue', 'Revenue', 'what demand pays for the impressions it won', 'revenue', 'usd'),
  sum('cost', 'Cost', 'what the tenant pays its publishers', 'cost', 'usd'),
  {
    id: 'profit',
    label: 'Profit',
    format: 'usd',
    formula: 'revenue - cost',
    compute: { kind: 'difference', minuend: 'revenue', subtrahend: 'cost' },
  },
  {
    id: 'margin',
    label: 'Margin',
    format: 'percent',
    formula: 'profit / revenue x 100',
    compute: { kind: 'ratio', numerator: 'profit', denominator: 'revenue', scale: 100 },
  },
  {
    id: 'ecpm',
    label: 'eCPM',
    format: 'usd',
    formula: 'revenue / imps x 1000',
    compute: { kind: 'ratio', numerator: 'revenue', denominator: 'imps', scale: 1000 },
  },
  {
    id: 'fill',
    label: 'Fill',
    format: 'percent',
    formula:
      "imps / opps x 100. Per request (reports neither by nor filtered by a demand dimension; the channels, subpublishers and suppliers lists; the dashboard's cards): impressions over the requests offered to demand. Per demand (a report by or filtered by a demand dimension; the demand tags, ad exchanges and advertisers lists): impressions over the times that demand was called (imps / source_opps)",
    compute: { kind: 'ratio', numerator: 'imps', denominator: 'opps', scale: 100 },
  },
  {
    id: 'sourceFill',
    label: 'Demand Fill',
    format: 'percent',
    formula:
      'imps / source_opps x 100: impressions over the times a demand source was called (the Fill of a demand row in a report by a demand dimension)',
    compute: { kind: 'ratio', numerator: 'imps', denominator: 'source_opps', scale: 100 },
  },
  {
    id: 'vtr',
    label: 'VTR',
    format: 'percent',
    formula: 'completes / imps x 100',
    compute: { kind: 'ratio', numerator: 'completes', denominator: 'imps', scale: 100 },
  },
  {
    id: 'ctr',
    label: 'CTR',
    format: 'percent',
    formula: 'clicks / imps x 100',
    compute: { kind: 'ratio', numerator: 'clicks', denominator: 'imps', scale: 100 },
  },
  sum(
    'rev_m',
    'Marketplace Revenue',
    'revenue from programmatic demand (ad exchanges, RTB and header-bidding partners)',
    'rev_m',
    'usd',
  ),
  sum('rev_md', 'Marketplace Deal Revenue', 'marketplace revenue that came through deals (PMP)', 'rev_md', 'usd'),
  {
    id: 'systemCost',
    label: 'System Cost',
    format: 'usd',
    formula:
      "the tenant's priceReq per 1,000 reqs + priceImp per 1,000 imps + priceDsp percent of DSP (campaign) revenue + pricePostbid per 1,000 post-bid impressions",
    compute: { kind: 'systemCost' },
  },
] as const satisfies readonly MetricDef[];

export type MetricId = (typeof METRICS)[number]['id'];
export const METRIC_IDS = METRICS.map((m) => m.id) as [MetricId, ...MetricId[]];
export const METRIC_BY_ID: Readonly<Record<MetricId, MetricDef>> = Object.fromEntries(
  METRICS.map((m) => [m.id, m]),
) as Record<MetricId, MetricDef>;

export const isMetricId = (id: string): id is MetricId => Object.hasOwn(METRIC_BY_ID, id);

/** A metric's value as people read it: `$1,234.50`, `12.35%`, `1,234`. */
export function formatMetric(id: MetricId, value: number | null | undefined): string {
  const v = value ?? 0;
  switch (METRIC_BY_ID[id].format) {
    case 'usd':
      return formatUsdMicros(v);
    case 'percent':
      return formatPercent(v);
    default:
      return Math.round(v).toLocaleString('en-US');
  }
}

/** A metric's value for a CSV cell, a number: dollars with 2 decimals, percent with 2 decimals, counts whole. */
export function metricCsvValue(id: MetricId, value: number | null | undefined): string {
  const v = value ?? 0;
  switch (METRIC_BY_ID[id].format) {
    case 'usd':
      return csvNumber(v / 1_000_000, 2);
    case 'percent':
      return csvNumber(v, 2);
    default:
      return csvNumber(Math.round(v));
  }
}

/**
 * A metric from summed columns, by the same formula the report SQL runs (for answers assembled from
 * finer rows, e.g. the dashboard's totals from its hourly rows). A money ratio (eCPM) is rounded to whole
 * micro-dollars. Not for the system cost.
 */
export function metricFromSums(id: MetricId, sums: Partial<Record<StatsSumColumn, number>>): number {
  const compute = METRIC_BY_ID[id].compute;
  const v = (c: StatsSumColumn) => sums[c] ?? 0;
  switch (compute.kind) {
    case 'sum':
      return v(compute.column);
    case 'difference':
      return v(compute.minuend) - v(compute.subtrahend);
    case 'ratio': {
      const numerator = compute.numerator === 'profit' ? v('revenue') - v('cost') : v(compute.numerator);
      if (v(compute.denominator) === 0) return 0;
      const ratio = (numerator * compute.scale) / v(compute.denominator);
      // Money stays whole micro-dollars (an eCPM of 2.3456789 USD is 2,345,679), as every stored amount is.
      return METRIC_BY_ID[id].format === 'usd' ? Math.round(ratio) : ratio;
    }
    case 'systemCost':
      throw new Error('The system cost needs the tenant prices: run it as a report');
  }
}

/**
 * The tenant's prices for the system cost, as stored on the demand account: micro-dollars per 1,000
 * requests / impressions / post-bid impressions, and a percent of DSP revenue.
 */
export interface SystemPrices {
  priceReq: number;
  priceImp: number;
  pricePostbid: number;
  priceDsp: number;
}

/** The system cost in micro-dollars of summed counts, the same formula the report SQL runs. */
export function systemCostMicros(
  p: SystemPrices,
  s: { reqs: number; imps: number; postbidImps: number; dspRevenue: number },
): number {
  return (
    (p.priceReq * s.reqs + p.priceImp * s.imps + p.pricePostbid * s.postbidImps) / 1000 +
    (s.dspRevenue * p.priceDsp) / 100
  );
}
