import { z } from 'zod';
import { type Limit } from '../entities/common.js';
import { idList } from './idList.js';

/**
 * Campaign pacing as the console shows it (GET /api/demand/campaigns/pacing?ids=1,2,3): the live
 * truth of the delivery counters (the spend the edge has counted today, in the tenant's day), not
 * the report numbers. Money in micro-dollars.
 */
export const PACING_MAX_IDS = 200;

export const PacingQuery = z.object({
  /** Comma-separated campaign ids (the rows on screen, or the campaign of a drawer). */
  ids: z
    .string({ error: 'is required: campaign ids separated by commas' })
    .transform((v, ctx) => idList(v, ctx, PACING_MAX_IDS, 'campaign')),
});

/**
 * on_pace / ahead / behind: spend against the target so far (within 5% of the daily budget is on pace);
 * capped: the daily or total budget is spent; not_delivering: paused, archived, outside its flight, or
 * no spend in the current and previous hour.
 */
export type PacingStateId = 'on_pace' | 'ahead' | 'behind' | 'capped' | 'not_delivering';

export const PACING_STATE_LABELS: Record<PacingStateId, string> = {
  on_pace: 'On pace',
  ahead: 'Ahead',
  behind: 'Behind',
  capped: 'Capped',
  not_delivering: 'Not delivering',
};

export interface CampaignPacing {
  campaignId: number;
  pacing: 'even' | 'asap';
  /** The tenant-zone day (`YYYY-MM-DD`), its offset from UTC and the hour it is there now (0-23). */
  day: string;
  timezone: number;
  hour: number;
  dailyBudget: Limit;
  spentToday: number;
  /** even: the daily budget times the share of the day gone; asap: the whole budget; null without a daily budget. */
  targetSoFar: number | null;
  /** End-of-day spend at the last 60 minutes' rate, capped by the daily budget. */
  projected: number;
  /** even: what it may spend per hour now (catching up at most 2x the even rate); null otherwise. */
  allowedPerHour: number | null;
  totalBudget: Limit;
  /** Spend over the campaign's life; the counters keep it only for a campaign with a total budget. */
  totalSpent: number | null;
  state: PacingStateId;
  /** Why, in a few words (the state's tooltip). */
  reason: string;
  /** Today's spend per hour of the tenant's day (24 entries; hours to come are 0). */
  hourly: number[];
  /** The even-pace line: where the spend should be by the end of each hour (null without a daily budget). */
  evenByHour: number[] | null;
}

export interface PacingAnswer {
  /** When the counters were read (ms since the epoch). */
  at: number;
  campaigns: CampaignPacing[];
}
