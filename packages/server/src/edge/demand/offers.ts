import { type SourceFate } from '@adplane/shared';
import { type RequestContext } from '../request/context.js';
import { type OrtbMarkup } from '../ortb/ortbMarkup.js';
import { type Bid } from './demandSource.js';

/**
 * The programmatic bids of a decision as they come in, kept for the notices the auction owes them once
 * it is decided (auction/notices.ts: win, billing and loss notices). A source records each bid here;
 * the auction reads them after it has picked its winner.
 */
export type OrtbBid = Bid & { markup: OrtbMarkup };

export interface Offer {
  source: SourceFate['source'];
  id: number;
  bid: OrtbBid;
  floorCpm: number;
  /** A bid refused for what it is (or its ad) when it came in, beside the answer's others: why (its fate may be another bid's). */
  refusal?: string;
}

/** Programmatic bids of a decision, by its request context (one object per decision): the sources record them as they come in. */
const offers = new WeakMap<RequestContext, Offer[]>();

export function recordOffer(ctx: RequestContext, offer: Offer): void {
  const list = offers.get(ctx);
  if (list) list.push(offer);
  else offers.set(ctx, [offer]);
}

/** The bids recorded on a decision's request context (undefined: none). */
export const offersOf = (ctx: RequestContext): readonly Offer[] | undefined => offers.get(ctx);
