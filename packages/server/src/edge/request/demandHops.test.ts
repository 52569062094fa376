import { describe, expect, it } from 'vitest';
import { type BidRequest } from '@adplane/shared';
import {
  DemandLoopGuard,
  HOP_HEADER,
  HopMarker,
  LOOP_LOG_INTERVAL_MS,
  type LoopRefusal,
  NOTICE_HOPS,
} from './demandHops.js';

const KEY = 'k'.repeat(43);
const marker = new HopMarker(KEY);

/** A bid request whose supply chain holds `nodes`. */
const withChain = (nodes: object[], where: 'source' | 'source.ext' = 'source'): BidRequest => {
  const schain = { ver: '1.0', complete: 1, nodes };
  return {
    id: 'r',
    imp: [{ id: '1' }],
    source: where === 'source' ? { schain } : { ext: { schain } },
  } as unknown as BidRequest;
};

describe('the hop header', () => {
  it('reads back the hops it wrote, 1 to the notice hops', () => {
    for (let hops = 1; hops <= NOTICE_HOPS; hops++) expect(marker.readHeader(marker.header(hops))).toBe(hops);
    // a call of a request nobody of ours made is the first hop; more than the notice hops read as them
    expect(marker.readHeader(marker.header(0))).toBe(1);
    expect(marker.readHeader(marker.header(50))).toBe(NOTICE_HOPS);
  });

  it("reads 0 for another deployment's header, a forged or damaged one, and none", () => {
    const other = new HopMarker('another deployment key, 32 chars+');
    expect(marker.readHeader(other.header(1))).toBe(0);
    const ours = marker.header(2);
    expect(marker.readHeader(`3${ours.slice(1)}`)).toBe(0);
    expect(marker.readHeader(ours.slice(0, -1))).toBe(0);
    expect(marker.readHeader(`${ours}x`)).toBe(0);
    for (const v of ['', '1', '1.', 'x.y', '-1.abc', undefined]) expect(marker.readHeader(v)).toBe(0);
    expect(marker.readHeader([ours, 'junk'])).toBe(2);
  });
});

describe('the supply chain mark', () => {
  it('marks our node by its request id, and counts our marked nodes in a chain (2.6 and 2.5 places)', () => {
    const ours1 = marker.mark({ asi: 'ads.example', sid: 'ch-1', hp: 1, rid: 'req-1' });
    const ours2 = marker.mark({ asi: 'other-tenant.example', sid: 'ch-2', hp: 1, rid: 'req-2' });
    expect(ours1.ext?.adplane).toEqual(expect.any(String));
    const exchange = { asi: 'exchange.example', sid: 'pub-9', hp: 1, rid: 'x' };
    expect(marker.chainHops(withChain([exchange]))).toBe(0);
    expect(marker.chainHops(withChain([ours1, exchange]))).toBe(1);
    expect(marker.chainHops(withChain([ours1, exchange, ours2], 'source.ext'))).toBe(2);
  });

  it("does not count a mark moved to another node, another deployment's, or a node without a request id", () => {
    const ours = marker.mark({ asi: 'ads.example', sid: 'ch-1', hp: 1, rid: 'req-1' });
    const moved = { ...ours, rid: 'req-2' };
    const theirs = new HopMarker('another deployment key, 32 chars+').mark({
      asi: 'a.example',
      sid: '1',
      hp: 1,
      rid: 'req-3',
    });
    expect(marker.mark({ asi: 'a.example', sid: '1', hp: 1 }).ext).toBeUndefined();
    expect(marker.chainHops(withChain([moved, theirs]))).toBe(0);
  });

  it('takes the more of the header and the chain for an inbound request, null when neither is ours', () => {
    const chain = withChain([
      marker.mark({ asi: 'a', sid: '1', hp: 1, rid: 'r1' }),
      marker.mark({ asi: 'a', sid: '2', hp: 1, rid: 'r2' }),
    ]);
    expect(marker.inbound({ [HOP_HEADER]: marker.header(1) }, chain)).toEqual({ count: 2, looped: false });
    expect(marker.inbound({ [HOP_HEADER]: marker.header(3) }, chain)).toEqual({ count: 3, looped: false });
    expect(marker.inbound({ [HOP_HEADER]: marker.header(1) })).toEqual({ count: 1, looped: false });
    expect(marker.inbound({}, withChain([]))).toBeNull();
    expect(marker.inbound({ [HOP_HEADER]: 'forged' })).toBeNull();
  });
});

describe('the demand loop guard', () => {
  const OWN = 'http://ads.example/vast/abc';
  const ownEntry = (url: string) => (url === OWN ? '/vast/' : null);
  const guard = (allowSelf: boolean, log: { lines: unknown[] } | null = null, now = () => 0) => {
    const refusals: LoopRefusal[] = [];
    const g = new DemandLoopGuard(
      marker,
      allowSelf,
      ownEntry,
      (r) => refusals.push(r),
      log ? { warn: (fields, message) => log.lines.push({ ...fields, message }) } : null,
      now,
    );
    return { g, refusals };
  };

  it('refuses every request of ours by default, and beyond one hop when the operator allows own-origin demand', () => {
    const strict = guard(false);
    expect(strict.g.refusesEntry(undefined, { kind: 'VAST' })).toBe(false);
    const one = { count: 1, looped: false };
    expect(strict.g.refusesEntry(one, { kind: 'VAST', tenantId: 3, channelUid: 'abc' })).toBe(true);
    expect(one.looped).toBe(true);
    expect(strict.refusals).toEqual([{ kind: 'VAST', tenantId: 3, channelUid: 'abc', stage: 'entry', hops: 1 }]);

    const allowing = guard(true);
    expect(allowing.g.maxHops).toBe(1);
    expect(allowing.g.refusesEntry({ count: 1, looped: false }, { kind: 'RTB' })).toBe(false);
    expect(allowing.g.refusesEntry({ count: 2, looped: false }, { kind: 'RTB' })).toBe(true);
    expect(allowing.g.refusesEntry({ count: NOTICE_HOPS, looped: false }, { kind: 'RTB' })).toBe(true);
  });

  it("refuses a call to the edge's own entry point (a notice's even when own-origin demand is allowed), and no other", () => {
    const strict = guard(false);
    expect(strict.g.refusesCall('http://demand.example/vast', 'vast')).toBe(false);
    expect(strict.g.refusesCall(OWN, 'vast', { tenantId: 3 })).toBe(true);
    expect(strict.g.refusesCall(OWN, 'ortb')).toBe(true);
    expect(strict.refusals).toEqual([
      { tenantId: 3, channelUid: undefined, stage: 'call', kind: 'vast', url: OWN },
      { tenantId: undefined, channelUid: undefined, stage: 'call', kind: 'ortb', url: OWN },
    ]);
    const allowing = guard(true);
    expect(allowing.g.refusesCall(OWN, 'vast')).toBe(false);
    expect(allowing.g.refusesCall(OWN, 'notice')).toBe(true);
  });

  it('logs a line a minute at most per stage, saying how many it did not log', () => {
    let now = 1_000_000;
    const log = { lines: [] as Record<string, unknown>[] };
    const { g, refusals } = guard(false, log, () => now);
    for (let i = 0; i < 5; i++) g.refusesEntry({ count: 1, looped: false }, { kind: 'VAST' });
    g.refusesCall(OWN, 'vast');
    expect(refusals).toHaveLength(6);
    expect(log.lines.map((l) => [l.stage, l.refusedSinceLastLine])).toEqual([
      ['entry', 0],
      ['call', 0],
    ]);
    now += LOOP_LOG_INTERVAL_MS;
    g.refusesEntry({ count: 1, looped: false }, { kind: 'VAST' });
    expect(log.lines.map((l) => [l.stage, l.refusedSinceLastLine])).toEqual([
      ['entry', 0],
      ['call', 0],
      ['entry', 4],
    ]);
    expect(String(log.lines[0]!.message)).toMatch(/demand loop refused/);
  });
});
