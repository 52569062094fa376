import { type TargetingAsk } from './auctionRequest.js';
import { priceBucket } from './priceGranularity.js';

/**
 * The ad server targeting keys of a bid (bid.ext.prebid.targeting), as Prebid Server writes them
 * (exchange/targeting.go): hb_pb (the price bucket of the granularity asked, per media type when
 * asked), hb_bidder, hb_size (WxH, when both are known), hb_cache_id (the cached bid JSON), hb_uuid
 * (the cached VAST), hb_format (when includeformat), hb_cache_host and hb_cache_path (where the cache
 * answers, on every targeted bid as Prebid Server Go writes them), hb_deal (a deal bid), hb_env=mobile-app (an app request). Each key comes
 * bidder-suffixed (hb_pb_adplane) when includebidderkeys (or for a deal with alwaysincludedeals), and
 * plain for the impression's winner when includewinners: adplane is the only bidder of its
 * answer, so its bid is the winner of its impression. Keys are cut to 20 characters (or
 * truncateattrchars) as Prebid Server cuts them: hb_cache_host_adplane is hb_cache_host_adplan.
 */
export interface TargetedBid {
  price: number;
  type: 'banner' | 'video';
  w: number;
  h: number;
  dealId: string;
  /** hb_cache_id: the UUID of the cached bid JSON. */
  cacheId: string | null;
  /** hb_uuid: the UUID of the cached VAST. */
  vastCacheId: string | null;
  /** Where the cache answers (host[:port] and path): hb_cache_host / hb_cache_path, each when not ''. */
  cacheHost: string;
  cachePath: string;
  app: boolean;
}

export function targetingKeys(
  ask: TargetingAsk,
  seat: string,
  bid: TargetedBid,
  winner = true,
): Record<string, string> {
  const keys: Record<string, string> = {};
  const hasDeal = bid.dealId !== '';
  const add = (key: string, value: string) => {
    const plain = `${ask.prefix}_${key}`;
    if (ask.includeBidderKeys || (ask.alwaysIncludeDeals && hasDeal))
      keys[`${plain}_${seat}`.slice(0, ask.maxKeyLength)] = value;
    if (ask.includeWinners && winner) keys[plain.slice(0, ask.maxKeyLength)] = value;
  };
  const granularity = (bid.type === 'video' ? ask.video : ask.banner) ?? ask.granularity;
  add('pb', priceBucket(bid.price, granularity));
  add('bidder', seat);
  if (bid.w > 0 && bid.h > 0) add('size', `${bid.w}x${bid.h}`);
  if (bid.cacheId) add('cache_id', bid.cacheId);
  if (bid.vastCacheId) add('uuid', bid.vastCacheId);
  if (ask.includeFormat) add('format', bid.type);
  // Prebid Server (Go) writes where its cache answers on every targeted bid once a cache is configured
  // (exchange/targeting.go: targData.cacheHost from GetExtCacheData), cached or not; adplane's
  // always is (/cache). (Prebid Server Java writes them only beside a cache id.)
  if (bid.cacheHost) add('cache_host', bid.cacheHost);
  if (bid.cachePath) add('cache_path', bid.cachePath);
  if (hasDeal) add('deal', bid.dealId);
  if (bid.app) add('env', 'mobile-app');
  return keys;
}
