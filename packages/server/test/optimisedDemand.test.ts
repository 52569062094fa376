import { type DecisionTrace, SeededRandom } from '@adplane/shared';
import { beforeAll, expect, it } from 'vitest';
import { edgeRequest } from './edgeClient.js';
import { onSqliteStore } from './helpers.js';
import { publisherTenant } from './tenantFixture.js';
import { midHourClock } from './testTime.js';

/**
 * An optimised demand order through the real app (docs/ad-server.md, "Optimised demand order"):
 * three VAST demand tags answered by a local demand partner with known fill and price, a waterfall
 * and a capped auction listing them, real requests over a socket with the clock moved a second a
 * request and the edge's random draws seeded. The order converges to the tag worth most per call,
 * pinned tags keep their slot, and the measurements leave with the window.
 */
const QUERY = 'w=640&h=360&ip=8.8.8.8';
/** Above every campaign of the demo workspace: only the demand tags can fill. */
const FLOOR = 20_000_000;
const OPTIMISE = { explorePercent: 10, windowMinutes: 60, timeoutCostCpm: 1_000_000 };
const REQUESTS = 300;

/** The edge's draws, seeded (shared SeededRandom): the same on every run. */
const seeded = (seed: number): (() => number) => {
  const r = new SeededRandom(seed);
  return () => r.next();
};

onSqliteStore((t) => {
  const clock = midHourClock();
  const publisher = publisherTenant(
    t,
    async (p) => {
      // worth per call: $24 x 90 % = $21.60; $60 x 50 % = $30; $30 x 20 % = $6
      await p.vastTag('steady', 'Steady demand', { answer: 'inline?fill=90&key=steady', price: { cpm: 24 } });
      await p.vastTag('rich', 'Rich demand', { answer: 'inline?fill=50&key=rich', price: { cpm: 60 } });
      await p.vastTag('thin', 'Thin demand', { answer: 'inline?fill=20&key=thin', price: { cpm: 30 } });
      await p.vastChannel('waterfall', 'Optimised waterfall', {
        waterfall: true,
        demand: [['steady'], ['rich'], ['thin']],
      });
      await p.vastChannel('capped', 'Optimised auction of one call', { demand: ['steady', 'rich', 'thin'] });
      for (const [name, optimise] of [
        ['waterfall', OPTIMISE],
        ['capped', { ...OPTIMISE, maxCalls: 1 }],
      ] as const) {
        const res = await p.edit(name, { floorCpm: FLOOR, optimise });
        expect(res.statusCode, res.body).toBe(200);
      }
    },
    { listen: false, vastDemand: true, clock },
  );
  const { ids } = publisher;
  const tagOf = (key: string | null) => ['steady', 'rich', 'thin'].find((n) => n === key) ?? '';
  /** The tags the partner was called for since call `from`, in order. */
  const calledSince = (from: number) =>
    publisher.vastDemand.calls
      .slice(from)
      .filter((u) => u.pathname === '/inline')
      .map((u) => tagOf(u.searchParams.get('key')));
  const traceOf = async (channel: string): Promise<DecisionTrace> => {
    const res = await publisher.request({ method: 'GET', url: `/vast/${ids[channel]!.uid}?${QUERY}&debug=1` });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { trace: DecisionTrace }).trace;
  };
  /** A traced decision that does not explore: the measured order. */
  const measuredOrder = async (channel: string) => {
    const deps = publisher.app.edge.deps!;
    const random = deps.random;
    deps.random = () => 0.99;
    try {
      return (await traceOf(channel)).demandOrder!;
    } finally {
      deps.random = random;
    }
  };
  /** The first tag called by each of `n` requests to `channel`, the clock a second on before each. */
  const firstCalls = async (channel: string, n: number) => {
    const first: string[] = [];
    for (let i = 0; i < n; i++) {
      clock.advance(1000);
      const from = publisher.vastDemand.calls.length;
      const res = await edgeRequest(publisher.app, { method: 'GET', url: `/vast/${ids[channel]!.uid}?${QUERY}` });
      expect(res.statusCode).toBe(200);
      first.push(calledSince(from)[0] ?? '');
    }
    return first;
  };
  const share = (list: string[], tag: string) => list.filter((x) => x === tag).length / list.length;

  beforeAll(() => {
    publisher.app.edge.deps!.random = seeded(7);
  });

  it('a waterfall starts in the order set, then calls the tag worth most per call first', async () => {
    const before = await measuredOrder('waterfall');
    expect(before.tags.map((x) => [x.name, x.valueCpm])).toEqual([
      ['Steady demand', null],
      ['Rich demand', null],
      ['Thin demand', null],
    ]);
    const first = await firstCalls('waterfall', REQUESTS);
    // unmeasured, the order set: steady first on most requests
    expect(share(first.slice(0, 20), 'steady')).toBeGreaterThanOrEqual(0.8);
    // converged: rich first on every request but the exploring ones (10 %, of which a third draw rich first anyway)
    expect(share(first.slice(-100), 'rich')).toBeGreaterThanOrEqual(0.85);

    const after = await measuredOrder('waterfall');
    expect(after.basis).toBe('measured');
    expect(after.tags.map((x) => [x.name, x.priority])).toEqual([
      ['Rich demand', 1],
      ['Steady demand', 2],
      ['Thin demand', 3],
    ]);
    const worth = Object.fromEntries(after.tags.map((x) => [x.name, x.valueCpm]));
    expect(Math.abs(worth['Rich demand']! - 30_000_000)).toBeLessThan(2_000_000);
    expect(Math.abs(worth['Steady demand']! - 21_600_000)).toBeLessThan(2_000_000);
    // the thin tag, reached last, may not have its 20 calls yet: worth 0 then, still last
    const thin = worth['Thin demand'];
    if (thin !== null) expect(Math.abs(thin! - 6_000_000)).toBeLessThan(3_000_000);
  });

  it('an auction capped at one call calls the best tag alone, the next only when it does not fill', async () => {
    const first = await firstCalls('capped', REQUESTS - 100);
    const from = publisher.vastDemand.calls.length;
    const last = await firstCalls('capped', 100);
    expect(share(last, 'rich')).toBeGreaterThanOrEqual(0.85);
    expect(share(first.slice(0, 20), 'steady')).toBeGreaterThanOrEqual(0.8);
    // one call first, a second only when it did not fill (half the time): not the three of an auction of every tag
    expect(calledSince(from).length / 100).toBeLessThan(1.8);
    const order = await measuredOrder('capped');
    expect(order.maxCalls).toBe(1);
    expect(order.tags.map((x) => [x.name, x.priority])).toEqual([
      ['Rich demand', 1],
      ['Steady demand', 2],
      ['Thin demand', 3],
    ]);
  });

  it('a pinned tag keeps the slot it was given, the others ranked around it', async () => {
    const res = await publisher.edit('waterfall', {
      floorCpm: FLOOR,
      optimise: OPTIMISE,
      demand: [
        { tagId: ids.steady!.id, priority: 1, pinned: true },
        { tagId: ids.rich!.id, priority: 2 },
        { tagId: ids.thin!.id, priority: 3 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    await publisher.app.edge.snapshots.rebuild();
    const order = await measuredOrder('waterfall');
    expect(order.tags.map((x) => [x.name, x.pinned])).toEqual([
      ['Steady demand', true],
      ['Rich demand', false],
      ['Thin demand', false],
    ]);
  });

  it('what was measured leaves with the window: the order set again', async () => {
    clock.advance(2 * 3_600_000);
    const order = await measuredOrder('capped');
    expect(order.tags.map((x) => [x.name, x.calls, x.valueCpm])).toEqual([
      ['Steady demand', 0, null],
      ['Rich demand', 0, null],
      ['Thin demand', 0, null],
    ]);
  });

  it('refuses an optimisation out of range, naming the field', async () => {
    const res = await publisher.edit('waterfall', { optimise: { ...OPTIMISE, explorePercent: 80 } });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('optimise.explorePercent');
  });
});
