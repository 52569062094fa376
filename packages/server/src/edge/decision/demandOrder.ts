import { type DemandOrderTrace, type SourceFate } from '@adplane/shared';
import { type TagMeasure, type TagValues } from '../counters/tagValues.js';
import { type SnapChannel, type SnapDemand } from '../snapshot/types.js';

/**
 * The optimised demand order of a channel (docs/ad-server.md, "Optimised demand order"): its demand
 * tags ranked by what each was worth per call over a rolling window (counters/tagValues.ts), with
 * a share of requests exploring (the unpinned tags in a random order) so that a new tag, or one
 * that recovered, gets called and measured. A waterfall calls the ranked tags in its slots; an
 * auction with a cap on calls calls the best `maxCalls` first.
 */

/** Calls below which a tag is not measured yet: it ranks as worth 0, after the measured tags that earn. */
export const MIN_MEASURED_CALLS = 20;

/**
 * A tag's measured value per call in CPM micro-dollars (what 1,000 calls earn): eCPM x fill, which
 * is its fills' CPMs over its calls, less each timeout's cost over its calls. Null below
 * MIN_MEASURED_CALLS calls.
 */
export function valuePerCall(m: TagMeasure, timeoutCostCpm: number): number | null {
  if (m.calls < MIN_MEASURED_CALLS) return null;
  return (m.fillCpmSum - m.timeouts * timeoutCostCpm) / m.calls;
}

/** The user's order of a demand list: by priority, then as listed. */
export function listedOrder(demand: readonly { priority: number }[]): number[] {
  return demand.map((_, i) => i).sort((a, b) => demand[a]!.priority - demand[b]!.priority || a - b);
}

/**
 * The demand list's slots (the user's order) filled anew: a pinned tag keeps its slot, the others
 * take the free slots best first (value, a tag not measured yet as 0, ties in the user's order), or
 * in a random order when `shuffle` is given (exploring). Answers the index in `demand` of each slot's
 * tag, in slot order.
 */
export function rankSlots(
  demand: readonly { priority: number; pinned?: boolean }[],
  slots: readonly number[],
  values: readonly (number | null)[],
  shuffle: (() => number) | null,
): number[] {
  const free = slots.filter((i) => !demand[i]!.pinned);
  if (shuffle)
    for (let i = free.length - 1; i > 0; i--) {
      const j = Math.floor(shuffle() * (i + 1));
      [free[i], free[j]] = [free[j]!, free[i]!];
    }
  // (a stable sort of the free tags in slot order: ties keep the user's order)
  else free.sort((a, b) => (values[b] ?? 0) - (values[a] ?? 0));
  let next = 0;
  return slots.map((i) => (demand[i]!.pinned ? i : free[next++]!));
}

/**
 * The priority each ranked tag is called at. A waterfall: the priority of the slot it took, so the
 * user's tiers (and tags called together) stay. An auction with a cap: sets of `maxCalls`, called as
 * tiers (set 1 first, the next when none of it fills before the deadline); pinned tags are always in
 * the first set, which holds at least them.
 */
export function calledPriorities(
  demand: readonly SnapDemand[],
  slots: readonly number[],
  ranked: readonly number[],
  mode: SnapChannel['demandMode'],
  maxCalls: number | null,
): number[] {
  if (mode === 'priority') return ranked.map((_, at) => demand[slots[at]!]!.priority);
  if (maxCalls === null) return ranked.map(() => 1);
  const pinned = ranked.filter((i) => demand[i]!.pinned).length;
  let unpinned = 0;
  return ranked.map((i) => {
    if (demand[i]!.pinned) return 1;
    const at = pinned + unpinned++;
    return at < Math.max(maxCalls, pinned) ? 1 : 2 + Math.floor((at - Math.max(maxCalls, pinned)) / maxCalls);
  });
}

/** Where a channel's measurements are kept: by channel, and apart for arm B of a split (decision/abSplit.ts). */
const valuesKey = (channel: SnapChannel): number => (channel.arm === 'B' ? -channel.id : channel.id);

/**
 * A channel's copies with its demand in an order ranked for some request, by that order and its
 * priorities: the ranking moves as measurements do, and the requests between two moves run on one
 * copy rather than a copy of the channel and its demand list made per request. Kept with the
 * snapshot's channel object, at most ORDERS_KEPT orders a channel (exploring draws random ones).
 */
const ordered = new WeakMap<SnapChannel, Map<string, SnapChannel>>();
const ORDERS_KEPT = 64;

/**
 * The channel with its demand in the order `ranked` (positions in `channel.demand`), each at its
 * priority; `auctionSets`: an auction with a cap on calls, whose priorities are the sets called.
 */
function orderedCopy(
  channel: SnapChannel,
  ranked: readonly number[],
  priorities: readonly number[],
  auctionSets: boolean,
): SnapChannel {
  let key = '';
  for (let at = 0; at < ranked.length; at++) key += `${ranked[at]}:${priorities[at]},`;
  let copies = ordered.get(channel);
  const kept = copies?.get(key);
  if (kept) return kept;
  const { demand } = channel;
  const copy: SnapChannel = {
    ...channel,
    demand: ranked.map((i, at): SnapDemand => ({ ...demand[i]!, priority: priorities[at]! })),
    ...(auctionSets ? { auctionSets: true } : {}),
  };
  if (!copies) ordered.set(channel, (copies = new Map()));
  else if (copies.size >= ORDERS_KEPT) copies.clear();
  copies.set(key, copy);
  return copy;
}

/**
 * The channel a decision runs on when its demand order is optimised: its demand list in the order
 * ranked for this request, each tag at the priority it is called at, and why (the trace). Null when
 * the channel is not optimised or lists fewer than two tags: it runs as set.
 */
export function withDemandOrder(
  channel: SnapChannel,
  values: TagValues,
  now: number,
  random: () => number,
): { channel: SnapChannel; trace: () => DemandOrderTrace } | null {
  const o = channel.optimise;
  if (!o || channel.demand.length < 2) return null;
  const demand = channel.demand;
  const key = valuesKey(channel);
  const measures = demand.map((d) => values.measure(key, d.tag.id, o.windowMs, now));
  const worth = measures.map((m) => valuePerCall(m, o.timeoutCostCpm));
  const exploring = o.explorePercent > 0 && random() * 100 < o.explorePercent;
  const slots = listedOrder(demand);
  const ranked = rankSlots(demand, slots, worth, exploring ? random : null);
  const priorities = calledPriorities(demand, slots, ranked, channel.demandMode, o.maxCalls);
  return {
    channel: orderedCopy(channel, ranked, priorities, channel.demandMode === 'auction' && o.maxCalls !== null),
    // built when a traced request asks: an untraced one pays for no per-tag rows (a method, not a
    // getter: an object literal with a getter is made on V8's slow path, several microseconds a request)
    trace(): DemandOrderTrace {
      return {
        basis: exploring ? 'exploring' : 'measured',
        explorePercent: o.explorePercent,
        windowMinutes: o.windowMs / 60_000,
        maxCalls: channel.demandMode === 'auction' ? o.maxCalls : null,
        timeoutCostCpm: o.timeoutCostCpm,
        tags: ranked.map((i, at) => ({
          id: demand[i]!.tag.id,
          name: demand[i]!.tag.name,
          pinned: demand[i]!.pinned === true,
          priority: priorities[at]!,
          calls: measures[i]!.calls,
          fills: measures[i]!.fills,
          timeouts: measures[i]!.timeouts,
          valueCpm: worth[i] === null ? null : Math.round(worth[i]!),
        })),
      };
    },
  };
}

/**
 * The calls of an optimised channel's decision, measured: every demand tag called (not refused by
 * its rules or caps, not left uncalled by a waterfall), filled when its bid reached its floor (won,
 * lost to a better bid, or won and then refused by delivery control), with the bid's CPM; a timeout
 * as such.
 */
export function measureCalls(values: TagValues, channel: SnapChannel, fates: readonly SourceFate[], now: number): void {
  const o = channel.optimise;
  if (!o) return;
  const key = valuesKey(channel);
  for (const f of fates) {
    if (f.source === 'campaign' || f.source === 'ad_exchange' || f.idle) continue;
    if (f.fate === 'filtered' || f.fate === 'not_called') continue;
    const filled =
      f.fate === 'won' || f.fate === 'lost' || (f.fate === 'no_fill' && f.reason?.startsWith('delivery.') === true);
    values.record(key, f.id, o.windowMs, now, {
      filled,
      cpm: filled ? (f.bidCpm ?? 0) : 0,
      timeout: f.fate === 'timeout',
    });
  }
}
