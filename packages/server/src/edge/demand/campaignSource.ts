import { creativeRefusal, refusal } from '../targeting/compiledTargeting.js';
import { type SnapCampaign, type SnapChannel, type SnapCreative } from '../snapshot/types.js';
import { type RequestContext } from '../request/context.js';
import { type AuctionRequest, type DemandCandidate, type DemandSource } from './demandSource.js';

/**
 * The tenant's own campaigns, booked on its channels (direct-sold): the targeting indexes narrow
 * the tenant's campaigns to the few a request may see; flight, budget, the rest of the targeting and
 * the creative fit are checked on those. A campaign prices at once (its bid), no network call.
 */
export const CAMPAIGN_PRIORITY = 0;
const TRACE_LIMIT = 50;

/** Whether a creative fits the channel's format and the player. */
export function creativeFits(creative: SnapCreative, channel: SnapChannel, ctx: RequestContext): boolean {
  if (creative.format !== channel.format) return false;
  if (creative.format === 'video') return creative.videoSource === 'vast' ? !!creative.vastUrl : creative.mediaFiles.length > 0;
  // display: the banner must fit in the slot the player states
  const { width, height } = ctx.query;
  return !(width > 0 && creative.width > width) && !(height > 0 && creative.height > height);
}

function pickCreative(campaign: SnapCampaign, channel: SnapChannel, ctx: RequestContext): SnapCreative | null {
  const fitting = campaign.creatives.filter((c) => creativeFits(c, channel, ctx) && !creativeRefusal(channel.targeting, c.id, c.adomain));
  if (!fitting.length) return null;
  return fitting[Math.floor(Math.random() * fitting.length)]!;
}

export const campaignSource: DemandSource = {
  name: 'campaigns',
  candidates(req: AuctionRequest, filtered) {
    const { ctx, channel, snapshot, pacing } = req;
    const index = snapshot.campaignIndex.get(channel.tenantId);
    if (!index) return { candidates: [], indexedOut: 0 };
    const found = index.candidates(ctx);
    const tz = snapshot.tenants.get(channel.tenantId)?.timezone ?? 0;
    const out: DemandCandidate[] = [];
    let traced = 0;
    const refuse = (c: SnapCampaign, reason: string) => {
      if (traced++ < TRACE_LIMIT) filtered({ source: 'campaign', id: c.id, name: c.name, priority: CAMPAIGN_PRIORITY, fate: 'filtered', reason });
    };
    for (const campaign of found) {
      if (ctx.now < campaign.flightStart) refuse(campaign, 'flight_not_started');
      else if (ctx.now >= campaign.flightEnd) refuse(campaign, 'flight_ended');
      else {
        const rule = campaign.targeting ? refusal(campaign.targeting, ctx) : null;
        if (rule) {
          refuse(campaign, `targeting.${rule}`);
          continue;
        }
        const budget = pacing.campaignRefusal(campaign.id, campaign.bidCpm, campaign.dailyBudget, campaign.totalBudget, tz, ctx.now);
        if (budget) {
          refuse(campaign, budget);
          continue;
        }
        const creative = pickCreative(campaign, channel, ctx);
        if (!creative) {
          refuse(campaign, 'no_fitting_creative');
          continue;
        }
        out.push({
          source: 'campaign',
          id: campaign.id,
          name: campaign.name,
          priority: CAMPAIGN_PRIORITY,
          floorCpm: channel.floorCpm,
          external: false,
          call: async () => ({
            kind: 'bid',
            ms: 0,
            bid: { priceCpm: campaign.bidCpm, fixedPrice: false, markup: { kind: 'campaign', campaign, creative }, tagId: 0, campaignId: campaign.id, creativeId: creative.id, advertiserId: campaign.advertiserId },
          }),
        });
      }
    }
    return { candidates: out, indexedOut: index.items.length - found.length };
  },
};
