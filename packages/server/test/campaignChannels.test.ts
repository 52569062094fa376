import { type DecisionTrace, type DeliveryState } from '@adplane/shared';
import { type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENTITY_TABLES } from '../src/store/entityTables.js';
import { migrateToLatest } from '../src/store/migrations/index.js';
import { edgeRequest } from './edgeClient.js';
import { as, buildTestApp, createAs, forEachStore, freshAddress, login } from './helpers.js';
import { dspTenant, expectBid, expectNoBid, publisherTenant } from './tenantFixture.js';

/**
 * Campaigns assigned to channels on purpose (`channelScope`: all my channels, only these, all but
 * these), through the real app: the API asks for the choice on create (no default), keeps it on an
 * edit that leaves it out and on a copy, refuses a bad one naming the field, stored campaigns from
 * before the field are given 'all' by migration 0022, and the edge serves
 * each campaign on its channels alone, over real sockets, for a VAST player, an OpenRTB channel and
 * Prebid.js: "Only A" (the best bid) on A, "All but A" on B, "All my channels" where neither runs.
 * The decision trace names the campaigns an assignment left out, and a campaign whose channels all
 * stopped says it runs nowhere. A supplier's bid request (DSP mode) comes on none of the account's
 * channels: a campaign of "only these" channels bids on it neither in the open auction nor through a
 * deal, one of "all but these" does.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const usd = (n: number) => Math.round(n * 1_000_000);
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
/** Where each campaign's spot is: the ad a channel answers says which campaign won. */
const MEDIA = {
  onlyA: 'https://cdn.only-a.example/spot.mp4',
  notA: 'https://cdn.not-a.example/spot.mp4',
  everywhere: 'https://cdn.everywhere.example/spot.mp4',
} as const;

forEachStore((t) => {
  describe('campaigns from before the field', () => {
    it('migration 0022 writes the explicit "All my channels" on every stored campaign', {
      timeout: 90_000,
    }, async () => {
      const db = t.store.db as unknown as Kysely<Record<string, { id: number; data: string; name: string }>>;
      const table = ENTITY_TABLES.campaigns;
      const [template] = await db.selectFrom(table).selectAll().limit(1).execute();
      const { id: _id, ...row } = template!;
      const { channelScope: _s, channelIds: _i, ...old } = JSON.parse(template!.data) as Record<string, unknown>;
      const insert = (name: string, data: string) =>
        db
          .insertInto(table)
          .values({ ...row, uid: null, name, data } as never)
          .returning('id')
          .executeTakeFirstOrThrow();
      const before = await insert('Before channels', JSON.stringify(old));
      await t.store.db
        .withTables<{ kysely_migration: { name: string } }>()
        .deleteFrom('kysely_migration')
        .where('name', '=', '0022_campaign_channel_scope')
        .execute();
      expect(await migrateToLatest(t.store)).toContain('0022_campaign_channel_scope');
      const dataOf = async (id: number) =>
        (await db.selectFrom(table).select('data').where('id', '=', id).executeTakeFirstOrThrow()).data;
      expect(JSON.parse(await dataOf(before.id))).toEqual({ ...old, channelScope: 'all', channelIds: [] });
      // every other campaign states a choice too
      for (const r of await db.selectFrom(table).select(['id', 'data']).execute())
        expect(JSON.parse(r.data), `campaign ${r.id}`).toHaveProperty('channelScope');
      await db.deleteFrom(table).where('id', '=', before.id).execute();
    });
  });

  describe('the API', () => {
    it('asks where a new campaign runs: no channelScope is a 400 naming it, and nothing is written', {
      timeout: 60_000,
    }, async () => {
      const app = await buildTestApp(t.store);
      try {
        const cookie = await login(app, 'demand', undefined, freshAddress());
        const db = t.store.db as unknown as Kysely<Record<string, { id: number }>>;
        const stored = async () =>
          Number(
            (
              await db
                .selectFrom(ENTITY_TABLES.campaigns)
                .select((e) => e.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        const before = await stored();
        const res = await as(app, cookie, {
          method: 'POST',
          url: '/api/demand/campaigns',
          payload: { name: 'Unassigned campaign', startDate: day(-1), bidCpm: usd(5) },
        });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json()).toEqual({
          message: "channelScope: is required: 'all' (every channel of the account), 'include' or 'exclude'",
          field: 'channelScope',
          errors: [
            {
              field: 'channelScope',
              message: "is required: 'all' (every channel of the account), 'include' or 'exclude'",
            },
          ],
        });
        // channels without a scope say nothing of where: the same answer
        const idsAlone = await as(app, cookie, {
          method: 'POST',
          url: '/api/demand/campaigns',
          payload: { name: 'Unassigned campaign', startDate: day(-1), bidCpm: usd(5), channelIds: [] },
        });
        expect(idsAlone.statusCode, idsAlone.body).toBe(400);
        expect(idsAlone.json()).toMatchObject({ field: 'channelScope' });
        expect(await stored()).toBe(before);
      } finally {
        await app.close();
      }
    });

    it('an edit that leaves the assignment out keeps it; a copy carries it over', { timeout: 60_000 }, async () => {
      const app = await buildTestApp(t.store);
      try {
        const cookie = await login(app, 'demand', undefined, freshAddress());
        const mine = await createAs(app, cookie, 'channels', { name: 'Kept channel' });
        const body = { name: 'Kept assignment', startDate: day(-1), bidCpm: usd(5) };
        const campaign = await createAs(app, cookie, 'campaigns', {
          ...body,
          channelScope: 'include',
          channelIds: [mine.id],
        });
        const url = `/api/demand/campaigns/${campaign.id}`;
        const put = (payload: Record<string, unknown>) => as(app, cookie, { method: 'PUT', url, payload });
        const get = async () => (await as(app, cookie, { method: 'GET', url })).json<Record<string, unknown>>();

        // a client that knows nothing of channels edits the bid: the campaign stays on its channel
        const edited = await put({ ...body, bidCpm: usd(6) });
        expect(edited.statusCode, edited.body).toBe(200);
        expect(await get()).toMatchObject({ bidCpm: usd(6), channelScope: 'include', channelIds: [mine.id] });
        // channels named without the scope: the scope is asked for, nothing changes
        const idsAlone = await put({ ...body, channelIds: [] });
        expect(idsAlone.statusCode, idsAlone.body).toBe(400);
        expect(idsAlone.json()).toMatchObject({ field: 'channelScope' });
        expect(await get()).toMatchObject({ bidCpm: usd(6), channelScope: 'include', channelIds: [mine.id] });

        // the copy runs where the original does (paused, as every copy starts)
        const copy = await as(app, cookie, { method: 'POST', url: `${url}/duplicate`, payload: {} });
        expect(copy.statusCode, copy.body).toBe(201);
        expect(copy.json()).toMatchObject({
          name: 'Kept assignment (copy)',
          status: 0,
          channelScope: 'include',
          channelIds: [mine.id],
        });

        // all my channels, chosen on an edit, names no channel
        const widened = await put({ ...body, channelScope: 'all' });
        expect(widened.statusCode, widened.body).toBe(200);
        expect(await get()).toMatchObject({ channelScope: 'all', channelIds: [] });
        const copyOfAll = await as(app, cookie, { method: 'POST', url: `${url}/duplicate`, payload: {} });
        expect(copyOfAll.json()).toMatchObject({ channelScope: 'all', channelIds: [] });
      } finally {
        await app.close();
      }
    });

    it('keeps the assignment and refuses a bad one with the field named; an assigned channel cannot be archived', {
      timeout: 60_000,
    }, async () => {
      const app = await buildTestApp(t.store);
      try {
        const cookie = await login(app, 'demand', undefined, freshAddress());
        const acme = await login(app, 'acme', undefined, freshAddress());
        const mine = await createAs(app, cookie, 'channels', { name: 'Assigned channel' });
        const other = await createAs(app, cookie, 'channels', { name: 'Other channel' });
        const theirs = await createAs(app, acme, 'channels', { name: 'Acme channel' });
        const base = { name: 'Channel scope campaign', startDate: day(-1), bidCpm: usd(5) };
        const post = (body: Record<string, unknown>) =>
          as(app, cookie, { method: 'POST', url: '/api/demand/campaigns', payload: { ...base, ...body } });

        const created = await post({ channelScope: 'include', channelIds: [mine.id] });
        expect(created.statusCode, created.body).toBe(201);
        const got = await as(app, cookie, { method: 'GET', url: `/api/demand/campaigns/${created.json().id}` });
        expect(got.json()).toMatchObject({ channelScope: 'include', channelIds: [mine.id] });
        // all my channels, chosen: written down as chosen
        const everywhere = await post({ channelScope: 'all' });
        expect(everywhere.statusCode, everywhere.body).toBe(201);
        expect(everywhere.json()).toMatchObject({ channelScope: 'all', channelIds: [] });

        const refused = async (body: Record<string, unknown>) => {
          const res = await post(body);
          expect(res.statusCode, res.body).toBe(400);
          return res.json<{ field: string; message: string }>();
        };
        expect(await refused({ channelScope: 'include', channelIds: [] })).toMatchObject({
          field: 'channelIds',
          message: expect.stringContaining('must name at least one channel to run on'),
        });
        expect(await refused({ channelScope: 'all', channelIds: [mine.id] })).toMatchObject({ field: 'channelIds' });
        expect(await refused({ channelScope: 'some', channelIds: [mine.id] })).toMatchObject({
          field: 'channelScope',
        });
        // another account's channel is none of this account's
        expect(await refused({ channelScope: 'exclude', channelIds: [theirs.id] })).toMatchObject({
          field: 'channelIds',
          message: expect.stringContaining(`Channel ${theirs.id} does not exist or is archived`),
        });

        // archiving the channel would leave the campaign running nowhere unseen: refused, the campaign named
        const archive = await as(app, cookie, {
          method: 'POST',
          url: `/api/demand/channels/${mine.id}/archive`,
          payload: {},
        });
        expect(archive.statusCode, archive.body).toBe(409);
        expect(archive.json().message).toContain("Campaign 'Channel scope campaign'");
        const free = await as(app, cookie, {
          method: 'POST',
          url: `/api/demand/channels/${other.id}/archive`,
          payload: {},
        });
        expect(free.statusCode, free.body).toBe(200);
      } finally {
        await app.close();
      }
    });
  });

  describe('the edge', () => {
    const publisher = publisherTenant(
      t,
      async (p) => {
        const spot = (name: keyof typeof MEDIA) =>
          p.videoSpot(`${name}Spot`, {
            name: `Channels ${name} spot`,
            width: 640,
            height: 360,
            bitrate: 900,
            advertiser: `${name.toLowerCase()}.example`,
            mediaUrl: MEDIA[name],
          });
        await spot('onlyA');
        await spot('notA');
        await spot('everywhere');
        await p.vastChannel('vastA', 'Channels VAST A', {});
        await p.vastChannel('vastB', 'Channels VAST B', {});
        await p.vastChannel('vastC', 'Channels VAST C', {});
        await p.openRtbChannel('rtbA', 'Channels RTB A', { demand: [] });
        await p.openRtbChannel('rtbB', 'Channels RTB B', { demand: [] });
        await p.prebidChannel('pbA', 'Channels Prebid A', { format: 'video' });
        await p.prebidChannel('pbB', 'Channels Prebid B', { format: 'video' });
        await p.vastChannel('stopped', 'Channels stopped', { paused: true });
        const channels = (...names: string[]) => names.map((n) => p.ids[n]!.id);
        const campaign = (name: keyof typeof MEDIA | 'idle', bid: number, assignment: Record<string, unknown>) =>
          p.create(name, 'campaigns', {
            name: `Channels ${name}`,
            startDate: day(-1),
            endDate: day(30),
            bidCpm: usd(bid),
            creativeIds: [p.ids[`${name === 'idle' ? 'onlyA' : name}Spot`]!.id],
            ...assignment,
          });
        await campaign('onlyA', 90, { channelScope: 'include', channelIds: channels('vastA', 'rtbA', 'pbA') });
        await campaign('notA', 80, { channelScope: 'exclude', channelIds: channels('vastA', 'rtbA', 'pbA', 'vastC') });
        await campaign('everywhere', 70, { channelScope: 'all' });
        // runs on a paused channel only: nowhere
        await campaign('idle', 95, { channelScope: 'include', channelIds: channels('stopped') });
      },
      { listen: false, trustProxy: 'loopback', signInFrom: freshAddress() },
    );
    const { ids } = publisher;
    const vast = (channel: string) =>
      edgeRequest(publisher.app, {
        url: `/vast/${ids[channel]!.uid}?w=640&h=360&ip=8.8.8.8`,
        headers: { 'user-agent': UA },
      });
    /** Which campaign's spot an answer carries. */
    const servedBy = (body: string) => Object.entries(MEDIA).find(([, url]) => body.includes(url))?.[0] ?? 'none';

    it('a VAST player meets on each channel only the campaigns assigned to it', async () => {
      for (const [channel, winner] of [
        ['vastA', 'onlyA'],
        ['vastB', 'notA'],
        ['vastC', 'everywhere'],
      ] as const) {
        const res = await vast(channel);
        expect(res.statusCode, res.body).toBe(200);
        expect(servedBy(res.body), channel).toBe(winner);
      }
    });

    it('an OpenRTB channel and Prebid.js do too', async () => {
      for (const [channel, winner] of [
        ['rtbA', 'onlyA'],
        ['rtbB', 'notA'],
      ] as const) {
        const res = await edgeRequest(publisher.app, {
          method: 'POST',
          url: `/rtb/${ids[channel]!.uid}`,
          payload: {
            id: `channels-${channel}`,
            tmax: 1000,
            site: { page: 'https://news.example.com/v' },
            device: { ip: '8.8.8.8', ua: UA, devicetype: 2 },
            imp: [{ id: '1', video: { mimes: ['video/mp4'], w: 640, h: 360, protocols: [2, 3, 5, 6] } }],
          },
        });
        expect(res.statusCode, res.body).toBe(200);
        expect(servedBy(res.body), channel).toBe(winner);
      }
      for (const [channel, winner] of [
        ['pbA', 'onlyA'],
        ['pbB', 'notA'],
      ] as const) {
        const res = await edgeRequest(publisher.app, {
          method: 'POST',
          url: '/openrtb2/auction',
          headers: { 'content-type': 'text/plain' },
          payload: JSON.stringify({
            id: `channels-${channel}`,
            imp: [
              {
                id: 'div-video',
                video: { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360, plcmt: 1, placement: 1 },
                ext: { prebid: { bidder: { adplane: { channel: ids[channel]!.uid } }, adunitcode: 'div-video' } },
              },
            ],
            site: { page: 'https://news.example.com/story', domain: 'news.example.com' },
            device: { ua: UA, ip: '8.8.8.8' },
            tmax: 1000,
          }),
        });
        expect(res.statusCode, res.body).toBe(200);
        expect(servedBy(res.body), channel).toBe(winner);
      }
    });

    it('the trace names each campaign its assignment left out, with the reason', async () => {
      const traceOf = async (channel: string) => {
        // (debug=1 answers through the console's session)
        const res = await publisher.request({
          method: 'GET',
          url: `/vast/${ids[channel]!.uid}?w=640&h=360&ip=8.8.8.8&debug=1`,
          headers: { 'user-agent': UA },
        });
        expect(res.statusCode, res.body).toBe(200);
        return res.json<{ trace: DecisionTrace }>().trace;
      };
      const leftOut = (trace: DecisionTrace) =>
        (trace.indexedOutCampaigns ?? [])
          .filter((c) => c.reason === 'channel_not_assigned')
          .map((c) => c.id)
          .sort((a, b) => a - b);
      const idsOf = (...names: string[]) => names.map((n) => ids[n]!.id).sort((a, b) => a - b);

      const a = await traceOf('vastA');
      expect(a.winner).toMatchObject({ source: 'campaign', id: ids.onlyA!.id });
      expect(leftOut(a)).toEqual(idsOf('notA', 'idle'));
      const b = await traceOf('vastB');
      expect(b.winner).toMatchObject({ source: 'campaign', id: ids.notA!.id });
      expect(leftOut(b)).toEqual(idsOf('onlyA', 'idle'));
      expect(b.indexedOutCampaigns?.find((c) => c.id === ids.onlyA!.id)).toMatchObject({
        name: 'Channels onlyA',
        reason: 'channel_not_assigned',
        misses: [],
      });
      // all my channels: never left out
      const c = await traceOf('vastC');
      expect(c.winner).toMatchObject({ source: 'campaign', id: ids.everywhere!.id });
      expect(leftOut(c)).toEqual(idsOf('onlyA', 'notA', 'idle'));
      // ... and in the auction of every channel, winning where nothing assigned outbids it
      for (const trace of [a, b, c])
        expect(trace.sources.filter((s) => s.source === 'campaign').map((s) => s.id)).toContain(ids.everywhere!.id);
    });

    it('a campaign whose channels all stopped serving says it runs nowhere; it serves again when one does', async () => {
      const stateOf = async () => {
        const res = await publisher.request({
          method: 'GET',
          url: `/api/deliveryStates?kind=campaigns&ids=${ids.idle!.id},${ids.onlyA!.id}`,
        });
        expect(res.statusCode, res.body).toBe(200);
        return res.json<{ states: DeliveryState[] }>().states.map((s) => [s.serving, s.reasons.map((r) => r.code)]);
      };
      expect(await stateOf()).toEqual([
        [false, ['no_assigned_channel']],
        [true, []],
      ]);
      const on = await publisher.edit('stopped', { status: 1 });
      expect(on.statusCode, on.body).toBe(200);
      expect(await stateOf()).toEqual([
        [true, []],
        [true, []],
      ]);
      const stoppedAgain = await publisher.edit('stopped', { status: 0 });
      expect(stoppedAgain.statusCode, stoppedAgain.body).toBe(200);
    });
  });

  describe("a supplier's bid request", () => {
    const dsp = dspTenant(
      t,
      async (d) => {
        await d.supplier('ssp', 'Channels SSP');
        await d.banner('onlyMpu', { name: 'Channels only-own banner', size: [300, 250], advertiser: 'only-own.test' });
        await d.banner('allMpu', { name: 'Channels everywhere banner', size: [300, 250], advertiser: 'all.test' });
        await d.deal('pmp', { name: 'Channels PMP', dealId: 'CHANNELS-PMP', floor: 1 });
        await d.create('own', 'channels', { name: 'Channels own player', integration: 'VAST', format: 'display' });
        await d.create('onlyOwn', 'campaigns', {
          name: 'Channels only own',
          startDate: day(-1),
          bidCpm: usd(9),
          creativeIds: [d.ids.onlyMpu!.id],
          dealIds: [d.ids.pmp!.id],
          channelScope: 'include',
          channelIds: [d.ids.own!.id],
        });
        await d.campaign('everywhere', { bid: 3, creatives: ['allMpu'] });
      },
      { signInFrom: freshAddress() },
    );
    const request = (pmp?: object) => ({
      id: `channels-${Math.random()}`,
      imp: [{ id: '1', banner: { w: 300, h: 250 }, ...(pmp && { pmp }) }],
      site: { domain: 'news.example.com' },
    });
    const bidOf = async (body: object) =>
      (await expectBid(await dsp.postBidRequest(dsp.ids.ssp!.uid, body))).seatbid![0]!.bid[0]!;

    it('is not bid on by a campaign of "only these" channels, in the open auction or through its deal; "all but these" bids', async () => {
      const { ids } = dsp;
      expect(await bidOf(request())).toMatchObject({ crid: String(ids.allMpu!.id), cid: String(ids.everywhere!.id) });
      // its deal offered: the campaign of the deal stays out, the open auction's bid answers
      const open = await bidOf(request({ private_auction: 0, deals: [{ id: 'CHANNELS-PMP', bidfloor: 1 }] }));
      expect(open).toMatchObject({ crid: String(ids.allMpu!.id) });
      expect(open.dealid).toBeUndefined();
      // the deal alone (a private auction): nothing bids
      await expectNoBid(
        await dsp.postBidRequest(
          ids.ssp!.uid,
          request({ private_auction: 1, deals: [{ id: 'CHANNELS-PMP', bidfloor: 1 }] }),
        ),
      );

      const edited = await dsp.edit('onlyOwn', { channelScope: 'exclude' });
      expect(edited.statusCode, edited.body).toBe(200);
      await expect.poll(async () => (await bidOf(request())).crid, { timeout: 10_000 }).toBe(String(ids.onlyMpu!.id));
      expect(await bidOf(request({ private_auction: 1, deals: [{ id: 'CHANNELS-PMP', bidfloor: 1 }] }))).toMatchObject({
        crid: String(ids.onlyMpu!.id),
        dealid: 'CHANNELS-PMP',
      });
    });
  });
});
