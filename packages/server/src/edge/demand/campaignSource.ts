import { creativeRefusal, refusal, targetingMiss } from '../targeting/compiledTargeting.js';
import { nextBit } from '../targeting/bitset.js';
import { type SnapCampaign, type SnapChannel, type SnapCreative } from '../snapshot/types.js';
import { type RequestContext } from '../request/context.js';
import { type IndexedOutCampaign, INDEXED_OUT_NAMED, type SourceFate } from '@adplane/shared';
import { type CampaignIndex } from '../targeting/campaignIndex.js';
import { runsOn } from '../targeting/channelAssignment.js';
import {
  type AuctionRequest,
  type Bid,
  type CallResult,
  type DemandCandidate,
  type DemandSource,
  type DurationFloor,
  durationFloorOf,
  lengthFloor,
} from './demandSource.js';
import { creativeVideo, lengthFits, ortbCreativeFits, podRepeats } from '../targeting/impFit.js';

/**
 * The tenant's own campaigns, booked on its channels (direct-sold): the targeting indexes narrow
 * the tenant's campaigns to the few a request may see; flight, budget, the rest of the targeting and
 * the creative fit are checked on those. A campaign prices at once (its bid), no network call.
 */
export const CAMPAIGN_PRIORITY = 0;
const HOUR_MS = 3_600_000;
const TRACE_LIMIT = 50;

/** Whether a creative fits the channel's format and the player. */
function creativeFits(creative: SnapCreative, channel: SnapChannel, ctx: RequestContext): boolean {
  if (creative.format !== channel.format) return false;
  // an OpenRTB impression states what it takes (sizes, mimes, durations, blocked advertisers)
  if (ctx.ortb) return ortbCreativeFits(creative, ctx.ortb.imp, ctx.ortb.request);
  if (creative.format === 'video')
    return (
      (creative.videoSource === 'vast' ? !!creative.vastUrl : creative.mediaFiles.length > 0) &&
      lengthFits(creative.duration, ctx)
    );
  // display: the banner must fit in the slot the player states
  const { width, height } = ctx.query;
  return !(width > 0 && creative.width > width) && !(height > 0 && creative.height > height);
}

/**
 * The open auction's floors by the ad's length (OpenRTB 2.6 `mincpmpersec` and `durfloors`, in
 * demand's money), as campaigns are picked under them; NO_LENGTH_FLOORS: none (a deal's bid, or a
 * request that states none).
 */
export interface LengthFloors {
  perSecond: number;
  byLength: readonly DurationFloor[] | null;
}

const NO_LENGTH_FLOORS: LengthFloors = Object.freeze({ perSecond: 0, byLength: null });

/** Whether the campaign's bid reaches the floors of the creative's length (none stated, or a length not known: yes). */
const paysForLength = (campaign: SnapCampaign, creative: SnapCreative, floors: LengthFloors): boolean =>
  creative.format !== 'video' ||
  ((!floors.perSecond || campaign.bidCpm >= lengthFloor(floors.perSecond, creative.duration)) &&
    (!floors.byLength || campaign.bidCpm >= durationFloorOf(floors.byLength, creative.duration)));

/**
 * Whether the channel takes the creative: its creative lists (by id or advertiser domain), and its
 * blocked ad categories, compiled into the set of the creatives they block (snapshot/categoryBlocks.ts).
 */
const channelTakes = (channel: SnapChannel, c: SnapCreative): boolean =>
  !channel.categoryBlocks?.creatives.has(c.id) && !creativeRefusal(channel.targeting, c.id, c.adomain);

/** A creative of the campaign that fits here, at random among those that do (`floors`: only those its bid pays for at the floors of their length). */
function pickCreative(
  campaign: SnapCampaign,
  channel: SnapChannel,
  ctx: RequestContext,
  floors: LengthFloors,
): SnapCreative | null {
  const all = campaign.creatives;
  if (all.length === 1) {
    const only = all[0]!;
    return creativeFits(only, channel, ctx) && channelTakes(channel, only) && paysForLength(campaign, only, floors)
      ? only
      : null;
  }
  const fitting = all.filter(
    (c) => creativeFits(c, channel, ctx) && channelTakes(channel, c) && paysForLength(campaign, c, floors),
  );
  if (!fitting.length) return null;
  return fitting[Math.floor(Math.random() * fitting.length)]!;
}

/** Why no creative of the campaign serves here: `blocked_category` when the channel's blocked ad categories refuse one that fits, else `no_fitting_creative`. */
function noCreativeReason(campaign: SnapCampaign, channel: SnapChannel, ctx: RequestContext): string {
  const blocked = channel.categoryBlocks?.creatives;
  return blocked?.size && campaign.creatives.some((c) => blocked.has(c.id) && creativeFits(c, channel, ctx))
    ? 'blocked_category'
    : 'no_fitting_creative';
}

/**
 * How many campaigns tied at the best bid a request rotates among: it bounds the tie a request
 * looks at. Ties are shuffled when a tenant's index is made (snapshot/campaignDelta.ts), so over
 * rebuilds every tied campaign gets its turn, and a campaign whose budget is spent leaves room for
 * the next.
 */
const ROTATION_LIMIT = 8;

/** One of our campaigns as the auction's candidate: its bid is known at once (`immediate`), no closure per candidate. */
class CampaignCandidate implements DemandCandidate {
  readonly source = 'campaign' as const;
  readonly id: number;
  readonly name: string;
  readonly priority = CAMPAIGN_PRIORITY;
  readonly external = false;
  readonly immediate: CallResult;
  constructor(
    campaign: SnapCampaign,
    creative: SnapCreative,
    readonly floorCpm: number,
  ) {
    this.id = campaign.id;
    this.name = campaign.name;
    const bid: Bid = {
      priceCpm: campaign.bidCpm,
      fixedPrice: false,
      markup: { kind: 'campaign', campaign, creative },
      tagId: 0,
      campaignId: campaign.id,
      creativeId: creative.id,
      advertiserId: campaign.advertiserId,
    };
    this.immediate = { kind: 'bid', ms: 0, bid };
  }

  call(): Promise<CallResult> {
    return Promise.resolve(this.immediate);
  }
}

function candidateOf(campaign: SnapCampaign, creative: SnapCreative, floorCpm: number): DemandCandidate {
  return new CampaignCandidate(campaign, creative, floorCpm);
}

/**
 * The creative the campaign would serve here, or the rule that refuses it. A plain function, not a
 * closure per request: the hot path allocates as little as it can. `floors`: the floors of the ad's
 * length its bid must reach (demand's money; a deal's own, which dealCampaigns.ts passes; the open
 * auction's are the request's floorPerSecondCpm and durationFloors).
 */
export function eligibility(
  campaign: SnapCampaign,
  req: AuctionRequest,
  floors: LengthFloors = openLengthFloors(req, { perSecond: 0, byLength: null }),
): SnapCreative | string {
  return eligible(campaign, req, true, floors);
}

/** The open auction's floors of the ad's length, written into `into` (a scratch: no allocation on the hot path). */
function openLengthFloors(req: AuctionRequest, into: LengthFloors): LengthFloors {
  const perSecond = req.floorPerSecondCpm ?? 0;
  const byLength = req.durationFloors?.length ? req.durationFloors : null;
  if (!perSecond && !byLength) return NO_LENGTH_FLOORS;
  into.perSecond = perSecond;
  into.byLength = byLength;
  return into;
}

/** A campaign whose channel assignment leaves out the request's channel (or a supplier's request, which comes on none). */
const CHANNEL_NOT_ASSIGNED = 'channel_not_assigned';

/** A refusal whose reason nobody reads (an untraced request): the same checks, no reason built. */
const REFUSED = 'refused';

/** `eligibility`; with `explain` false, a targeting refusal answers REFUSED instead of building `targeting.<rule>`. */
function eligible(
  campaign: SnapCampaign,
  req: AuctionRequest,
  explain: boolean,
  floors: LengthFloors,
): SnapCreative | string {
  const ctx = req.ctx;
  const now = ctx.now;
  // (the tenant's index has left out the campaigns not assigned to the channel already: this is for
  // the campaigns a request meets without it, those bidding through a deal)
  const { channels } = campaign;
  if (channels && !runsOn(channels, req.channel.id)) return CHANNEL_NOT_ASSIGNED;
  if (now < campaign.flightStartHour * HOUR_MS) return 'flight_not_started';
  // DSP mode: a campaign naming suppliers buys from those only
  if (req.supplier && campaign.supplierIds?.length && !campaign.supplierIds.includes(req.supplier.id))
    return 'supplier_not_bought';
  if (now >= campaign.flightEndHour * HOUR_MS) return 'flight_ended';
  if (campaign.targeting) {
    const rule = refusal(campaign.targeting, ctx);
    if (rule) return explain ? `targeting.${rule}` : REFUSED;
  }
  // a later slot of an ad pod: not a campaign, nor an advertiser, the pod already has
  if (
    ctx.pod &&
    (ctx.pod.campaigns.has(campaign.id) ||
      (campaign.advertiserId > 0 && ctx.pod.advertisers.has(campaign.advertiserId)))
  )
    return 'pod_separation';
  const budget = req.pacing.campaignRefusal(campaign, campaign.bidCpm, ctx);
  if (budget) return budget;
  // (with floors by the ad's length, OpenRTB 2.6 mincpmpersec and durfloors: a creative whose length
  // the bid pays for; none, and the campaign is passed over for the next, which may be shorter or pay more)
  const creative = pickCreative(campaign, req.channel, ctx, floors);
  if (!creative) {
    if (floors === NO_LENGTH_FLOORS || !pickCreative(campaign, req.channel, ctx, NO_LENGTH_FLOORS))
      return noCreativeReason(campaign, req.channel, ctx);
    return floors.perSecond ? 'below_floor_per_second' : 'below_duration_floor';
  }
  const repeat = ctx.pod ? podRepeats(ctx.pod, creative.adomain, creativeVideo(creative)) : null;
  if (repeat) return repeat;
  return creative;
}

/**
 * Refusals reported for one request, and its open auction's floors of the ad's length
 * (candidates() runs to its end synchronously: one scratch serves every request).
 */
const report = { count: 0, floors: NO_LENGTH_FLOORS };
const reportFloors: LengthFloors = { perSecond: 0, byLength: null };

/** The campaign's creative here, or null: refused (and reported to the trace while it has room). */
function checked(
  campaign: SnapCampaign,
  req: AuctionRequest,
  filtered: (fate: SourceFate) => void,
): SnapCreative | null {
  const found = eligible(campaign, req, report.count < TRACE_LIMIT, report.floors);
  if (typeof found !== 'string') return found;
  if (report.count++ < TRACE_LIMIT)
    filtered(
      explained(
        {
          source: 'campaign',
          id: campaign.id,
          name: campaign.name,
          priority: CAMPAIGN_PRIORITY,
          fate: 'filtered',
          reason: found,
        },
        campaign,
        req,
        found,
      ),
    );
  return null;
}

/** A UTC instant as the YYYY-MM-DD day it falls on in a zone `tz` hours east of UTC. */
const dayIn = (ms: number, tz: number): string => new Date(ms + tz * HOUR_MS).toISOString().slice(0, 10);

/**
 * A traced refusal of a campaign with what makes it readable: the targeting rule's values and the
 * request's (`targeting.<rule>`), the flight's first or last day (`flight_*`). `reason` is the
 * refusal as eligibility gave it (a deal's campaigns check it without the `deal.` the trace adds).
 */
export function explained(fate: SourceFate, campaign: SnapCampaign, req: AuctionRequest, reason: string): SourceFate {
  if (reason.startsWith('targeting.') && campaign.targeting)
    fate.miss = targetingMiss(campaign.targeting, req.ctx, reason.slice('targeting.'.length));
  else if (reason === 'flight_not_started')
    fate.flightDay = dayIn(campaign.flightStartHour * HOUR_MS, campaign.timezone);
  else if (reason === 'flight_ended') fate.flightDay = dayIn(campaign.flightEndHour * HOUR_MS - 1, campaign.timezone);
  return fate;
}

/**
 * The first INDEXED_OUT_NAMED campaigns the tenant's index set aside for a traced request, by name,
 * each with its rules: `channel_not_assigned` when its channel assignment leaves out the request's
 * channel (with the targeting rules that would have refused it as well), else the first targeting rule.
 */
function indexedOutCampaigns(
  index: CampaignIndex<SnapCampaign>,
  req: AuctionRequest,
  passing: Uint32Array,
): IndexedOutCampaign[] {
  const out: IndexedOutCampaign[] = [];
  for (const { item, offChannel, misses } of index.setAside(
    req.ctx,
    req.channel.id,
    passing,
    INDEXED_OUT_NAMED,
    (c) => c.name,
    (c) => c.targeting,
  ))
    out.push({
      id: item.id,
      name: item.name,
      // its channel assignment first: it would not run here whatever the targeting said
      reason: offChannel ? CHANNEL_NOT_ASSIGNED : `targeting.${misses[0]?.rule ?? 'indexed'}`,
      misses,
    });
  return out;
}

/**
 * The tenant's index holds its campaigns ranked by bid (snapshot/campaigns.ts: indexCampaigns), so
 * the scan stops at the first eligible campaign: a request costs the campaigns it looks at, not the
 * tenant's whole book. That campaign's bid is the best a request can get; the campaigns tied with
 * it (up to ROTATION_LIMIT) rotate at random, as line items of one priority do in Google Ad
 * Manager: they are drawn in a random order, checked as drawn, and the first eligible wins, which
 * makes the winner uniform among the tie's eligible campaigns while checking one or two of them
 * rather than all. The second eligible drawn (else the first eligible after the tie) is the
 * runner-up the auction's second price needs (a first-price request looks for none unless traced).
 * A traced request (debug, "Test this tag") checks the whole tie, so that its trace says why each
 * was not chosen.
 */
export const campaignSource: DemandSource = {
  name: 'campaigns',
  candidates(req: AuctionRequest, filtered) {
    const { channel, snapshot } = req;
    // a private auction takes deal bids only (doors/openrtbBidder/dealCampaigns.ts bids on deals)
    if (req.privateAuction) return { candidates: [], indexedOut: 0 };
    const index = snapshot.campaignIndex.get(channel.tenantId);
    if (!index) return { candidates: [], indexedOut: 0 };
    // the index meets the request's channel too: the campaigns assigned elsewhere are not among `words`
    const { words, count } = index.passing(req.ctx, channel.id);
    const indexedOut = index.items.length - count;
    const items = index.items;
    const traced = req.traced !== false;
    // a traced request names the campaigns behind the count (the serving path builds nothing)
    const named = traced && indexedOut > 0 ? indexedOutCampaigns(index, req, words) : undefined;
    // an untraced request reports no campaign refusals (nothing counts them): as if the limit were spent
    report.count = traced ? 0 : TRACE_LIMIT;
    report.floors = openLengthFloors(req, reportFloors);
    // the runner-up sets a second price; at first price only a trace shows it (a campaign that lost
    // is not counted: adDecision.ts countFates), so an untraced first-price request looks for none
    const wanted = traced || channel.auctionPrice === 'second' ? 2 : 1;
    let pos = nextBit(words, 0);
    let first: SnapCreative | null = null;
    for (; pos >= 0 && !first; ) {
      first = checked(items[pos]!, req, filtered);
      if (!first) pos = nextBit(words, pos + 1);
    }
    if (!first)
      return named ? { candidates: [], indexedOut, indexedOutCampaigns: named } : { candidates: [], indexedOut };
    const top = items[pos]!;
    // the tie: the campaigns after it at the same bid, not yet checked
    const tie: SnapCampaign[] = [top];
    let after = nextBit(words, pos + 1);
    while (after >= 0 && tie.length < ROTATION_LIMIT && items[after]!.bidCpm === top.bidCpm) {
      tie.push(items[after]!);
      after = nextBit(words, after + 1);
    }
    const out: DemandCandidate[] = [];
    // drawn at random without replacement (a swap-remove per draw)
    for (let left = tie.length; left > 0 && (out.length < wanted || traced); left--) {
      const j = Math.floor(Math.random() * left);
      const campaign = tie[j]!;
      tie[j] = tie[left - 1]!;
      const creative = campaign === top ? first : checked(campaign, req, filtered);
      if (creative && out.length < wanted) out.push(candidateOf(campaign, creative, channel.floorCpm));
    }
    // no second of the tie: the first eligible after it is the runner-up
    for (let p = after; p >= 0 && out.length < wanted; p = nextBit(words, p + 1)) {
      const creative = checked(items[p]!, req, filtered);
      if (creative) out.push(candidateOf(items[p]!, creative, channel.floorCpm));
    }
    // (the untraced answer keeps the one shape every source answers)
    return named ? { candidates: out, indexedOut, indexedOutCampaigns: named } : { candidates: out, indexedOut };
  },
};
