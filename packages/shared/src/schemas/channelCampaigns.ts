import { z } from 'zod';
import { type ChannelScope } from '../kinds/campaigns.js';

/**
 * A channel's campaigns, set from the channel (PUT /api/demand/channels/:id/campaigns): the body
 * names the exact set of the account's live campaigns that shall run on the channel; every other live
 * campaign of the account shall not. Each campaign's own assignment (`channelScope`, `channelIds`)
 * changes as little as that takes (`assignmentOnChannel`), as a save of the campaign would.
 */
export const channelCampaignsPath = (channelId: number | string): string =>
  `/api/demand/channels/${channelId}/campaigns`;

const CHANNEL_CAMPAIGNS_MAX = 1000;

export const ChannelCampaignsInput = z.object({
  campaignIds: z
    .array(
      z.number({ error: 'must be a campaign id' }).int('must be a campaign id').positive('must be a campaign id'),
      {
        error: 'must be the list of the campaigns that run on the channel (ids; [] for none)',
      },
    )
    .max(CHANNEL_CAMPAIGNS_MAX, `must hold at most ${CHANNEL_CAMPAIGNS_MAX} campaigns`)
    .refine((ids) => new Set(ids).size === ids.length, 'names a campaign twice'),
});
export type ChannelCampaignsInput = z.input<typeof ChannelCampaignsInput>;

/** What the route answers: the campaigns that run on the channel now, and those whose assignment it rewrote. */
export const ChannelCampaignsAnswer = z.object({
  channelId: z.number(),
  /** The live campaigns of the account that run on the channel, by id. */
  campaignIds: z.array(z.number()),
  /** The campaigns whose assignment changed (one activity entry each). */
  changed: z.array(z.number()),
});
export type ChannelCampaignsAnswer = z.infer<typeof ChannelCampaignsAnswer>;

/** A campaign's assignment among its account's channels. */
export interface ChannelAssignment {
  channelScope: ChannelScope;
  channelIds: number[];
}

/**
 * The assignment a campaign gets so that it runs (`runs`) or does not run on channel `channelId`,
 * every other channel left as it was: to run, 'all' stays, 'include' gains the channel, 'exclude'
 * loses it (an 'exclude' list left empty is said as 'all': the same channels); not to run, 'include'
 * loses it, 'exclude' gains it, 'all' becomes 'exclude' [the channel]. An 'include' list the channel
 * was the last of would leave the campaign running nowhere, which its schema refuses: 'empties'
 * (the caller refuses the change and asks for the campaign to be paused, or given another channel).
 * A stored campaign without a scope runs on every channel ('all').
 */
export function assignmentOnChannel(
  scope: ChannelScope | undefined,
  ids: readonly number[] | undefined,
  channelId: number,
  runs: boolean,
): ChannelAssignment | 'empties' {
  const current: ChannelAssignment = { channelScope: scope ?? 'all', channelIds: [...(ids ?? [])] };
  const has = current.channelIds.includes(channelId);
  const without = current.channelIds.filter((id) => id !== channelId);
  const withIt = has ? current.channelIds : [...current.channelIds, channelId];
  switch (current.channelScope) {
    case 'all':
      return runs ? current : { channelScope: 'exclude', channelIds: [channelId] };
    case 'include':
      if (runs) return { channelScope: 'include', channelIds: withIt };
      return without.length ? { channelScope: 'include', channelIds: without } : 'empties';
    case 'exclude':
      if (!runs) return { channelScope: 'exclude', channelIds: withIt };
      return without.length
        ? { channelScope: 'exclude', channelIds: without }
        : { channelScope: 'all', channelIds: [] };
  }
}

/** A channel scope in words, for lists of campaigns. */
export const CHANNEL_SCOPE_WORDS: Record<ChannelScope, string> = {
  all: 'all channels',
  include: 'only some',
  exclude: 'all but some',
};
