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

/**
 * How many eligible campaigns tied at the best bid a request rotates among: it bounds the scan of a
 * large tie. Ties are shuffled when the snapshot is compiled, so over rebuilds every tied campaign
 * gets its turn, and a campaign whose budget is spent leaves room for the next.
 */
const ROTATION_LIMIT = 8;

function candidateOf(campaign: SnapCampaign, creative: SnapCreative, floorCpm: number): DemandCandidate {
  const bid = { priceCpm: campaign.bidCpm, fixedPrice: false, markup: { kind: 'campaign' as const, campaign, creative }, tagId: 0, campaignId: campaign.id, creativeId: creative.id, advertiserId: campaign.advertiserId };
  return { source: 'campaign', id: campaign.id, name: campaign.name, priority: CAMPAIGN_PRIORITY, floorCpm, external: false, call: () => Promise.resolve({ kind: 'bid', ms: 0, bid }) };
}

/**
 * The tenant's index holds its campaigns ranked by bid (snapshot/campaigns.ts: indexCampaigns), so
 * the scan stops at the first eligible campaign below the best bid: a request costs the campaigns
 * it looks at, not the tenant's whole book. Campaigns tied at the best bid rotate at random (as
 * line items of one priority do in Google Ad Manager); the auction gets the chosen one and a
 * runner-up (another of the tie, or the best bid below it) for its second price.
 */
export const campaignSource: DemandSource = {
  name: 'campaigns',
  candidates(req: AuctionRequest, filtered) {
    const { ctx, channel, snapshot, pacing } = req;
    const index = snapshot.campaignIndex.get(channel.tenantId);
    if (!index) return { candidates: [], indexedOut: 0 };
    const tz = snapshot.tenants.get(channel.tenantId)?.timezone ?? 0;
    let traced = 0;
    const refuse = (c: SnapCampaign, reason: string): null => {
      if (traced++ < TRACE_LIMIT) filtered({ source: 'campaign', id: c.id, name: c.name, priority: CAMPAIGN_PRIORITY, fate: 'filtered', reason });
      return null;
    };
    /** The creative the campaign would serve, or null (the refusal traced) when it cannot serve here. */
    const eligible = (campaign: SnapCampaign): SnapCreative | null => {
      if (ctx.now < campaign.flightStart) return refuse(campaign, 'flight_not_started');
      if (ctx.now >= campaign.flightEnd) return refuse(campaign, 'flight_ended');
      const rule = campaign.targeting ? refusal(campaign.targeting, ctx) : null;
      if (rule) return refuse(campaign, `targeting.${rule}`);
      const budget = pacing.campaignRefusal(campaign.id, campaign.bidCpm, campaign.dailyBudget, campaign.totalBudget, tz, ctx.now);
      if (budget) return refuse(campaign, budget);
      return pickCreative(campaign, channel, ctx) ?? refuse(campaign, 'no_fitting_creative');
    };
    const best: { campaign: SnapCampaign; creative: SnapCreative }[] = [];
    let below: { campaign: SnapCampaign; creative: SnapCreative } | null = null;
    const passed = index.scan(ctx, (campaign) => {
      const creative = eligible(campaign);
      if (!creative) return true;
      if (best.length && campaign.bidCpm < best[0]!.campaign.bidCpm) {
        // ranked by bid: every campaign after this one bids less still
        below = { campaign, creative };
        return false;
      }
      best.push({ campaign, creative });
      return best.length < ROTATION_LIMIT;
    });
    const out: DemandCandidate[] = [];
    if (best.length) {
      const pick = Math.floor(Math.random() * best.length);
      const chosen = best[pick]!;
      out.push(candidateOf(chosen.campaign, chosen.creative, channel.floorCpm));
      const runnerUp = best.length > 1 ? best[(pick + 1) % best.length]! : below;
      if (runnerUp) out.push(candidateOf(runnerUp.campaign, runnerUp.creative, channel.floorCpm));
    }
    return { candidates: out, indexedOut: index.items.length - passed };
  },
};
