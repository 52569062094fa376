import { type BidRequest, partnerSyncBidder, resolvePartner } from '@adplane/shared';
import { userIdsForbidden } from '../ortb/privacy.js';
import { type RequestContext } from '../request/context.js';
import { type SourceFate } from '@adplane/shared';
import { BID_PRICE, type DemandPricing, demandTerms, pricingOfTag } from '../ortb/demandPricing.js';
import { outboundBanner } from './outboundRequest.js';
import { bannerHasSize } from '../ortb/pbsRules.js';
import { type SnapTag } from '../snapshot/types.js';
import { refusal, targetingMiss } from '../targeting/compiledTargeting.js';
import { type AuctionRequest, type DemandCandidate, type DemandSource } from './demandSource.js';
import { LazyOrtbCandidate, ortbCandidate, type OrtbDeps, type OrtbTarget } from './openrtbCall.js';
import { tagBidIds } from './tagBidIds.js';
import { dealsForTag } from './sellerDeals.js';

/**
 * Programmatic demand as sources of the auction, one per kind, each refusing by its own rules
 * before any call (its targeting, then at call time its caps) and calling through openrtbCall.ts:
 * - RTB demand tags (SSP mode): the tag's OpenRTB 2.6 endpoint;
 * - PreBid demand tags: a Prebid Server request for the tag's partner and parameters, to the
 *   operator's Prebid Server (`ADPLANE_PREBID_SERVER_URL`);
 * - ad exchanges (DSP mode): the tenant's exchanges, only for a supplier's bid request (a channel's
 *   own VAST traffic is not resold to exchanges), with the deals the request offers; the exchange's
 *   margin is taken here, as a share of its bid.
 */
const ORTB_INTEGRATION: Record<'RTB' | 'PreBid', SourceFate['source']> = { RTB: 'rtb_tag', PreBid: 'prebid_tag' };
/** Ad exchanges are not listed on channels: in a waterfall they come right after our campaigns. */
const AD_EXCHANGE_PRIORITY = 1;
const NO_DEALS: readonly never[] = [];

function tagTarget(req: AuctionRequest, tag: SnapTag, priority: number, url: string): OrtbTarget {
  const { channel, pacing } = req;
  const pricing = pricingOfTag(tag.price);
  // the channel's deals for buyers that name the tag, their floors told in its own money as the open floor is
  const offered = req.sellerDeals?.length ? dealsForTag(req.sellerDeals, tag.id) : NO_DEALS;
  return {
    source: ORTB_INTEGRATION[tag.integration as 'RTB' | 'PreBid'],
    id: tag.id,
    name: tag.name,
    priority,
    floorCpm: Math.max(channel.floorCpm, tag.floorCpm),
    url,
    timeoutMs: tag.timeoutMs,
    pricing,
    take: (now) => pacing.takeTagRequest(tag, req.snapshot.tenants.get(tag.tenantId)?.timezone ?? 0, now),
    deals: offered.length ? offered.map((d) => ({ ...d, floorCpm: demandTerms(pricing, d.floorCpm) })) : NO_DEALS,
    privateAuction: req.privateAuction && offered.length > 0,
    wseat: [],
    targeting: tag.targeting,
    // (a Prebid tag's partner and its name in the catalogue, an RTB tag's own name)
    ids: tagBidIds(tag),
  };
}

/**
 * The channel's live tags of one integration, each refused by its own targeting or by `refuse`
 * (what it lacks to be called at all), or set up as a candidate whose target `build` makes when
 * it is called (LazyOrtbCandidate: a waterfall rarely reaches the tags behind our campaigns).
 */
function tagCandidates(
  req: AuctionRequest,
  integration: 'RTB' | 'PreBid',
  filtered: (fate: SourceFate) => void,
  refuse: (tag: SnapTag, req: AuctionRequest) => string | null,
  build: (req: AuctionRequest, tag: SnapTag, priority: number) => OrtbTarget,
  deps: OrtbDeps,
): DemandCandidate[] {
  const out: DemandCandidate[] = [];
  const source = ORTB_INTEGRATION[integration];
  for (const { tag, priority } of req.channel.demand) {
    if (tag.integration !== integration) continue;
    const rule = tag.targeting ? refusal(tag.targeting, req.ctx) : null;
    const offered = req.sellerDeals?.length ? dealsForTag(req.sellerDeals, tag.id) : NO_DEALS;
    // a private auction is for its deals only: a tag offered none has nothing to bid on
    const refused = rule
      ? `targeting.${rule}`
      : req.privateAuction && !offered.length
        ? 'private_auction'
        : refuse(tag, req);
    if (refused) {
      const fate: SourceFate = { source, id: tag.id, name: tag.name, priority, fate: 'filtered', reason: refused };
      // a traced request says what the rule holds and what the request said
      if (rule && req.traced !== false) fate.miss = targetingMiss(tag.targeting!, req.ctx, rule);
      filtered(fate);
    } else
      out.push(
        new LazyOrtbCandidate(
          source,
          tag.id,
          tag.name,
          priority,
          Math.max(req.channel.floorCpm, tag.floorCpm),
          req,
          tag,
          build,
          deps,
          offered.length ? offered : undefined,
        ),
      );
  }
  return out;
}

const rtbRefusal = (tag: SnapTag): string | null => (tag.endpoint ? null : 'no_endpoint');
function rtbTarget(req: AuctionRequest, tag: SnapTag, priority: number): OrtbTarget {
  const target = tagTarget(req, tag, priority, tag.endpoint!);
  const buyeruid = tag.userSyncUrl ? partnerUid(req.ctx, tag) : '';
  return buyeruid ? { ...target, shape: (request) => void (request.user = { ...request.user, buyeruid }) } : target;
}

/**
 * The partner's own id for the viewer (its user sync: doors/prebidServer/userSync.ts), sent as `user.buyeruid`;
 * '' when the browser has none, or where the request forbids ids (the GDPR, a sale opt-out, COPPA).
 */
function partnerUid(ctx: RequestContext, tag: SnapTag): string {
  const uid = ctx.partnerUids[partnerSyncBidder(tag.id)];
  return uid && !userIdsForbidden(ctx.query) ? uid : '';
}

export function rtbTagSource(deps: OrtbDeps): DemandSource {
  return {
    name: 'rtb_tags',
    candidates(req, filtered) {
      const candidates = tagCandidates(req, 'RTB', filtered, rtbRefusal, rtbTarget, deps);
      return { candidates, indexedOut: 0 };
    },
  };
}

export interface PrebidDeps extends OrtbDeps {
  /** The operator's Prebid Server auction endpoint (…/openrtb2/auction); null: PreBid tags are not called. */
  prebidServerUrl: string | null;
}

/**
 * A PreBid tag as Prebid Server expects it: `imp[].ext.prebid.bidder.<bidder code>` holds the tag's
 * parameters (a `<code>P` variant id of the catalogue is the same bidder: catalogue.ts). We decide the
 * winner ourselves, so we ask for no targeting keys and no cache (`ext.prebid.targeting` and
 * `ext.prebid.cache` left out); the answer is an ordinary bid response whose seat is the bidder.
 */
function prebidShape(bidder: string, params: Readonly<Record<string, unknown>>): (request: BidRequest) => void {
  return (request) => {
    const imp = request.imp[0]!;
    imp.ext = { ...imp.ext, prebid: { bidder: { [bidder]: { ...params } } } };
  };
}

export function prebidTagSource(deps: PrebidDeps): DemandSource {
  const refuse = (tag: SnapTag, req: AuctionRequest): string | null => {
    if (!deps.prebidServerUrl) return 'prebid_server_not_configured';
    if (!resolvePartner(tag.partner)?.partner) return 'unknown_partner';
    // Prebid Server answers a banner of no stated size with a 400 (its rule: pbsRules.ts): not worth a call
    return req.channel.format === 'display' && !bannerHasSize(outboundBanner(req.ctx), req.ctx.ortb?.imp.instl === 1)
      ? 'no_banner_size'
      : null;
  };
  const build = (req: AuctionRequest, tag: SnapTag, priority: number): OrtbTarget => {
    const partner = resolvePartner(tag.partner)!.partner;
    const t = tagTarget(req, tag, priority, deps.prebidServerUrl!);
    return {
      ...t,
      shape: prebidShape(partner.id, tag.partnerParams),
    };
  };
  return {
    name: 'prebid_tags',
    candidates(req, filtered) {
      const candidates = tagCandidates(req, 'PreBid', filtered, refuse, build, deps);
      return { candidates, indexedOut: 0 };
    },
  };
}

export function adExchangeSource(deps: OrtbDeps): DemandSource {
  return {
    name: 'ad_exchanges',
    candidates(req, filtered) {
      // DSP mode only: a supplier's bid request, resold to the tenant's exchanges
      if (!req.supplier) return { candidates: [], indexedOut: 0 };
      const out: DemandCandidate[] = [];
      for (const x of req.snapshot.adExchanges.get(req.channel.tenantId) ?? []) {
        const rule = x.targeting ? refusal(x.targeting, req.ctx) : null;
        if (rule) {
          const fate: SourceFate = {
            source: 'ad_exchange',
            id: x.id,
            name: x.name,
            priority: AD_EXCHANGE_PRIORITY,
            fate: 'filtered',
            reason: `targeting.${rule}`,
          };
          if (req.traced !== false) fate.miss = targetingMiss(x.targeting!, req.ctx, rule);
          filtered(fate);
          continue;
        }
        // a private auction is for its deals only: an exchange offered none has nothing to bid on
        if (req.privateAuction && !req.deals.length) {
          filtered({
            source: 'ad_exchange',
            id: x.id,
            name: x.name,
            priority: AD_EXCHANGE_PRIORITY,
            fate: 'filtered',
            reason: 'private_auction',
          });
          continue;
        }
        // our margin on the exchange is a share of its bid: the auction ranks it by what it is worth to us,
        // and the floors it is told (the impression's and the deals') are grossed up to its own money
        const pricing: DemandPricing =
          x.marginPercent > 0 ? { kind: 'share', percent: 100 - x.marginPercent } : BID_PRICE;
        out.push(
          ortbCandidate(
            req,
            {
              source: 'ad_exchange',
              id: x.id,
              name: x.name,
              priority: AD_EXCHANGE_PRIORITY,
              floorCpm: req.channel.floorCpm,
              url: x.endpoint,
              timeoutMs: x.tmaxMs,
              pricing,
              take: (now) => req.pacing.takeExchangeRequest(x.id, x.qpsLimit, now),
              // the deals' buyer seats are the supplier's view of us: at the exchange, our seat is its own
              deals: req.deals.map((d) => ({
                ...d,
                floorCpm: demandTerms(pricing, d.floorCpm),
                buyerSeats: x.seat ? [x.seat] : [],
              })),
              privateAuction: req.privateAuction,
              wseat: x.seat ? [x.seat] : [],
              targeting: x.targeting,
              ids: { tagId: 0, advertiserId: 0, adexchangeId: x.id, marketplace: x.name },
            },
            deps,
          ),
        );
      }
      return { candidates: out, indexedOut: 0 };
    },
  };
}
