import { beforeAll, describe, expect, it } from 'vitest';
import {
  type DashboardAnswer,
  type DimensionId,
  type MetricId,
  NO_DEMAND_ID,
  NO_DEMAND_NAME,
  type RowStatsAnswer,
} from '@adplane/shared';
import { freshAddress } from './helpers.js';
import { forEachStoreAndStatsEngine } from './statsEngines.js';
import { publisherTenant } from './tenantFixture.js';
import { midHourClock } from './testTime.js';
import { edgeRequest } from './edgeClient.js';

/**
 * One definition of each number (docs/reports.md, "Requests and fill by scope"): known traffic served
 * through the edge (VAST requests, a demand tag that wins, one that loses, one its targeting refuses,
 * our campaign winning where it outbids the tags, a channel refusing by its targeting, a paused one),
 * then every list's numbers, the dashboard and reports by each pair of dimensions compared with one
 * another and with what was sent, on each stats engine.
 */
const US = '8.8.8.8';
const GB = '81.2.69.160';

type Channel = 'alpha' | 'beta' | 'direct' | 'gamma' | 'paused';
/** The requests sent, and whether the player fired the impression of a filled one. */
const TRAFFIC: { channel: Channel; ip: string; impression: boolean }[] = [
  { channel: 'alpha', ip: US, impression: true },
  { channel: 'alpha', ip: GB, impression: true },
  { channel: 'alpha', ip: US, impression: false },
  { channel: 'alpha', ip: GB, impression: true },
  { channel: 'beta', ip: US, impression: true },
  { channel: 'beta', ip: GB, impression: false },
  { channel: 'beta', ip: US, impression: true },
  { channel: 'direct', ip: US, impression: true },
  { channel: 'direct', ip: GB, impression: true },
  { channel: 'gamma', ip: US, impression: false },
  { channel: 'gamma', ip: GB, impression: false },
  { channel: 'paused', ip: US, impression: false },
];
const sent = (channel: Channel) => TRAFFIC.filter((x) => x.channel === channel);
const shown = (channel: Channel) => sent(channel).filter((x) => x.impression).length;

type Row = Record<string, unknown>;

/**
 * The blocks of each store share its config: each block's campaign bids a cent above the one before,
 * so that ours wins where it should rather than tying with an earlier block's (ties rotate).
 */
let blocks = 0;

forEachStoreAndStatsEngine(
  (t, s) => {
    const p = publisherTenant(
      t,
      async (p) => {
        await p.create('brazil', 'targetings', { name: 'Brazil only', rules: { countries: { values: ['BR'] } } });
        const advertiser = (name: string, domain: string) => ({
          name,
          username: `${name.toLowerCase()}_${Math.random().toString(36).slice(2, 8)}`,
          email: '',
          password: 'advertiser-pass',
          domain,
        });
        await p.create('brand', 'advs', advertiser('Brand', 'brand.example.com'));
        await p.create('buyer', 'advs', advertiser('Buyer', 'buyer.example.com'));
        // above every campaign: wins each auction it is in
        await p.create('fifty', 'tags', {
          name: 'Fifty',
          vastUrl: `${p.vastDemand.url}/inline?price=50`,
          price: { type: 'cpm', cpm: 50_000_000 },
          advertiserId: p.ids.brand!.id,
        });
        // below our campaign: loses each auction it is in
        await p.vastTag('twenty', 'Twenty', { answer: 'inline?price=20', price: { cpm: 20 } });
        await p.vastTag('refused', 'Brazil demand', {
          answer: 'inline?price=5',
          price: { cpm: 5 },
          targeting: 'brazil',
        });
        await p.videoSpot('spot', { advertiser: 'buyer.example.com', width: 640, height: 360, bitrate: 800 });
        // above the demo workspace's campaigns, below the tag of fifty
        await p.create('campaign', 'campaigns', {
          name: 'Thirty',
          startDate: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
          endDate: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
          bidCpm: 30_000_000 + 10_000 * blocks++,
          channelScope: 'all',
          creativeIds: [p.ids.spot!.id],
          advertiserId: p.ids.buyer!.id,
        });
        await p.vastChannel('alpha', 'Alpha', { demand: ['fifty', 'twenty', 'refused'], timeoutMs: 2000 });
        await p.vastChannel('beta', 'Beta', { demand: ['twenty'], timeoutMs: 2000 });
        await p.vastChannel('direct', 'Direct', { timeoutMs: 2000 });
        await p.vastChannel('gamma', 'Gamma', { demand: ['fifty'], targeting: 'brazil' });
        await p.vastChannel('paused', 'Paused', { demand: ['fifty'], paused: true });
      },
      { listen: false, vastDemand: true, statsEngine: s, signInFrom: freshAddress(), clock: midHourClock() },
    );
    const { ids } = p;
    const id = (name: string) => ids[name]!.id;

    beforeAll(async () => {
      for (const x of TRAFFIC) {
        const res = await edgeRequest(p.app, {
          method: 'GET',
          url: `/vast/${ids[x.channel]!.uid}?w=640&h=360&ip=${x.ip}`,
        });
        expect(res.statusCode).toBe(200);
        if (!x.impression) continue;
        const m = /<!\[CDATA\[([^\s<>]*?\/ev\?e=impression&[^\s<>]*?)\]\]>/.exec(res.body);
        expect(m, `${x.channel}: an ad with its impression pixel`).not.toBeNull();
        const path = m![1]!.slice(m![1]!.indexOf('/ev'));
        expect((await edgeRequest(p.app, { method: 'GET', url: path })).statusCode).toBeLessThan(400);
      }
      await p.app.edge.flush();
    });

    const get = async <T>(url: string): Promise<T> => {
      const res = await p.request({ method: 'GET', url });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<T>();
    };
    const list = (kind: string, names: string[]) =>
      get<RowStatsAnswer>(`/api/rowStats?kind=${kind}&period=today&ids=${names.map(id).join(',')}`);
    /** A report over the days and zone of a list's answer (or the dashboard's week). */
    const report = async (range: { startDate: string; endDate: string; timezone: number }, body: Row) => {
      const res = await p.request({ method: 'POST', url: '/api/rrun', payload: { ...range, ...body } });
      expect(res.statusCode, res.body).toBe(200);
      const rows = res.json<Row[]>();
      return { rows: rows.filter((r) => !r.total), total: rows.at(-1)! };
    };
    const rangeOf = (a: RowStatsAnswer) => ({ startDate: a.startDate, endDate: a.endDate, timezone: a.timezone });
    /** The report's rows of one value of `dim`, summed (counts) per metric. */
    const sumOf = (rows: Row[], dim: DimensionId, value: number, metrics: MetricId[]) =>
      Object.fromEntries(
        metrics.map((m) => [m, rows.filter((r) => r[dim] === value).reduce((n, r) => n + Number(r[m]), 0)]),
      );
    const fillOf = (imps: number, opps: number) => (opps === 0 ? 0 : (imps * 100) / opps);

    const TAGS = ['fifty', 'twenty', 'refused'];
    /** What the traffic makes of each tag: the times it was considered, called, won, and its impressions. */
    const tagWant = {
      fifty: {
        reqs: sent('alpha').length,
        opps: sent('alpha').length,
        wins: sent('alpha').length,
        imps: shown('alpha'),
      },
      twenty: {
        reqs: sent('alpha').length + sent('beta').length,
        opps: sent('alpha').length + sent('beta').length,
        wins: 0,
        imps: 0,
      },
      refused: { reqs: sent('alpha').length, opps: 0, wins: 0, imps: 0 },
    };
    const campaignWins = sent('beta').length + sent('direct').length;
    const campaignImps = shown('beta') + shown('direct');
    const notCalled = sent('gamma').length + sent('paused').length;

    it('counts each request once without a demand dimension: the channels list, the report by channel and the dashboard agree', async () => {
      const channels: Channel[] = ['alpha', 'beta', 'direct', 'gamma', 'paused'];
      const listed = await list('channels', channels);
      const byChannel = await report(rangeOf(listed), {
        dimensions: ['channel'],
        metrics: ['reqs', 'opps', 'imps', 'fill', 'revenue'],
      });
      for (const c of channels) {
        const offered = c === 'gamma' || c === 'paused' ? 0 : sent(c).length;
        const want = { reqs: sent(c).length, opps: offered, imps: shown(c), fill: fillOf(shown(c), offered) };
        const row = byChannel.rows.find((r) => r.channel === id(c));
        expect(row, c).toMatchObject(want);
        expect(listed.rows[String(id(c))] ?? {}, c).toMatchObject({
          reqs: want.reqs,
          imps: want.imps,
          fill: want.fill,
        });
      }
      expect(byChannel.total).toMatchObject({ reqs: TRAFFIC.length, imps: shown('alpha') + campaignImps });

      const d = await get<DashboardAnswer>('/api/dashboard');
      const today = await report(
        { startDate: d.today, endDate: d.today, timezone: d.timezone },
        { dimensions: [], metrics: ['reqs', 'opps', 'imps', 'fill', 'revenue'] },
      );
      expect(d.totals.today).toMatchObject({ reqs: TRAFFIC.length, imps: today.total.imps, fill: today.total.fill });
      expect(today.total.reqs).toBe(TRAFFIC.length);
    });

    it('puts every count of a tag on its one row: the tags list, reports by tag and by each pair, and the dashboard agree', async () => {
      const listed = await list('tags', TAGS);
      const range = rangeOf(listed);
      const metrics: MetricId[] = [
        'reqs',
        'opps',
        'source_reqs',
        'source_opps',
        'imps',
        'wins',
        'fill',
        'sourceFill',
        'revenue',
      ];
      const byTag = await report(range, { dimensions: ['tag'], metrics });
      for (const tag of TAGS) {
        const want = tagWant[tag as keyof typeof tagWant];
        const row = byTag.rows.find((r) => r.tag === id(tag))!;
        expect(row, tag).toMatchObject({
          reqs: want.reqs,
          source_reqs: want.reqs,
          opps: want.opps,
          source_opps: want.opps,
          wins: want.wins,
          imps: want.imps,
          fill: fillOf(want.imps, want.opps),
          sourceFill: fillOf(want.imps, want.opps),
        });
        // the list shows the same numbers: Requests, Impressions, Fill
        expect(listed.rows[String(id(tag))] ?? {}, tag).toMatchObject({
          source_reqs: row.reqs,
          imps: row.imps,
          sourceFill: row.fill,
          revenue: row.revenue,
        });
      }

      // with any other dimension, the tag's rows add up to the same
      for (const other of [
        'channel',
        'country',
        'device',
        'hour',
        'date',
        'integration',
        'subpublisher',
      ] as DimensionId[]) {
        const pair = await report(range, { dimensions: ['tag', other], metrics });
        for (const tag of TAGS) {
          const summed = sumOf(pair.rows, 'tag', id(tag), ['reqs', 'opps', 'imps', 'wins', 'revenue']);
          const row = byTag.rows.find((r) => r.tag === id(tag))!;
          expect(summed, `tag x ${other}: ${tag}`).toEqual({
            reqs: row.reqs,
            opps: row.opps,
            imps: row.imps,
            wins: row.wins,
            revenue: row.revenue,
          });
        }
        expect(pair.total.reqs, `tag x ${other}: totals`).toBe(byTag.total.reqs);
      }
      // by the tag's own ids, each tag is one row, its requests and impressions together
      for (const other of ['advertiser', 'partner', 'marketplace_name', 'deal'] as DimensionId[]) {
        const pair = await report(range, { dimensions: ['tag', other], metrics });
        for (const tag of TAGS) {
          const rows = pair.rows.filter((r) => r.tag === id(tag));
          expect(rows, `tag x ${other}: ${tag}`).toHaveLength(1);
          expect(rows[0], `tag x ${other}: ${tag}`).toMatchObject({
            reqs: listed.rows[String(id(tag))]?.source_reqs ?? 0,
            imps: listed.rows[String(id(tag))]?.imps ?? 0,
          });
        }
      }
      const byAdvertiser = await report(range, { dimensions: ['tag', 'advertiser'], metrics });
      expect(byAdvertiser.rows.find((r) => r.tag === id('fifty'))?.advertiser).toBe(id('brand'));

      // the report by tag's total: every tag's requests, and the requests offered to no demand once
      const total = TAGS.reduce((n, tag) => n + tagWant[tag as keyof typeof tagWant].reqs, 0) + notCalled;
      expect(byTag.total.reqs).toBe(total);

      const d = await get<DashboardAnswer>('/api/dashboard');
      const week = await report(
        { startDate: d.weekStart, endDate: d.today, timezone: d.timezone },
        { dimensions: ['tag'], metrics: ['revenue', 'imps', 'fill'] },
      );
      const fifty = d.topDemand.find((r) => r.tag === id('fifty'));
      expect(fifty).toMatchObject({
        imps: listed.rows[String(id('fifty'))]!.imps,
        fill: listed.rows[String(id('fifty'))]!.sourceFill,
      });
      expect(fifty).toMatchObject(
        Object.fromEntries(
          Object.entries(week.rows.find((r) => r.tag === id('fifty'))!).filter(([k]) => k !== 'tag_name'),
        ),
      );
    });

    it('shows the requests offered to no demand as their own row, "No demand called", in a report by channel and tag', async () => {
      const listed = await list('tags', TAGS);
      const pair = await report(rangeOf(listed), {
        dimensions: ['channel', 'tag'],
        metrics: ['reqs', 'opps', 'imps', 'fill', 'ivt', 'revenue'],
      });
      const none = pair.rows.filter((r) => r.tag === NO_DEMAND_ID);
      expect(none.map((r) => [r.channel, r.reqs, r.opps, r.imps, r.fill]).sort()).toEqual(
        [
          [id('gamma'), sent('gamma').length, 0, 0, 0],
          [id('paused'), sent('paused').length, 0, 0, 0],
        ].sort(),
      );
      for (const r of none) expect(r.tag_name).toBe(NO_DEMAND_NAME);
      // a channel whose requests were all offered to demand has no such row, and no row without a tag but our campaign's
      const untagged = pair.rows.filter((r) => r.tag === 0);
      expect(untagged.map((r) => r.channel).sort()).toEqual([id('beta'), id('direct')].sort());
      for (const r of untagged) expect(r.reqs).toBe(0);
      // alpha: its tags' rows, their requests the times each was considered
      const alpha = pair.rows.filter((r) => r.channel === id('alpha'));
      expect(alpha.map((r) => [r.tag, r.reqs, r.imps]).sort()).toEqual(
        [
          [id('fifty'), sent('alpha').length, shown('alpha')],
          [id('twenty'), sent('alpha').length, 0],
          [id('refused'), sent('alpha').length, 0],
        ].sort(),
      );
    });

    it("counts a campaign's wins and impressions on the row of its creative: the campaigns and creatives lists and the report agree", async () => {
      const campaigns = await list('campaigns', ['campaign']);
      const creatives = await list('creatives', ['spot']);
      const want = { wins: campaignWins, bids: campaignWins, imps: campaignImps };
      expect(campaigns.rows[String(id('campaign'))]).toMatchObject(want);
      expect(creatives.rows[String(id('spot'))]).toMatchObject(want);
      const metrics: MetricId[] = ['bids', 'wins', 'imps', 'revenue', 'ecpm'];
      const pair = await report(rangeOf(campaigns), { dimensions: ['campaign', 'creative'], metrics });
      const rows = pair.rows.filter((r) => r.campaign === id('campaign'));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ creative: id('spot'), ...campaigns.rows[String(id('campaign'))] });
      expect(creatives.rows[String(id('spot'))]).toEqual(campaigns.rows[String(id('campaign'))]);
      // by the advertiser, the campaign's wins and impressions are the buyer's
      const byAdvertiser = await report(rangeOf(campaigns), { dimensions: ['campaign', 'advertiser'], metrics });
      expect(byAdvertiser.rows.filter((r) => r.campaign === id('campaign'))).toEqual([
        expect.objectContaining({ advertiser: id('buyer'), wins: campaignWins, imps: campaignImps }),
      ]);
    });

    it("shows an advertiser's tags' requests and fill on its row: the advertisers list and the report by advertiser agree", async () => {
      const listed = await list('advs', ['brand', 'buyer']);
      const byAdvertiser = await report(rangeOf(listed), {
        dimensions: ['advertiser'],
        metrics: ['reqs', 'source_reqs', 'imps', 'fill', 'sourceFill', 'revenue', 'ecpm'],
      });
      const brand = byAdvertiser.rows.find((r) => r.advertiser === id('brand'))!;
      expect(brand).toMatchObject({ reqs: tagWant.fifty.reqs, imps: tagWant.fifty.imps });
      expect(listed.rows[String(id('brand'))]).toEqual({
        source_reqs: brand.reqs,
        imps: brand.imps,
        sourceFill: brand.fill,
        revenue: brand.revenue,
        ecpm: brand.ecpm,
      });
      // the buyer's campaign is not called per request: its impressions without requests
      expect(listed.rows[String(id('buyer'))]).toMatchObject({ source_reqs: 0, imps: campaignImps });
    });

    describe('reports by two demand dimensions', () => {
      it('each demand value is on one row with any other demand dimension', async () => {
        const listed = await list('tags', TAGS);
        const metrics: MetricId[] = ['reqs', 'imps', 'wins'];
        const demand: DimensionId[] = [
          'tag',
          'advertiser',
          'campaign',
          'creative',
          'partner',
          'marketplace_name',
          'deal',
        ];
        for (const a of ['tag', 'campaign', 'creative'] as DimensionId[]) {
          const alone = await report(rangeOf(listed), { dimensions: [a], metrics });
          for (const b of demand.filter((x) => x !== a)) {
            const pair = await report(rangeOf(listed), { dimensions: [a, b], metrics });
            for (const row of alone.rows.filter((r) => Number(r[a]) > 0)) {
              const rows = pair.rows.filter((r) => r[a] === row[a]);
              expect(rows, `${a} x ${b}: ${String(row[a])}`).toHaveLength(1);
              expect(rows[0], `${a} x ${b}: ${String(row[a])}`).toMatchObject({
                reqs: row.reqs,
                imps: row.imps,
                wins: row.wins,
              });
            }
            expect(pair.total, `${a} x ${b}`).toMatchObject({ reqs: alone.total.reqs, imps: alone.total.imps });
          }
        }
      });
    });
  },
  { current: true },
);
