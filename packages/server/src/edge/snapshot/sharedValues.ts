import { type ChannelRow, type DemandTagRow, type Price } from '@adplane/shared';

/**
 * Values stored rows repeat, one object each for every row kept between snapshot builds
 * (parsedRows.ts): the bench's 20,000 demand tags hold one price and no partner parameters, its
 * 10,000 channels one payout. Frozen: a row's value is never changed in place.
 */
export const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});
const prices = new Map<string, Price>();

/** The one frozen object of a price's value. */
export function sharedPrice(price: Price): Price {
  const key = price.type === 'cpm' ? `cpm ${price.cpm}` : `revshare ${price.percent}`;
  let shared = prices.get(key);
  if (!shared) {
    // (a price is one of few: a store that has more starts again)
    if (prices.size > 10_000) prices.clear();
    prices.set(key, (shared = Object.freeze(price)));
  }
  return shared;
}

/** A parsed demand tag with its price and empty partner parameters shared. */
export function tagFacts(t: DemandTagRow): DemandTagRow {
  return {
    ...t,
    price: sharedPrice(t.price),
    partnerParams: Object.keys(t.partnerParams).length ? t.partnerParams : NO_PARAMS,
  };
}

/** A parsed channel with its payout shared. */
export function channelFacts(c: ChannelRow): ChannelRow {
  return { ...c, payout: sharedPrice(c.payout) };
}
