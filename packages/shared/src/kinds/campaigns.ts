import { z } from 'zod';
import { ids, isoDate, micros, microsLimit, name, optionalId, Status } from '../entities/common.js';
import { storedRowParser } from './storedRow.js';

/**
 * Campaigns (DSP mode): what an advertiser buys, with which creatives, where, at what bid and budget.
 *
 * Flight days: startDate and endDate are whole days in the tenant's time zone (the demand account's
 * `timezone`, whole hours -12..+12); the campaign starts at 00:00 of its start day there and stops
 * at 24:00 of its end day. Budgets are micro-dollars or 'unlimited'; a budget of 0 never spends.
 */
export const PACING = ['even', 'asap'] as const;

export const FrequencyCap = z
  .object({ count: z.number().int().min(1, 'must be at least 1'), periodHours: z.number().int().min(1).max(720) })
  .nullable()
  .default(null);

export const CampaignInput = z
  .object({
    name,
    status: Status.default(1),
    advertiserId: optionalId,
    startDate: isoDate,
    endDate: isoDate.nullable().default(null),
    totalBudget: microsLimit,
    dailyBudget: microsLimit,
    pacing: z.enum(PACING).default('even'),
    bidCpm: micros,
    frequencyCap: FrequencyCap,
    targetingId: optionalId,
    creativeIds: ids,
    dealIds: ids,
    supplierIds: ids,
    adExchangeIds: ids,
  })
  .superRefine((c, ctx) => {
    if (c.endDate && c.endDate < c.startDate) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before the start date' });
    if (c.totalBudget !== 'unlimited' && (c.dailyBudget === 'unlimited' ? false : c.dailyBudget > c.totalBudget))
      ctx.addIssue({ code: 'custom', path: ['dailyBudget'], message: 'must not exceed the total budget' });
  });
export type CampaignInput = z.input<typeof CampaignInput>;

export const parseCampaignRow = storedRowParser('campaigns', CampaignInput);
export type CampaignRow = NonNullable<ReturnType<typeof parseCampaignRow>>;

export const campaignListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({
  advertiserId: d.advertiserId ?? null,
  startDate: d.startDate,
  endDate: d.endDate ?? null,
});
