import { z } from 'zod';
import {
  ids,
  isoDate,
  microsLimit,
  name,
  optionalId,
  positiveMicros,
  Status,
  wholeBetween,
} from '../entities/common.js';
import { storedRowParser } from './storedRow.js';
import { defineKind, advertiserRef, many, targetingRef } from './kindDef.js';

/**
 * Campaigns (DSP mode): what an advertiser buys, with which creatives, where, at what bid and budget.
 *
 * Flight days: startDate and endDate are whole days in the tenant's time zone (the demand account's
 * `timezone`, whole hours -12..+12); the campaign starts at 00:00 of its start day there and stops
 * at 24:00 of its end day. Budgets are micro-dollars or 'unlimited'; a budget of 0 never spends.
 */
const PACING = ['even', 'asap'] as const;

/**
 * Where a campaign runs among the tenant's channels, chosen on purpose: 'all' (every channel of the
 * account, the campaign's `channelIds` empty), 'include' (only the channels of `channelIds`, at least
 * one) or 'exclude' (every channel but those). A request from no channel of the account (a supplier's
 * bid request, DSP mode) is on none of them: an 'include' campaign does not bid on it.
 */
export const CHANNEL_SCOPES = ['all', 'include', 'exclude'] as const;
export type ChannelScope = (typeof CHANNEL_SCOPES)[number];
const ChannelScope = z.enum(CHANNEL_SCOPES, {
  error: (issue) =>
    issue.input === undefined
      ? "is required: 'all' (every channel of the account), 'include' or 'exclude'"
      : "must be 'all', 'include' or 'exclude'",
});

/**
 * Whether a campaign of this assignment runs on channel `channelId` of its account (the console's
 * list of a channel's campaigns; the ad server compiles the same rule into its index:
 * edge/targeting/channelAssignment.ts). A stored campaign without a scope runs on every channel.
 */
export function campaignRunsOn(
  scope: ChannelScope | undefined,
  channelIds: readonly number[] | undefined,
  channelId: number,
): boolean {
  if (!scope || scope === 'all') return true;
  return (channelIds ?? []).includes(channelId) === (scope === 'include');
}

const FrequencyCap = z
  .object({
    count: z.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1'),
    periodHours: wholeBetween(1, 720, 'hours'),
  })
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
    /** What the campaign bids per 1000 impressions; a bid of $0.00 never wins, so it is refused. */
    bidCpm: positiveMicros,
    frequencyCap: FrequencyCap,
    targetingId: optionalId,
    creativeIds: ids,
    dealIds: ids,
    supplierIds: ids,
    adExchangeIds: ids,
    /**
     * Required, with no default: an unassigned campaign runs on every channel only when someone chose
     * 'all'. Config-store migration 0022 wrote 'all' on the campaigns stored before the field; an
     * update that names neither field keeps the stored assignment (`keptOnUpdate`).
     */
    channelScope: ChannelScope,
    channelIds: ids,
  })
  .superRefine((c, ctx) => {
    if (c.channelScope === 'include' && !c.channelIds.length)
      ctx.addIssue({ code: 'custom', path: ['channelIds'], message: 'must name at least one channel to run on' });
    if (c.channelScope === 'all' && c.channelIds.length)
      ctx.addIssue({
        code: 'custom',
        path: ['channelIds'],
        message: "must be empty when the campaign runs on all channels (channelScope 'all')",
      });
    if (c.endDate && c.endDate < c.startDate)
      ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before the start date' });
    if (c.totalBudget !== 'unlimited' && (c.dailyBudget === 'unlimited' ? false : c.dailyBudget > c.totalBudget))
      ctx.addIssue({ code: 'custom', path: ['dailyBudget'], message: 'must not exceed the total budget' });
  });
export type CampaignInput = z.input<typeof CampaignInput>;

/**
 * The instants a flight (campaign or deal dates) covers, for a tenant `timezone` hours from UTC: from
 * 00:00 of the start day to 24:00 of the end day there (end null: open-ended; start null: no start).
 * `2026-11-01` in UTC-5 starts at 2026-11-01T05:00Z.
 */
export function flightWindow(
  startDate: string | null,
  endDate: string | null,
  timezone: number,
): { startMs: number | null; endMs: number | null } {
  const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`) - timezone * 3_600_000;
  return { startMs: startDate ? dayStart(startDate) : null, endMs: endDate ? dayStart(endDate) + 86_400_000 : null };
}

/** Whether the instant `nowMs` is inside the flight. */
export function inFlight(window: { startMs: number | null; endMs: number | null }, nowMs: number): boolean {
  return (window.startMs === null || nowMs >= window.startMs) && (window.endMs === null || nowMs < window.endMs);
}

export const parseCampaignRow = storedRowParser('campaigns', CampaignInput);
export type CampaignRow = NonNullable<ReturnType<typeof parseCampaignRow>>;

const campaignListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({
  advertiserId: d.advertiserId ?? null,
  startDate: d.startDate,
  endDate: d.endDate ?? null,
  channelScope: d.channelScope ?? 'all',
  channelIds: d.channelIds ?? [],
});

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const campaignsKind = defineKind({
  kind: 'campaigns',
  label: 'Campaign',
  plural: 'Campaigns',
  route: '/campaigns',
  api: '/api/demand/campaigns',
  mode: 'dsp',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: CampaignInput,
  refs: [
    advertiserRef,
    targetingRef,
    { kind: 'creatives', field: 'creativeIds', ids: many('creativeIds') },
    { kind: 'deals', field: 'dealIds', ids: many('dealIds') },
    { kind: 'sups', field: 'supplierIds', ids: many('supplierIds') },
    { kind: 'adexchanges', field: 'adExchangeIds', ids: many('adExchangeIds') },
    { kind: 'channels', field: 'channelIds', ids: many('channelIds') },
  ],
  assignedTo: { adv: 'advertiserId' },
  sortable: ['startDate', 'endDate', 'bidCpm', 'totalBudget'],
  unlimitedSortable: ['totalBudget'],
  listExtras: campaignListExtras,
  keptOnUpdate: ['channelScope', 'channelIds'],
  parseRow: parseCampaignRow,
});
