/**
 * Numbers beside every row of a list (GET /api/rowStats): for one kind of row and a period of the
 * user's own days, each row's key metrics, computed by the report engine from the catalogue's
 * formulas (one grouped query per list). The console loads them after the rows, so a list shows first.
 */
import { z } from 'zod';
import { type ResourceKind } from '../kinds/kindDef.js';
import { presetRange } from './datePresets.js';
import { type DimensionId } from './dimensions.js';
import { type MetricId } from './metrics.js';
import { idList } from '../schemas/idList.js';

export const ROW_STATS_PERIODS = ['today', 'yesterday', 'last7'] as const;
export type RowStatsPeriod = (typeof ROW_STATS_PERIODS)[number];
export const ROW_STATS_PERIOD_LABELS: Record<RowStatsPeriod, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last7: 'Last 7 days',
};

export interface RowStatsKind {
  /** The report dimension whose values are the rows' ids (deals: the OpenRTB deal id of the row). */
  dimension: DimensionId;
  /** The metrics shown, in column order. */
  metrics: readonly MetricId[];
}

/**
 * Which numbers each list shows. Supply rows (a request is counted on them) show requests and fill
 * over opportunities; demand sources called per request (tags, exchanges, an advertiser's tags) show
 * the times they were considered and fill over the times they were called; what our own bidder buys
 * (campaigns, creatives, deals) shows bids, wins and spend; deals for buyers (supply deals) the bid
 * requests that offered them, the bids and wins on them and the revenue they earned.
 */
const SUPPLY: readonly MetricId[] = ['reqs', 'imps', 'fill', 'revenue', 'ecpm'];
const DEMAND: readonly MetricId[] = ['source_reqs', 'imps', 'sourceFill', 'revenue', 'ecpm'];
const SELLING: readonly MetricId[] = ['deal_reqs', 'bids', 'wins', 'imps', 'revenue', 'ecpm'];
const BUYING: readonly MetricId[] = ['bids', 'wins', 'imps', 'revenue', 'ecpm'];

export const ROW_STATS_KINDS = {
  channels: { dimension: 'channel', metrics: SUPPLY },
  subs: { dimension: 'subpublisher', metrics: SUPPLY },
  sups: { dimension: 'supplier', metrics: SUPPLY },
  tags: { dimension: 'tag', metrics: DEMAND },
  adexchanges: { dimension: 'adexchange', metrics: DEMAND },
  advs: { dimension: 'advertiser', metrics: DEMAND },
  campaigns: { dimension: 'campaign', metrics: BUYING },
  creatives: { dimension: 'creative', metrics: BUYING },
  deals: { dimension: 'deal', metrics: BUYING },
  supplydeals: { dimension: 'deal', metrics: SELLING },
} as const satisfies Partial<Record<ResourceKind, RowStatsKind>>;
export type RowStatsKindId = keyof typeof ROW_STATS_KINDS;
export const ROW_STATS_KIND_IDS = Object.keys(ROW_STATS_KINDS) as [RowStatsKindId, ...RowStatsKindId[]];
export const hasRowStats = (kind: string): kind is RowStatsKindId => Object.hasOwn(ROW_STATS_KINDS, kind);

/** Rows a call may name; a list page shows at most 100. */
const ROW_STATS_MAX_IDS = 500;

const oneOf = (values: readonly string[]) => ({ error: () => `must be one of ${values.join(', ')}` });

export const RowStatsQuery = z.object({
  kind: z.enum(ROW_STATS_KIND_IDS, oneOf(ROW_STATS_KIND_IDS)),
  period: z.enum(ROW_STATS_PERIODS, oneOf(ROW_STATS_PERIODS)),
  /** Comma-separated row ids (the rows on screen); absent: every row with numbers in the period. */
  ids: z
    .string()
    .optional()
    .transform((v, ctx) => (v === undefined || v.trim() === '' ? undefined : idList(v, ctx, ROW_STATS_MAX_IDS, 'row'))),
});
export type RowStatsQuery = z.output<typeof RowStatsQuery>;

export interface RowStatsAnswer {
  kind: RowStatsKindId;
  period: RowStatsPeriod;
  /** The local days the numbers cover, in `timezone` (the user's offset): the same as a report over them. */
  startDate: string;
  endDate: string;
  timezone: number;
  metrics: MetricId[];
  /** Row id -> metric -> value (API units). Rows without numbers in the period are left out. */
  rows: Record<string, Partial<Record<MetricId, number>>>;
}

/** The local days of a period at a whole-hour offset: today, yesterday, or the last 7 days with today (the report presets' ranges). */
export function rowStatsRange(
  period: RowStatsPeriod,
  timezone: number,
  now = Date.now(),
): { startDate: string; endDate: string } {
  return presetRange(period, timezone, now);
}
