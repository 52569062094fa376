import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChannelFloors,
  channelFloorsPath,
  computeFloorTable,
  type DecisionTrace,
  DynamicFloorSettings,
} from '@adplane/shared';
import { TestClock } from '../src/clock.js';
import { getClearingPrices } from '../src/stats/queries/getClearingPrices.js';
import { readConfigVersion } from '../src/store/configVersion.js';
import { edgeRequest } from './edgeClient.js';
import { as, buildTestApp, createAs, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';
import { publisherTenant } from './tenantFixture.js';
import { hourText } from './testTime.js';

/**
 * Dynamic floors through the real stores and the real app: the clearing prices read from hourly rows
 * on DuckDB and ClickHouse (the window's hours only, each demand's hour at its average price); the
 * api role's hourly computation (two api processes on one store compute a channel once, again an
 * hour later or at once when its settings change), stored and answered on the channel; and the edge
 * holding a request to its dynamic floor: sent as `bidfloor` to RTB demand over a real socket, a bid
 * under it losing, the trace saying which percentile of how many impressions it is.
 */
const HOUR_MS = 3_600_000;
const usd = (n: number) => Math.round(n * 1_000_000);
/** An hour of impressions of one demand at one price: revenue is micro-dollars per impression summed. */
const won = (hour: number, channelId: number, country: string, device: string, imps: number, cpm: number, tagId = 1) =>
  statsRow({
    hour: hourText(hour),
    tenant_id: 1,
    channel_id: channelId,
    tag_id: tagId,
    country,
    device,
    imps,
    revenue: Math.round((usd(cpm) / 1000) * imps),
  });

const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';

forEachStoreAndStatsEngine((t, s) => {
  // the hour the runs happen in: 10 minutes into it
  const NOW = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 48 * HOUR_MS + 10 * 60_000;
  const THIS_HOUR = Math.floor(NOW / HOUR_MS) * HOUR_MS;

  describe('clearing prices from the stats store', () => {
    it('reads the whole hours of the window before this one, a group per demand and hour at its average price', async () => {
      const channel = 9001;
      await s.stats.write([
        // in the window: two hours of US desktop, two demand tags in one hour
        won(THIS_HOUR - HOUR_MS, channel, 'US', 'desktop', 30, 8, 1),
        won(THIS_HOUR - HOUR_MS, channel, 'US', 'desktop', 10, 4, 2),
        won(THIS_HOUR - 2 * HOUR_MS, channel, 'US', 'desktop', 20, 6, 1),
        won(THIS_HOUR - 3 * HOUR_MS, channel, 'DE', 'smarttv', 5, 12, 1),
        // the same demand and hour written in two flushes: one group
        won(THIS_HOUR - 3 * HOUR_MS, channel, 'DE', 'smarttv', 5, 10, 1),
        // outside: this hour (not whole yet), 25 hours ago, another channel, requests without impressions
        won(THIS_HOUR, channel, 'US', 'desktop', 1000, 50),
        won(THIS_HOUR - 25 * HOUR_MS, channel, 'US', 'desktop', 1000, 50),
        won(THIS_HOUR - HOUR_MS, channel + 1, 'US', 'desktop', 1000, 50),
        statsRow({ hour: hourText(THIS_HOUR - HOUR_MS), channel_id: channel, country: 'US', reqs: 500 }),
      ]);
      const prices = await getClearingPrices(s.stats, [channel], 24, NOW);
      const cells = prices.get(channel)!.sort((a, b) => a.cpm - b.cpm || a.impressions - b.impressions);
      expect(cells).toEqual([
        { country: 'US', device: 'desktop', impressions: 10, cpm: usd(4) },
        { country: 'US', device: 'desktop', impressions: 20, cpm: usd(6) },
        { country: 'US', device: 'desktop', impressions: 30, cpm: usd(8) },
        { country: 'DE', device: 'smarttv', impressions: 10, cpm: usd(11) },
      ]);

      // the median of 70 impressions: the 35th cheapest, at $8 (10 at $4, 20 at $6, then $8)
      const settings = DynamicFloorSettings.parse({
        percentile: 50,
        minCpm: usd(1),
        maxCpm: usd(10),
        minImpressions: 20,
      });
      const table = computeFloorTable(settings, usd(2), cells, new Date(NOW).toISOString());
      expect(table.impressions).toBe(70);
      expect(table.cells).toEqual([
        // DE has 10 impressions: under 20, no floor of its own
        { key: '*|desktop', floorCpm: usd(6), measuredCpm: usd(6), impressions: 60, clamped: null },
        { key: 'us|*', floorCpm: usd(6), measuredCpm: usd(6), impressions: 60, clamped: null },
        { key: 'us|desktop', floorCpm: usd(6), measuredCpm: usd(6), impressions: 60, clamped: null },
      ]);
      expect(table.default).toEqual({
        key: '*',
        floorCpm: usd(8),
        measuredCpm: usd(8),
        impressions: 70,
        clamped: null,
      });
      // a 24-hour window and a 2-hour one
      expect((await getClearingPrices(s.stats, [channel], 2, NOW)).get(channel)).toHaveLength(3);
    });
  });

  describe('the api role computes each dynamic channel hourly, once across processes', () => {
    const clock = new TestClock(NOW);
    let apps: FastifyInstance[] = [];
    let cookie: string;
    let channel: { id: number; uid: string };
    const dynamicFloor = { percentile: 50, minCpm: usd(2), maxCpm: usd(7), minImpressions: 20 };

    beforeAll(async () => {
      apps = [
        await buildTestApp(t.store, {}, { role: 'api', clock, stats: s.stats }),
        await buildTestApp(t.store, {}, { role: 'api', clock, stats: s.stats }),
      ];
      cookie = await login(apps[0]!, 'demand', undefined, freshAddress());
    });
    afterAll(async () => {
      for (const app of apps) await app.close();
    });
    const floors = async () => {
      const res = await as(apps[1]!, cookie, { method: 'GET', url: channelFloorsPath(channel.id) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<ChannelFloors>();
    };
    const runBoth = async () => (await Promise.all(apps.map((a) => a.dynamicFloors.runDue()))).reduce((a, b) => a + b);

    const put = async (body: Record<string, unknown>) => {
      const res = await as(apps[0]!, cookie, {
        method: 'PUT',
        url: `/api/demand/channels/${channel.id}`,
        payload: { name: 'Dynamic floors channel', floorCpm: usd(3), ...body },
      });
      expect(res.statusCode, res.body).toBe(200);
    };

    it('computes a channel set to dynamic once between two processes, stores it and moves the config version', async () => {
      channel = await createAs(apps[0]!, cookie, 'channels', { name: 'Dynamic floors channel', floorCpm: usd(3) });
      await s.stats.write([
        won(THIS_HOUR - HOUR_MS, channel.id, 'US', 'desktop', 40, 5),
        won(THIS_HOUR - 2 * HOUR_MS, channel.id, 'US', 'mobile', 30, 1),
        won(THIS_HOUR - 2 * HOUR_MS, channel.id, 'GB', 'desktop', 30, 9),
      ]);
      const version = await readConfigVersion(t.store.db);
      // saved as dynamic: the process that took the write computes it at once, or either at its next pass
      await put({ floorMode: 'dynamic', dynamicFloor });
      await runBoth();
      // the edit and one computation: the other process found it taken or done
      expect(await readConfigVersion(t.store.db)).toBe(version + 2);
      const answer = await floors();
      expect(answer).toMatchObject({
        mode: 'dynamic',
        settings: { ...dynamicFloor, windowHours: 24, dimensions: ['country', 'deviceType'] },
        nextRunAt: new Date(THIS_HOUR + HOUR_MS + 60_000).toISOString(),
      });
      expect(answer.table).toMatchObject({ computedAt: new Date(NOW).toISOString(), impressions: 100, percentile: 50 });
      expect(answer.table!.cells).toEqual(
        [
          { key: '*|desktop', floorCpm: usd(5), measuredCpm: usd(5), impressions: 70, clamped: null },
          { key: 'gb|*', floorCpm: usd(7), measuredCpm: usd(9), impressions: 30, clamped: 'max' },
          { key: 'gb|desktop', floorCpm: usd(7), measuredCpm: usd(9), impressions: 30, clamped: 'max' },
          { key: 'us|*', floorCpm: usd(5), measuredCpm: usd(5), impressions: 70, clamped: null },
          { key: 'us|desktop', floorCpm: usd(5), measuredCpm: usd(5), impressions: 40, clamped: null },
          { key: '*|mobile', floorCpm: usd(2), measuredCpm: usd(1), impressions: 30, clamped: 'min' },
          { key: 'us|mobile', floorCpm: usd(2), measuredCpm: usd(1), impressions: 30, clamped: 'min' },
        ].sort((a, b) => a.key.localeCompare(b.key)),
      );
      expect(answer.table!.default).toEqual({
        key: '*',
        floorCpm: usd(5),
        measuredCpm: usd(5),
        impressions: 100,
        clamped: null,
      });
      // nothing is due again within the hour
      clock.set(NOW + 30 * 60_000);
      expect(await runBoth()).toBe(0);
    });

    it('computes again a minute into the next hour, once, and at once when the settings change', async () => {
      await s.stats.write([won(THIS_HOUR, channel.id, 'US', 'desktop', 200, 6)]);
      clock.set(THIS_HOUR + HOUR_MS + 60_000);
      expect(await runBoth()).toBe(1);
      expect((await floors()).table).toMatchObject({ impressions: 300, default: { floorCpm: usd(6) } });

      clock.set(THIS_HOUR + HOUR_MS + 5 * 60_000);
      const version = await readConfigVersion(t.store.db);
      await put({ floorMode: 'dynamic', dynamicFloor: { ...dynamicFloor, dimensions: [], minImpressions: 1000 } });
      await runBoth();
      expect(await readConfigVersion(t.store.db)).toBe(version + 2);
      // too few impressions for the channel: its floor CPM ($3), within the bounds
      expect((await floors()).table).toMatchObject({
        computedAt: new Date(THIS_HOUR + HOUR_MS + 5 * 60_000).toISOString(),
        fields: ['country'],
        cells: [],
        default: { key: '*', floorCpm: usd(3), measuredCpm: null, impressions: 300, clamped: null },
      });
      // set back to its floor CPM: not computed any more, the table answered no more
      await put({ floorMode: 'static' });
      clock.set(THIS_HOUR + 2 * HOUR_MS + 60_000);
      expect(await runBoth()).toBe(0);
      expect(await floors()).toEqual({ mode: 'static', settings: null, table: null, nextRunAt: null });
    });

    it('refuses dynamic settings that do not hold, naming the field', async () => {
      const bad = async (body: Record<string, unknown>) => {
        const res = await as(apps[0]!, cookie, { method: 'POST', url: '/api/demand/channels', payload: body });
        expect(res.statusCode).toBe(400);
        return res.body;
      };
      expect(await bad({ name: 'No settings', floorMode: 'dynamic' })).toContain('dynamicFloor');
      expect(
        await bad({ name: 'Upside down', floorMode: 'dynamic', dynamicFloor: { minCpm: usd(5), maxCpm: usd(1) } }),
      ).toContain('dynamicFloor.maxCpm');
      expect(
        await bad({ name: 'Percentile', floorMode: 'dynamic', dynamicFloor: { percentile: 100, maxCpm: usd(1) } }),
      ).toContain('dynamicFloor.percentile');
      expect(await bad({ name: 'Rules without rules', floorMode: 'rules' })).toContain('floorRules');
      // another tenant's channel is not found
      const other = await login(apps[0]!, 'acme', undefined, freshAddress());
      const res = await as(apps[0]!, other, { method: 'GET', url: channelFloorsPath(channel.id) });
      expect(res.statusCode).toBe(404);
    });
  });
});

forEachStoreAndStatsEngine((t, s) => {
  const clock = new TestClock(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 30 * 60_000, { running: true });
  const publisher = publisherTenant(
    t,
    async (p) => {
      // bids $7.50 on every impression
      await p.rtbTag('bidder', 'Local RTB', 'name=dynamic&price=7.5');
      await p.vastChannel('dynamic', 'Dynamic floor channel', { demand: ['bidder'] });
    },
    { listen: false, programmatic: {}, statsEngine: s, clock },
  );
  const { ids } = publisher;
  const sentFloors = () => publisher.bidders.requestsOf('dynamic').map((r) => r.body.imp[0]!.bidfloor);
  const vast = (debug = false) =>
    debug
      ? publisher.request({
          method: 'GET',
          url: `/vast/${ids.dynamic!.uid}?ip=8.8.8.8&ua=${encodeURIComponent(DESKTOP_UA)}&w=640&h=360&debug=1`,
        })
      : edgeRequest(publisher.app, {
          method: 'GET',
          url: `/vast/${ids.dynamic!.uid}?ip=8.8.8.8&ua=${encodeURIComponent(DESKTOP_UA)}&w=640&h=360`,
        });
  const setDynamic = async (maxCpm: number) => {
    const res = await publisher.edit('dynamic', {
      floorCpm: usd(0.5),
      floorMode: 'dynamic',
      dynamicFloor: { percentile: 50, minCpm: usd(1), maxCpm, minImpressions: 10 },
    });
    expect(res.statusCode, res.body).toBe(200);
    // computed by the time a pass the save did not already start ends
    await publisher.app.dynamicFloors.runDue();
    await publisher.app.edge.snapshots.rebuild();
  };

  it("holds a request to its country and device's dynamic floor: sent as bidfloor, a bid under it loses", async () => {
    const lastHour = Math.floor(clock.now() / HOUR_MS) * HOUR_MS - HOUR_MS;
    await s.stats.write([
      won(lastHour, ids.dynamic!.id, 'US', 'desktop', 40, 8),
      won(lastHour, ids.dynamic!.id, 'US', 'smarttv', 40, 3),
    ]);
    await setDynamic(usd(20));
    const before = sentFloors().length;
    const res = await vast();
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('adm-imp?name=dynamic');
    expect(sentFloors().slice(before)).toEqual([8]);

    const trace = ((await vast(true)).json() as { trace: DecisionTrace }).trace;
    expect(trace.channel?.floor).toMatchObject({
      source: 'dynamic',
      rule: 'us|desktop',
      floorCpm: usd(8),
      dynamic: { percentile: 50, windowHours: 24, impressions: 40, measuredCpm: usd(8), clamped: null },
    });
    expect(trace.sources).toContainEqual(expect.objectContaining({ source: 'rtb_tag', fate: 'below_floor' }));
  });

  it('a maximum under the measured price lowers the floor, and the bid wins', async () => {
    await setDynamic(usd(7));
    const before = sentFloors().length;
    const res = await vast();
    expect(res.body).toContain('adm-imp?name=dynamic');
    expect(sentFloors().slice(before)).toEqual([7]);
    const trace = ((await vast(true)).json() as { trace: DecisionTrace }).trace;
    expect(trace.channel?.floor).toMatchObject({ source: 'dynamic', floorCpm: usd(7), dynamic: { clamped: 'max' } });
  });
});
