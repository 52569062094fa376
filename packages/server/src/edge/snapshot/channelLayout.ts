import { type SnapChannel } from './types.js';

/** Every field of a channel, required: an object literal of this type names each one. */
type EveryField = { [K in keyof Required<SnapChannel>]: SnapChannel[K] };

/**
 * The channel in the one layout every channel the edge decides on has: each field present, in this
 * order, those a channel lacks undefined. The decision reads a channel's fields many times a request,
 * and V8 keeps those reads fast while the channels it meets share one hidden class. Fields present
 * on some channels only (floor rules, category blocks, an optimised order, a split's arm) gave them
 * several, and a decision's copies (`{ ...channel, floorCpm, floorInForce }`) more: a copy of a
 * channel in this layout, setting fields it already has, keeps the layout.
 */
export function channelLayout(c: SnapChannel): SnapChannel {
  const laid: EveryField = {
    id: c.id,
    uid: c.uid,
    tenantId: c.tenantId,
    subpublisherId: c.subpublisherId,
    name: c.name,
    serving: c.serving,
    integration: c.integration,
    environment: c.environment,
    format: c.format,
    vastVersion: c.vastVersion,
    floorCpm: c.floorCpm,
    floorRules: c.floorRules,
    floorInForce: c.floorInForce,
    payout: c.payout,
    demandMode: c.demandMode,
    auctionPrice: c.auctionPrice,
    timeoutMs: c.timeoutMs,
    targeting: c.targeting,
    categoryBlocks: c.categoryBlocks,
    demand: c.demand,
    optimise: c.optimise,
    arm: c.arm,
    split: c.split,
    auctionSets: c.auctionSets,
    idleTags: c.idleTags,
    sellerId: c.sellerId,
    ivt: c.ivt,
  };
  return laid as SnapChannel;
}
