import { type ReportRow, SeededRandom } from '@adplane/shared';
import { beforeAll, expect, it } from 'vitest';
import { edgeRequest, type EdgeAnswer } from './edgeClient.js';
import { freshAddress } from './helpers.js';
import { forEachStoreAndStatsEngine } from './statsEngines.js';
import { publisherTenant } from './tenantFixture.js';
import { isoDay, midHourClock } from './testTime.js';

/**
 * The A/B arm as a report dimension, through the real app (docs/reports.md, "Dimensions";
 * docs/ad-server.md, "A/B splits"): split channels served over a socket by VAST, by a supplier's
 * OpenRTB request and by Prebid Server's auction, over three hours of the app's clock, each filled
 * answer's impression fired by the player (all but every fifth). Arm A calls one VAST tag, arm B,
 * 40 % of the requests, another at a higher price; each answers a fixed share of its calls. A report
 * by arm then says exactly what each arm served: requests, demand calls, wins, impressions and
 * revenue, from the rollup and from the full rows alike; a channel without a split has no arm.
 */
const FLOOR = 20_000_000;
/** Each arm's tag's CPM (USD): above the floor, which keeps the demo workspace's campaigns out. */
const CPM = { A: 24, B: 30 } as const;
const PERCENT = 40;
const HOURS = 3;
const PER_HOUR = { vast: 24, rtb: 12, prebid: 12 } as const;
type Entry = keyof typeof PER_HOUR;
type Arm = 'A' | 'B';
interface Tally {
  reqs: number;
  calls: number;
  wins: number;
  imps: number;
  revenue: number;
}
const empty = (): Tally => ({ reqs: 0, calls: 0, wins: 0, imps: 0, revenue: 0 });

/** The tracking token of the impression URL our answer carries (VAST, or VAST in a bid's adm), null when nothing filled. */
const impressionToken = (text: string): string | null =>
  /\/ev\?e=impression&(?:amp;)?t=([A-Za-z0-9_~.-]+)/.exec(text)?.[1] ?? null;

forEachStoreAndStatsEngine((t, s) => {
  const clock = midHourClock();
  const publisher = publisherTenant(
    t,
    async (p) => {
      await p.vastTag('a', 'Arm A demand', { answer: 'inline?key=arm-a&fill=75', price: { cpm: CPM.A } });
      await p.vastTag('b', 'Arm B demand', { answer: 'inline?key=arm-b&fill=90', price: { cpm: CPM.B } });
      const split = { percent: PERCENT, demand: [{ tagId: p.ids.b!.id, priority: 1 }], floorCpm: null };
      await p.vastChannel('vast', 'Split by VAST', { demand: ['a'] });
      await p.openRtbChannel('rtb', 'Split by OpenRTB', { demand: ['a'] });
      await p.prebidChannel('prebid', 'Split by Prebid', { format: 'video', vastVersion: '4.2', demand: ['a'] });
      await p.vastChannel('plain', 'Not split', { demand: ['a'] });
      for (const name of ['vast', 'rtb', 'prebid']) {
        const res = await p.edit(name, { floorCpm: FLOOR, split });
        expect(res.statusCode, res.body).toBe(200);
      }
      expect((await p.edit('plain', { floorCpm: FLOOR })).statusCode).toBe(200);
    },
    { listen: false, vastDemand: true, statsEngine: s, signInFrom: freshAddress(), clock },
  );
  const { ids } = publisher;
  /** What each channel's arms served, as the test saw it: the partner's calls, the answers, the impressions fired. */
  const served: Record<Entry | 'plain', Record<Arm | '', Tally>> = {
    vast: { A: empty(), B: empty(), '': empty() },
    rtb: { A: empty(), B: empty(), '': empty() },
    prebid: { A: empty(), B: empty(), '': empty() },
    plain: { A: empty(), B: empty(), '': empty() },
  };
  const start = clock.now();

  const send = (entry: Entry | 'plain', i: number): Promise<EdgeAnswer> => {
    const device = { ip: '8.8.8.8', ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36' };
    const video = { mimes: ['video/mp4'], protocols: [2, 3, 5, 6, 7, 8], w: 640, h: 360, plcmt: 1 };
    if (entry === 'rtb')
      return edgeRequest(publisher.app, {
        method: 'POST',
        url: `/rtb/${ids.rtb!.uid}`,
        payload: {
          id: `rtb-${i}`,
          tmax: 1000,
          site: { page: 'https://news.example.com/v' },
          device,
          imp: [{ id: '1', video }],
        },
      });
    if (entry === 'prebid')
      return edgeRequest(publisher.app, {
        method: 'POST',
        url: '/openrtb2/auction',
        payload: {
          id: `pb-${i}`,
          tmax: 1000,
          site: { page: 'https://news.example.com/v', domain: 'news.example.com' },
          device,
          imp: [{ id: 'v', video, ext: { prebid: { bidder: { adplane: { channel: ids.prebid!.uid } } } } }],
        },
      });
    return edgeRequest(publisher.app, { method: 'GET', url: `/vast/${ids[entry]!.uid}?w=640&h=360&ip=8.8.8.8` });
  };

  /** One request of `entry`: which arm's tag it called, whether it filled, and its impression fired (all but every fifth). */
  const serveOne = async (entry: Entry | 'plain', i: number) => {
    const from = publisher.vastDemand.calls.length;
    const res = await send(entry, i);
    expect([200, 204], res.body).toContain(res.statusCode);
    const calls = publisher.vastDemand.calls.slice(from).filter((u) => u.pathname === '/inline');
    // one call a request, to the arm's own tag
    expect(calls).toHaveLength(1);
    const arm: Arm = calls[0]!.searchParams.get('key') === 'arm-b' ? 'B' : 'A';
    const tally = served[entry][entry === 'plain' ? '' : arm];
    tally.reqs++;
    tally.calls++;
    const token = res.statusCode === 200 ? impressionToken(res.body) : null;
    if (!token) return;
    tally.wins++;
    if (i % 5 === 4) return;
    const beacon = await edgeRequest(publisher.app, { method: 'GET', url: `/ev?e=impression&t=${token}` });
    expect(beacon.statusCode).toBe(200);
    tally.imps++;
    tally.revenue += CPM[arm] * 1000;
  };

  beforeAll(async () => {
    const random = new SeededRandom(5);
    publisher.app.edge.deps!.random = () => random.next();
    for (let hour = 0; hour < HOURS; hour++) {
      clock.set(start + hour * 3_600_000);
      for (const entry of ['vast', 'rtb', 'prebid'] as const)
        for (let i = 0; i < PER_HOUR[entry]; i++) await serveOne(entry, hour * 100 + i);
      for (let i = 0; i < 4; i++) await serveOne('plain', hour * 100 + i);
    }
    await publisher.app.edge.flush();
  }, 120_000);

  const report = async (body: Record<string, unknown>): Promise<ReportRow[]> => {
    const res = await publisher.request({
      method: 'POST',
      url: '/api/rrun',
      payload: { startDate: isoDay(start, -1), endDate: isoDay(start, 1), timezone: 0, ...body },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ReportRow[];
  };
  const METRICS = ['reqs', 'demandCalls', 'wins', 'imps', 'revenue'];
  const asTally = (row: ReportRow | undefined): Tally => ({
    reqs: Number(row?.reqs ?? 0),
    calls: Number(row?.demandCalls ?? 0),
    wins: Number(row?.wins ?? 0),
    imps: Number(row?.imps ?? 0),
    revenue: Number(row?.revenue ?? 0),
  });

  it('served both arms of every entry point: arm B about its percent of the requests', () => {
    for (const entry of ['vast', 'rtb', 'prebid'] as const) {
      const { A, B } = served[entry];
      expect(A.reqs + B.reqs).toBe(PER_HOUR[entry] * HOURS);
      expect(A.imps, entry).toBeGreaterThan(0);
      expect(B.imps, entry).toBeGreaterThan(0);
    }
    const b = served.vast.B.reqs + served.rtb.B.reqs + served.prebid.B.reqs;
    const n = (PER_HOUR.vast + PER_HOUR.rtb + PER_HOUR.prebid) * HOURS;
    expect(Math.abs(b - n * 0.4)).toBeLessThanOrEqual(4 * Math.sqrt(n * 0.4 * 0.6));
  });

  it('answers a report by channel and arm with exactly what each arm served, and no arm on a channel without a split', async () => {
    const rows = await report({
      dimensions: ['channel', 'arm'],
      metrics: METRICS,
      filters: { channel: ['vast', 'rtb', 'prebid', 'plain'].map((n) => ids[n]!.id) },
    });
    for (const entry of ['vast', 'rtb', 'prebid', 'plain'] as const) {
      const of = rows.filter((r) => !r.total && r.channel === ids[entry]!.id);
      const arms = entry === 'plain' ? [''] : ['A', 'B'];
      expect(of.map((r) => r.arm).sort(), entry).toEqual(arms);
      for (const arm of arms)
        expect(asTally(of.find((r) => r.arm === arm)), `${entry} arm ${arm || '(none)'}`).toEqual(
          served[entry][arm as Arm | ''],
        );
    }
  });

  it('says the same by arm and hour from the full rows, and filtered to one arm', async () => {
    const channel = [ids.vast!.id];
    const byHour = await report({ dimensions: ['arm', 'hour', 'country'], metrics: METRICS, filters: { channel } });
    for (const arm of ['A', 'B'] as const) {
      const rows = byHour.filter((r) => !r.total && r.arm === arm);
      // one row an hour: every request came from one country
      expect(rows).toHaveLength(HOURS);
      const sum = rows.reduce<Tally>((t, r) => {
        const x = asTally(r);
        return {
          reqs: t.reqs + x.reqs,
          calls: t.calls + x.calls,
          wins: t.wins + x.wins,
          imps: t.imps + x.imps,
          revenue: t.revenue + x.revenue,
        };
      }, empty());
      expect(sum).toEqual(served.vast[arm]);
    }
    const onlyB = await report({ dimensions: ['channel'], metrics: METRICS, filters: { channel, arm: ['B'] } });
    expect(asTally(onlyB.find((r) => r.channel === ids.vast!.id))).toEqual(served.vast.B);
  });

  it('counts each arm of a demand tag on its own rows: the arm B tag only on arm B', async () => {
    const rows = await report({
      dimensions: ['tag', 'arm'],
      metrics: ['source_reqs', 'demandCalls', 'imps'],
      filters: { channel: [ids.vast!.id], tag: [ids.a!.id, ids.b!.id] },
    });
    const real = rows.filter((r) => !r.total);
    expect(real.map((r) => [r.tag, r.arm]).sort()).toEqual(
      [
        [ids.a!.id, 'A'],
        [ids.b!.id, 'B'],
      ].sort(),
    );
    expect(real.find((r) => r.tag === ids.b!.id)).toMatchObject({
      demandCalls: served.vast.B.calls,
      imps: served.vast.B.imps,
    });
  });
});
