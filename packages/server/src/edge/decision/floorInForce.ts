import { type FloorFacts, matchFloor } from '@adplane/shared';
import { type RequestContext } from '../request/context.js';
import { type SnapChannel } from '../snapshot/types.js';

/**
 * The channel a decision runs on, its `floorCpm` the floor in force for the request: the rule of
 * its floor rules (the channel's own, its dynamic floors' table, else its account's) the request
 * matches, else the rule set's default, else the channel's static floor. Every floor the edge sends
 * and holds (`bidfloor` to RTB demand, VAST demand's price, our campaigns' bids) reads `floorCpm`,
 * so this is the one place the rules apply. A channel without rules, or one already resolved, is
 * returned as is.
 */
export function withFloorInForce(channel: SnapChannel, ctx: RequestContext): SnapChannel {
  if (!channel.floorRules || channel.floorInForce) return channel;
  const { rules, source, dynamic } = channel.floorRules;
  const match = matchFloor(rules, floorFactsOf(channel, ctx));
  // a dynamic floor says how it was computed: its rule's, or the default's ('*')
  const basis = match && dynamic?.get(match.rule ?? '*');
  const floorInForce = match
    ? { source, rule: match.rule, floorCpm: match.floorCpm, ...(basis ? { dynamic: basis } : {}) }
    : { source: 'static' as const, rule: null, floorCpm: channel.floorCpm };
  return { ...channel, floorCpm: floorInForce.floorCpm, floorInForce };
}

/** The request's value of each floor field ('' when it has none: only `*` rules match it). */
function floorFactsOf(channel: SnapChannel, ctx: RequestContext): FloorFacts {
  const { width, height } = ctx.query;
  return {
    mediaType: channel.format === 'video' ? 'video' : 'banner',
    size: width > 0 && height > 0 ? `${width}x${height}` : '',
    domain: ctx.domain,
    bundle: ctx.query.appBundle,
    country: ctx.geo.country,
    deviceType: ctx.platform.device,
    hourOfDay: String(new Date(ctx.now).getUTCHours()),
    deal: ctx.ortb?.imp.pmp?.deals?.[0]?.id ?? '',
  };
}
