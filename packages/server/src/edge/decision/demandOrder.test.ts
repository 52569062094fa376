import { describe, expect, it } from 'vitest';
import { SeededRandom, type SourceFate } from '@adplane/shared';
import { TagValues, WINDOW_BUCKETS } from '../counters/tagValues.js';
import { type SnapChannel, type SnapTag } from '../snapshot/types.js';
import {
  calledPriorities,
  listedOrder,
  measureCalls,
  MIN_MEASURED_CALLS,
  rankSlots,
  valuePerCall,
  withDemandOrder,
} from './demandOrder.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 29, 12, 30);
const usd = (n: number) => Math.round(n * 1_000_000);

/** The edge's draws, seeded (shared SeededRandom): the same on every run. */
const seeded = (seed: number): (() => number) => {
  const r = new SeededRandom(seed);
  return () => r.next();
};

const tag = (id: number): SnapTag => ({ id, name: `Tag ${id}` }) as SnapTag;

function channel(
  demand: { id: number; priority: number; pinned?: boolean }[],
  mode: SnapChannel['demandMode'] = 'priority',
  optimise: Partial<NonNullable<SnapChannel['optimise']>> = {},
): SnapChannel {
  return {
    id: 7,
    demandMode: mode,
    demand: demand.map((d) => ({ tag: tag(d.id), priority: d.priority, ...(d.pinned ? { pinned: true } : {}) })),
    optimise: { explorePercent: 10, windowMs: HOUR, maxCalls: null, timeoutCostCpm: usd(1), ...optimise },
  } as unknown as SnapChannel;
}

/** `calls` calls of a tag: the first `fills` filled at `cpm` dollars, the next `timeouts` timed out. */
function called(values: TagValues, tagId: number, calls: number, fills: number, cpm: number, timeouts = 0, at = T0) {
  for (let i = 0; i < calls; i++)
    values.record(7, tagId, HOUR, at, {
      filled: i < fills,
      cpm: i < fills ? usd(cpm) : 0,
      timeout: i >= fills && i < fills + timeouts,
    });
}

describe('measured value per call', () => {
  it('is eCPM x fill less the timeouts at their cost, per call; unmeasured below the minimum of calls', () => {
    // 100 calls, 40 fills at $5 (eCPM $5, fill 40 %), 10 timeouts at $1: $2.00 - $0.10 = $1.90 a call's worth in CPM
    expect(valuePerCall({ calls: 100, fills: 40, fillCpmSum: 40 * usd(5), timeouts: 10 }, usd(1))).toBe(usd(1.9));
    // a tag that times out more than it earns is worth less than nothing
    expect(valuePerCall({ calls: 50, fills: 0, fillCpmSum: 0, timeouts: 25 }, usd(2))).toBe(-usd(1));
    expect(valuePerCall({ calls: MIN_MEASURED_CALLS - 1, fills: 5, fillCpmSum: usd(50), timeouts: 0 }, 0)).toBeNull();
    expect(valuePerCall({ calls: MIN_MEASURED_CALLS, fills: 5, fillCpmSum: usd(50), timeouts: 0 }, 0)).toBe(usd(2.5));
  });

  it('reads the calls of the rolling window only: a bucket older than the window is gone', () => {
    const values = new TagValues();
    called(values, 1, 30, 30, 4, 0, T0);
    called(values, 1, 10, 0, 0, 10, T0 + HOUR / 2);
    expect(values.measure(7, 1, HOUR, T0 + HOUR / 2)).toEqual({
      calls: 40,
      fills: 30,
      fillCpmSum: usd(120),
      timeouts: 10,
    });
    // an hour and a bucket later the first calls fell out; the later ones are still in
    expect(values.measure(7, 1, HOUR, T0 + HOUR + HOUR / WINDOW_BUCKETS)).toEqual({
      calls: 10,
      fills: 0,
      fillCpmSum: 0,
      timeouts: 10,
    });
    expect(values.measure(7, 1, HOUR, T0 + 3 * HOUR)).toEqual({ calls: 0, fills: 0, fillCpmSum: 0, timeouts: 0 });
    // another channel, another tag, or another window (a changed setting): nothing measured
    expect(values.measure(8, 1, HOUR, T0).calls).toBe(0);
    expect(values.measure(7, 2, HOUR, T0).calls).toBe(0);
    expect(values.measure(7, 1, 2 * HOUR, T0).calls).toBe(0);
  });
});

describe('the ranked order', () => {
  const demand = [
    { id: 1, priority: 1 },
    { id: 2, priority: 2 },
    { id: 3, priority: 3 },
    { id: 4, priority: 4 },
  ];

  it('fills the slots best first, a tag not measured yet as worth 0, ties in the user order; pinned tags keep their slot', () => {
    const slots = listedOrder(demand);
    expect(slots).toEqual([0, 1, 2, 3]);
    expect(rankSlots(demand, slots, [usd(1), usd(3), null, usd(2)], null)).toEqual([1, 3, 0, 2]);
    expect(rankSlots(demand, slots, [null, -usd(1), null, usd(0.5)], null)).toEqual([3, 0, 2, 1]);
    const pinned = demand.map((d) => ({ ...d, pinned: d.id === 1 }));
    expect(rankSlots(pinned, slots, [usd(1), usd(3), null, usd(2)], null)).toEqual([0, 1, 3, 2]);
  });

  it('reads the user order by priority, then as listed', () => {
    expect(listedOrder([{ priority: 3 }, { priority: 1 }, { priority: 3 }, { priority: 2 }])).toEqual([1, 3, 0, 2]);
  });

  it('exploring, shuffles the unpinned tags: each is called first about as often', () => {
    const random = seeded(11);
    const pinned = [{ priority: 1, pinned: true }, { priority: 2 }, { priority: 3 }, { priority: 4 }];
    const first = new Map<number, number>();
    for (let i = 0; i < 3000; i++) {
      const order = rankSlots(pinned, [0, 1, 2, 3], [0, 0, 0, 0], random);
      expect(order[0]).toBe(0);
      first.set(order[1]!, (first.get(order[1]!) ?? 0) + 1);
    }
    // 1,000 each expected; a binomial's standard deviation is 26
    for (const i of [1, 2, 3]) expect(Math.abs(first.get(i)! - 1000)).toBeLessThan(110);
  });

  it('keeps the waterfall tiers the user set: a tag takes its slot priority', () => {
    const tiers = [
      { tag: tag(1), priority: 1 },
      { tag: tag(2), priority: 1 },
      { tag: tag(3), priority: 5 },
    ];
    expect(calledPriorities(tiers, [0, 1, 2], [2, 0, 1], 'priority', null)).toEqual([1, 1, 5]);
  });

  it('calls an auction with a cap in sets: the best first, pinned tags always in the first set', () => {
    const list = [1, 2, 3, 4, 5].map((id) => ({ tag: tag(id), priority: 1, pinned: id === 5 }));
    // ranked 5 (pinned), 1, 2, 3, 4 with two calls first: {5, 1}, then {2, 3}, then {4}
    expect(calledPriorities(list, [0, 1, 2, 3, 4], [4, 0, 1, 2, 3], 'auction', 2)).toEqual([1, 1, 2, 2, 3]);
    // more pinned than the cap: the first set holds the pinned ones
    const pins = list.map((d, i) => ({ ...d, pinned: i < 3 }));
    expect(calledPriorities(pins, [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], 'auction', 2)).toEqual([1, 1, 1, 2, 2]);
    // no cap: every tag at once
    expect(calledPriorities(list, [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], 'auction', null)).toEqual([1, 1, 1, 1, 1]);
  });
});

describe('a decision on an optimised channel', () => {
  const never = () => 0.99;

  it('orders the demand by what was measured and says why; exploring when the draw falls in the share', () => {
    const values = new TagValues();
    const ch = channel([
      { id: 1, priority: 1 },
      { id: 2, priority: 2 },
      { id: 3, priority: 3 },
    ]);
    called(values, 1, 100, 90, 2); // $1.80 a call
    called(values, 2, 100, 50, 8); // $4.00
    called(values, 3, 100, 20, 5, 40); // $1.00 - $0.40
    const measured = withDemandOrder(ch, values, T0, never)!;
    expect(measured.channel.demand.map((d) => [d.tag.id, d.priority])).toEqual([
      [2, 1],
      [1, 2],
      [3, 3],
    ]);
    expect(measured.trace()).toMatchObject({
      basis: 'measured',
      explorePercent: 10,
      windowMinutes: 60,
      maxCalls: null,
    });
    expect(measured.trace().tags.map((t) => [t.id, t.valueCpm, t.calls, t.fills, t.timeouts])).toEqual([
      [2, usd(4), 100, 50, 0],
      [1, usd(1.8), 100, 90, 0],
      [3, usd(0.6), 100, 20, 40],
    ]);
    // the same order the next request: the same copy of the channel, not one made per request
    expect(withDemandOrder(ch, values, T0, never)!.channel).toBe(measured.channel);
    // a draw under 10 %: exploring, the order at random
    const draws = [0.05, 0.9, 0.1];
    const explored = withDemandOrder(ch, values, T0, () => draws.shift() ?? 0)!;
    expect(explored.trace().basis).toBe('exploring');
    expect(explored.channel.demand.map((d) => d.tag.id).sort()).toEqual([1, 2, 3]);
    // not optimised, or one tag: as set
    expect(withDemandOrder({ ...ch, optimise: undefined }, values, T0, never)).toBeNull();
    expect(withDemandOrder({ ...ch, demand: ch.demand.slice(0, 1) }, values, T0, never)).toBeNull();
  });

  it('an auction with a cap is called in sets', () => {
    const values = new TagValues();
    const ch = channel(
      [
        { id: 1, priority: 1 },
        { id: 2, priority: 1 },
        { id: 3, priority: 1 },
      ],
      'auction',
      { maxCalls: 1 },
    );
    called(values, 3, 40, 40, 3);
    const ordered = withDemandOrder(ch, values, T0, never)!;
    expect(ordered.channel.auctionSets).toBe(true);
    expect(ordered.channel.demand.map((d) => [d.tag.id, d.priority])).toEqual([
      [3, 1],
      [1, 2],
      [2, 3],
    ]);
    expect(ordered.trace().maxCalls).toBe(1);
  });

  it('measures the tags called, from their fates', () => {
    const values = new TagValues();
    const ch = channel([
      { id: 1, priority: 1 },
      { id: 2, priority: 2 },
    ]);
    const fate = (id: number, f: Partial<SourceFate>): SourceFate => ({
      source: 'vast_tag',
      id,
      name: '',
      priority: 1,
      fate: 'no_fill',
      ...f,
    });
    measureCalls(
      values,
      ch,
      [
        fate(1, { fate: 'won', bidCpm: usd(4) }),
        fate(2, { fate: 'lost', bidCpm: usd(3) }),
        fate(3, { fate: 'timeout' }),
        fate(4, { fate: 'below_floor', bidCpm: usd(0.2) }),
        fate(5, { fate: 'no_fill', reason: 'delivery.budget', bidCpm: usd(6) }),
        fate(6, { fate: 'filtered', reason: 'qps_limit' }),
        fate(7, { fate: 'not_called', reason: 'filled_earlier' }),
        { ...fate(8, { fate: 'won', bidCpm: usd(9) }), source: 'campaign' },
      ],
      T0,
    );
    const m = (id: number) => values.measure(7, id, HOUR, T0);
    expect(m(1)).toEqual({ calls: 1, fills: 1, fillCpmSum: usd(4), timeouts: 0 });
    expect(m(2)).toEqual({ calls: 1, fills: 1, fillCpmSum: usd(3), timeouts: 0 });
    expect(m(3)).toEqual({ calls: 1, fills: 0, fillCpmSum: 0, timeouts: 1 });
    expect(m(4)).toEqual({ calls: 1, fills: 0, fillCpmSum: 0, timeouts: 0 });
    expect(m(5)).toEqual({ calls: 1, fills: 1, fillCpmSum: usd(6), timeouts: 0 });
    for (const id of [6, 7, 8]) expect(m(id).calls).toBe(0);
  });
});
