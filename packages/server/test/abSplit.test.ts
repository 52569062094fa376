import { type DecisionTrace, SeededRandom } from '@adplane/shared';
import { beforeAll, expect, it } from 'vitest';
import { edgeRequest } from './edgeClient.js';
import { onSqliteStore } from './helpers.js';
import { publisherTenant } from './tenantFixture.js';

/**
 * An A/B split through the real app (docs/ad-server.md, "A/B splits"): a channel whose arm A calls one
 * VAST demand tag and whose arm B, 30 % of its requests, calls another at its own floor. Real requests
 * over a socket: arm B's share is 30 % within a binomial tolerance, a viewer named by its device id
 * stays in one arm, the trace says which arm served and why.
 */
const QUERY = 'w=640&h=360&ip=8.8.8.8';
/** Above every campaign of the demo workspace: only the demand tags can fill. */
const FLOOR = 20_000_000;
const ARM_B_FLOOR = 25_000_000;
const PERCENT = 30;

/** Whether `count` of `n` draws is within four standard deviations of `p` (a binomial). */
const withinBinomial = (count: number, n: number, p: number) =>
  Math.abs(count - n * p) <= 4 * Math.sqrt(n * p * (1 - p));

onSqliteStore((t) => {
  const publisher = publisherTenant(
    t,
    async (p) => {
      await p.vastTag('a', 'Arm A demand', { answer: 'inline?key=arm-a', price: { cpm: 24 } });
      await p.vastTag('b', 'Arm B demand', { answer: 'inline?key=arm-b', price: { cpm: 30 } });
      await p.vastChannel('split', 'Split channel', { demand: ['a'] });
      const res = await p.edit('split', {
        floorCpm: FLOOR,
        split: { percent: PERCENT, demand: [{ tagId: p.ids.b!.id, priority: 1 }], floorCpm: ARM_B_FLOOR },
      });
      expect(res.statusCode, res.body).toBe(200);
    },
    { listen: false, vastDemand: true },
  );
  const { ids } = publisher;
  /** The arm each request served by the partner's call (arm-a or arm-b) since call `from`. */
  const armsSince = (from: number) =>
    publisher.vastDemand.calls
      .slice(from)
      .filter((u) => u.pathname === '/inline')
      .map((u) => (u.searchParams.get('key') === 'arm-b' ? 'B' : 'A'));
  const vast = (query = '') =>
    edgeRequest(publisher.app, { method: 'GET', url: `/vast/${ids.split!.uid}?${QUERY}${query}` });
  const traceOf = async (query = ''): Promise<DecisionTrace> => {
    const res = await publisher.request({ method: 'GET', url: `/vast/${ids.split!.uid}?${QUERY}${query}&debug=1` });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { trace: DecisionTrace }).trace;
  };

  beforeAll(() => {
    const random = new SeededRandom(11);
    publisher.app.edge.deps!.random = () => random.next();
  });

  it("serves the split's percent of the requests with arm B, within a binomial tolerance", async () => {
    const from = publisher.vastDemand.calls.length;
    const n = 1000;
    for (let i = 0; i < n; i++) {
      const res = await vast();
      expect(res.body).toMatch(/<Ad[\s>]/);
    }
    const arms = armsSince(from);
    // one call a request, to the arm's own tag
    expect(arms).toHaveLength(n);
    const b = arms.filter((a) => a === 'B').length;
    expect(withinBinomial(b, n, PERCENT / 100), `arm B served ${b} of ${n}`).toBe(true);
  });

  it('says which arm served and why: arm B at its own floor, with its own demand', async () => {
    let b: DecisionTrace | null = null;
    let a: DecisionTrace | null = null;
    for (let i = 0; i < 40 && (!a || !b); i++) {
      const trace = await traceOf();
      if (trace.arm?.arm === 'B') b = trace;
      else a = trace;
    }
    expect(b!.arm).toMatchObject({ arm: 'B', percent: PERCENT, by: 'random' });
    expect(b!.arm!.draw).toBeLessThan(PERCENT);
    expect(b!.channel?.floorCpm).toBe(ARM_B_FLOOR);
    expect(b!.winner).toMatchObject({ source: 'vast_tag', id: ids.b!.id });
    expect(a!.arm).toMatchObject({ arm: 'A', by: 'random' });
    expect(a!.arm!.draw).toBeGreaterThanOrEqual(PERCENT);
    expect(a!.channel?.floorCpm).toBe(FLOOR);
    expect(a!.winner).toMatchObject({ source: 'vast_tag', id: ids.a!.id });
  });

  it('keeps a viewer named by its device id in one arm; viewers split at the percent', async () => {
    const armOf = async (device: string) => {
      const from = publisher.vastDemand.calls.length;
      await vast(`&device_id=${device}`);
      return armsSince(from)[0];
    };
    const first = await armOf('viewer-1');
    for (let i = 0; i < 10; i++) expect(await armOf('viewer-1')).toBe(first);
    const viewers = 300;
    let b = 0;
    for (let i = 0; i < viewers; i++) if ((await armOf(`device-${i}`)) === 'B') b++;
    expect(withinBinomial(b, viewers, PERCENT / 100), `arm B served ${b} of ${viewers} viewers`).toBe(true);
    expect((await traceOf('&device_id=viewer-1')).arm).toMatchObject({ arm: first, by: 'viewer' });
  });

  it("compiles every channel in one layout, both arms of a split and the decision's copies included", async () => {
    await publisher.app.edge.snapshots.rebuild();
    const snapshot = publisher.app.edge.snapshots.current!;
    const layout = (channel: object) => Object.keys(channel).join(',');
    const split = snapshot.channelsByUid.get(ids.split!.uid)!;
    const layouts = new Set([...snapshot.channelsByUid.values()].map(layout));
    layouts.add(layout(split.split!.b));
    layouts.add(layout({ ...split, floorCpm: 1, floorInForce: { source: 'static', rule: null, floorCpm: 1 } }));
    expect(snapshot.channelsByUid.size).toBeGreaterThan(1);
    expect([...layouts]).toHaveLength(1);
  });

  it('refuses a split out of range, naming the field', async () => {
    const res = await publisher.edit('split', { split: { percent: 100, demand: [] } });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('split.percent');
  });
});
