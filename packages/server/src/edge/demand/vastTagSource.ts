import { randomBytes } from 'node:crypto';
import { adSystemDomain, type SourceFate } from '@adplane/shared';
import { channelSellerId } from '../snapshot/channels.js';
import { tagRevenueCpm } from './money.js';
import { demandAdRefusal } from '../targeting/impFit.js';
import { blockedAdvertisers, blockedCategories } from './openrtbCall.js';
import { refusal, targetingMiss } from '../targeting/compiledTargeting.js';
import { type AuctionRequest, type CallResult, type DemandCandidate, type DemandSource } from './demandSource.js';
import { fillIabMacros, fillTagUrl } from './tagMacros.js';
import { type VastFetcher } from './vastFetcher.js';
import { failedAdUrls } from './errorPings.js';
import { VAST_ERRORS } from '../vast/vastVersion.js';
import { type RateSource } from '../ortb/currency.js';
import { isLoopReason } from '../request/demandHops.js';

/**
 * VAST demand tags the channel calls: eligibility (targeting, caps), then a server-side fetch of the
 * tag URL with its macros filled, under the tag's own timeout and the channel's deadline. The price
 * is the tag's CPM, or its share of the <Pricing> the answer states (in another currency than USD:
 * at the operator's rates, `currency`, read at each call; without a rate, no price stated). The
 * channel's RTB and PreBid tags are sources of their own (programmaticSources.ts).
 */

export interface VastTagSourceOptions {
  /** The operator's exchange rates, read at each call. */
  currency?: { readonly current: RateSource };
  /** The edge's public origin: the advertising system domain of our schain node when the tenant has none. */
  publicHost?: string;
}

export function vastTagSource(
  fetcher: VastFetcher,
  { currency, publicHost = '' }: VastTagSourceOptions = {},
): DemandSource {
  return {
    name: 'vast_tags',
    candidates(req: AuctionRequest, filtered) {
      const { ctx, channel, pacing } = req;
      const out: DemandCandidate[] = [];
      for (const { tag, priority } of channel.demand) {
        if (tag.integration !== 'VAST') continue;
        const rule = tag.targeting ? refusal(tag.targeting, ctx) : null;
        if (rule) {
          const fate: SourceFate = {
            source: 'vast_tag',
            id: tag.id,
            name: tag.name,
            priority,
            fate: 'filtered',
            reason: `targeting.${rule}`,
          };
          // a traced request says what the rule holds and what the request said
          if (req.traced !== false) fate.miss = targetingMiss(tag.targeting!, ctx, rule);
          filtered(fate);
          continue;
        }
        // a private auction (a private deal for buyers in force) takes deal bids only: a VAST tag bids on none
        if (req.privateAuction) {
          filtered({
            source: 'vast_tag',
            id: tag.id,
            name: tag.name,
            priority,
            fate: 'filtered',
            reason: 'private_auction',
          });
          continue;
        }
        out.push({
          source: 'vast_tag',
          id: tag.id,
          name: tag.name,
          priority,
          floorCpm: Math.max(channel.floorCpm, tag.floorCpm),
          external: true,
          call: async (r: AuctionRequest): Promise<CallResult> => {
            // Caps are taken when the call is actually made (a waterfall may never reach this tag).
            const capped = pacing.takeTagRequest(
              tag,
              r.snapshot.tenants.get(tag.tenantId)?.timezone ?? 0,
              r.clock.now(),
            );
            if (capped) return { kind: 'refused', reason: capped, ms: 0 };
            // our schain node, as in our bid requests (openrtbCall.ts), without a request id: the tag call has none
            const node = {
              asi: adSystemDomain(r.snapshot.tenants.get(r.channel.tenantId)?.domain, publicHost),
              sid: channelSellerId(r.channel),
              hp: 1 as const,
            };
            const url = fillTagUrl(tag.vastUrl, r.ctx, randomBytes(6).toString('hex'), node);
            const deadline = Math.min(r.deadline, r.clock.now() + tag.timeoutMs);
            // a display channel's answer is a NonLinear (docs/ad-server.md): there a demand's NonLinear is the ad to show, and a
            // linear video the tag's 201 no-fill (vastAnswer.ts displayAd)
            const display = r.channel.format === 'display';
            // (the call one hop deeper than the request: request/demandHops.ts)
            const viewer = {
              ua: r.ctx.ua,
              ip: r.ctx.ip,
              referer: safeReferer(r.ctx.query.pageUrl),
              hops: (r.ctx.hops?.count ?? 0) + 1,
              tenantId: r.channel.tenantId,
              channelUid: r.channel.uid,
            };
            const got = await fetcher.fetch(url, deadline, viewer, currency?.current, {
              nonLinear: display,
              // a wrapper's VASTAdTagURI is a VAST request URI too: its IAB macros filled as the tag URL's
              fillMacros: (uri) => fillIabMacros(uri, r.ctx),
            });
            if (got.kind === 'timeout') return got;
            // a request of our own whose demand looped: its answer says so to its caller
            if (got.kind === 'no_fill' && r.ctx.hops && isLoopReason(got.reason)) r.ctx.hops.looped = true;
            // the ads its answer gave that a player would have given up on on the way (a buffet's, a
            // fallback's): their error trackers, each with its own code, go out with the outcome
            const failed = failedAdUrls(got.failed);
            if (got.kind === 'no_fill')
              return failed.length ? { ...got, errorUrls: [...got.errorUrls, ...failed] } : got;
            const errorUrls = failed.length ? { errorUrls: failed } : {};
            // a NonLinear larger than the slot the request states, as our own banners must fit it (VAST 501)
            const n = got.ad.nonLinear;
            const { width, height } = r.ctx.query;
            if (n && ((width > 0 && n.width > width) || (height > 0 && n.height > height))) {
              return {
                kind: 'no_fill',
                reason: 'nonlinear_too_large',
                vastError: VAST_ERRORS.nonLinearSize,
                errorUrls: [...got.ad.trackers.error, ...failed],
                ms: got.ms,
              };
            }
            // what the request or the channel's and tag's creative lists and blocked ad categories refuse of the ad (impFit.ts)
            const unfit = demandAdRefusal(
              got.ad,
              r.ctx,
              blockedAdvertisers(r.channel.targeting, tag.targeting),
              blockedCategories(r.channel, tag.targeting),
            );
            if (unfit) return { kind: 'no_fill', reason: unfit, ms: got.ms, ...errorUrls };
            const price = tagRevenueCpm(tag.price, got.ad.pricingCpm);
            if (price === null) return { kind: 'no_fill', reason: 'no_price_stated', ms: got.ms, ...errorUrls };
            return {
              kind: 'bid',
              ms: got.ms,
              bid: {
                priceCpm: price,
                fixedPrice: tag.price.type === 'cpm',
                markup: { kind: 'vast', ad: got.ad },
                tagId: tag.id,
                campaignId: 0,
                creativeId: 0,
                advertiserId: tag.advertiserId,
              },
              ...errorUrls,
            };
          },
        });
      }
      // Listed on the channel but not live for it: named in the trace, not a demand request.
      for (const idle of channel.idleTags)
        filtered({
          source: 'vast_tag',
          id: idle.id,
          name: `#${idle.id}`,
          priority: 0,
          fate: 'filtered',
          reason: `tag_${idle.reason}`,
          idle: true,
        });
      return { candidates: out, indexedOut: 0 };
    },
  };
}

/** The page URL as a Referer header may carry it: an http(s) URL of header-safe characters, else none. */
function safeReferer(pageUrl: string): string {
  return /^https?:\/\/[\x21-\x7e]+$/i.test(pageUrl) && pageUrl.length <= 2048 ? pageUrl : '';
}
