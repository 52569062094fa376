import { type FloorFacts, type FloorField, type FloorInForce, matchFloor } from '@adplane/shared';
import { type RequestContext } from '../request/context.js';
import { type SnapChannel } from '../snapshot/types.js';

/**
 * The channel's copies with a floor in force, by the rule that gave it (null: the default; the
 * static floor when nothing matched is keyed '\u0000'): a rule set has few rules, and every request
 * that matches one runs on the same copy rather than a copy of the channel made per request. Kept
 * with the snapshot's channel object (a changed channel is a new object with its own copies); a copy
 * is made again when its dynamic basis is no longer the channel's (the table refreshed).
 */
const floored = new WeakMap<SnapChannel, Map<string | null, SnapChannel>>();

/**
 * The channel a decision runs on, its `floorCpm` the floor in force for the request: the rule of
 * its floor rules (the channel's own, its dynamic floors' table, else its account's) the request
 * matches, else the rule set's default, else the channel's static floor. Every floor the edge sends
 * and holds (`bidfloor` to RTB demand, VAST demand's price, our campaigns' bids) reads `floorCpm`,
 * so this is the one place the rules apply. A channel without rules, or one already resolved, is
 * returned as is. The copy returned is shared by the requests that matched the same rule: it is
 * read, never changed.
 */
export function withFloorInForce(channel: SnapChannel, ctx: RequestContext): SnapChannel {
  if (!channel.floorRules || channel.floorInForce) return channel;
  const { rules, source, dynamic } = channel.floorRules;
  const match = matchFloor(rules, floorFactsOf(rules.fields, channel, ctx));
  const key = match ? match.rule : '\u0000';
  // a dynamic floor says how it was computed: its rule's, or the default's ('*')
  const basis = match ? dynamic?.get(match.rule ?? '*') : undefined;
  let copies = floored.get(channel);
  const kept = copies?.get(key);
  if (kept && kept.floorInForce!.dynamic === basis) return kept;
  const floorInForce: FloorInForce = match
    ? { source, rule: match.rule, floorCpm: match.floorCpm, ...(basis ? { dynamic: basis } : {}) }
    : { source: 'static', rule: null, floorCpm: channel.floorCpm };
  const copy = { ...channel, floorCpm: floorInForce.floorCpm, floorInForce };
  if (!copies) floored.set(channel, (copies = new Map()));
  copies.set(key, copy);
  return copy;
}

/** The request's value of each field the rule set reads ('' when it has none: only `*` rules match it). */
function floorFactsOf(fields: readonly FloorField[], channel: SnapChannel, ctx: RequestContext): FloorFacts {
  const facts: FloorFacts = {};
  for (const field of fields) facts[field] = factOf(field, channel, ctx);
  return facts;
}

function factOf(field: FloorField, channel: SnapChannel, ctx: RequestContext): string {
  switch (field) {
    case 'mediaType':
      return channel.format === 'video' ? 'video' : 'banner';
    case 'size': {
      const { width, height } = ctx.query;
      return width > 0 && height > 0 ? `${width}x${height}` : '';
    }
    case 'domain':
      return ctx.domain;
    case 'bundle':
      return ctx.query.appBundle;
    case 'country':
      return ctx.geo.country;
    case 'deviceType':
      return ctx.platform.device;
    case 'hourOfDay':
      return String(new Date(ctx.now).getUTCHours());
    case 'deal':
      return ctx.ortb?.imp.pmp?.deals?.[0]?.id ?? '';
  }
}
