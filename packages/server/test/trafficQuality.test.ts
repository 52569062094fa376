import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BidRequest, TAG_TEST_PATH, type TagTestAnswer } from '@adplane/shared';
import { type DecisionTrace } from '@adplane/shared';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { as, buildTestApp, createAs, onSqliteStore, login } from './helpers.js';
import { schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Pre-bid IVT through the real app (docs/traffic-quality.md): the account's options (Profile,
 * setCheckIVTAll and blockIVT, granted by showCheckIVT) and a channel's own blockIVT decide which
 * requests are checked; a flagged request is answered empty where it is blocked (an empty VAST, a
 * 204 no-bid, a Prebid answer without a bid), served elsewhere, and counted as IVT either way.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const BOT = 'python-requests/2.31.0';
/** A home broadband address (not in any hosting range) and one of AWS's. */
const HOME_IP = '73.158.1.1';
const CLOUD_IP = '52.94.1.1';

interface Counted {
  reqs: number;
  opps: number;
  ivt: number;
}

onSqliteStore((t) => {
  let app: FastifyInstance;
  let cookie: string;
  const ids: Record<string, { id: number; uid: string }> = {};
  const create = async (name: string, kind: string, body: Record<string, unknown>) =>
    (ids[name] = await createAs(app, cookie, kind, body));

  const vast = (uid: string, ip: string, ua = CHROME) =>
    edgeRequest(app, {
      method: 'GET',
      url: `/vast/${uid}?w=640&h=360&ip=${ip}&domain=news.example.com`,
      headers: { 'user-agent': ua },
    });
  const debug = async (uid: string, ip: string, ua = CHROME) => {
    const res = await edgeRequest(app, {
      cookie,
      method: 'GET',
      url: `/vast/${uid}?w=640&h=360&ip=${ip}&domain=news.example.com&debug=1`,
      headers: { 'user-agent': ua },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { status: number; vast: string; trace: DecisionTrace };
  };
  const ortbRequest = (ua: string, ip = HOME_IP): BidRequest => ({
    id: `ivt-${Math.random()}`,
    imp: [{ id: '1', video: { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360 } }],
    site: { domain: 'news.example.com', page: 'https://news.example.com/story' },
    device: { ua, ip, devicetype: 2 },
    tmax: 500,
  });
  const rtb = (uid: string, request: BidRequest) =>
    edgeRequest(app, {
      method: 'POST',
      url: `/rtb/bid/${uid}`,
      payload: JSON.stringify(request),
      headers: { 'content-type': 'application/json' },
    });
  const prebid = (uid: string, ua: string) =>
    edgeRequest(app, {
      method: 'POST',
      url: '/openrtb2/auction',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({
        id: `pbjs-${Math.random()}`,
        imp: [
          {
            id: 'div-video',
            video: { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360 },
            ext: { prebid: { bidder: { adplane: { channel: uid } } } },
          },
        ],
        site: { page: 'https://news.example.com/story', domain: 'news.example.com' },
        device: { ua, ip: HOME_IP },
        tmax: 1000,
      }),
    });
  const counted = async (where: string): Promise<Counted> => {
    await app.edge.flush();
    const [row] = await app.stats.select(
      `SELECT sum(reqs) AS reqs, sum(opps) AS opps, sum(ivt) AS ivt FROM ${STATS_TABLE} WHERE ${where}`,
    );
    return { reqs: Number(row?.reqs ?? 0), opps: Number(row?.opps ?? 0), ivt: Number(row?.ivt ?? 0) };
  };
  const reasons = async (where: string): Promise<Record<string, Counted>> => {
    await app.edge.flush();
    const rows = await app.stats.select(
      `SELECT nofill_reason AS reason, sum(reqs) AS reqs, sum(opps) AS opps, sum(ivt) AS ivt FROM ${STATS_TABLE} WHERE ${where} AND tag_id = 0 AND campaign_id = 0 GROUP BY nofill_reason`,
    );
    return Object.fromEntries(
      rows.map((r) => [String(r.reason), { reqs: Number(r.reqs), opps: Number(r.opps), ivt: Number(r.ivt) }]),
    );
  };
  /** The account's IVT options, as the Profile modal saves them. */
  const setOptions = async (options: { setCheckIVTAll: 1 | null; blockIVT: 1 | null }) => {
    const before = (await as(app, cookie, { method: 'GET', url: '/api/demand/info' })).json<Record<string, unknown>>();
    const res = await as(app, cookie, { method: 'PUT', url: '/api/demand/info', payload: { ...before, ...options } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject(options);
    await app.edge.snapshots.rebuild();
  };
  const flaggedMetric = async (reason: string, blocked: boolean): Promise<number> => {
    const body = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = new RegExp(
      `^adplane_ivt_flagged_total\\{reason="${reason}",blocked="${blocked}"\\} (\\d+)$`,
      'm',
    ).exec(body);
    return line ? Number(line[1]) : 0;
  };

  beforeAll(async () => {
    app = await buildTestApp(t.store);
    // Northwind: the admin granted it the IVT options (showCheckIVT); none is on yet
    cookie = await login(app, 'demand');
    const spot = await create('spot', 'creatives', {
      name: 'IVT test spot',
      format: 'video',
      videoSource: 'media',
      approval: 'approved',
      clickUrl: 'https://brand.example.com/ivt',
      adomain: ['brand.example.com'],
      duration: 15,
      mediaFiles: [
        {
          url: 'https://cdn.example.com/ivt.mp4',
          mime: 'video/mp4',
          duration: 15,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });
    await create('campaign', 'campaigns', {
      name: 'IVT test campaign',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: 25_000_000,
      channelScope: 'all',
      creativeIds: [spot.id],
    });
    const channel = {
      format: 'video',
      environment: 'web',
      vastVersion: '4.2',
      payout: { type: 'revshare', percent: 70 },
      demandMode: 'auction',
      timeoutMs: 1000,
    };
    await create('open', 'channels', { ...channel, name: 'IVT: the account decides' });
    await create('blocking', 'channels', { ...channel, name: 'IVT: blocks on its own', blockIVT: true });
    await create('prebidBlocking', 'channels', {
      ...channel,
      name: 'IVT: Prebid, blocks',
      integration: 'PreBid',
      blockIVT: true,
    });
    await create('supplier', 'sups', {
      name: 'IVT test SSP',
      qpsLimit: 'unlimited',
      marginPercent: 20,
      formats: ['video'],
    });
    await app.edge.snapshots.rebuild();
  });
  afterAll(() => app?.close());

  describe('with none of the account options on', () => {
    it('checks nothing on a channel without blockIVT: a bot from a data centre is served and nothing is counted as IVT', async () => {
      const { trace, vast: xml } = await debug(ids.open!.uid, CLOUD_IP, BOT);
      expect(trace.result).toBe('filled');
      expect(trace.ivt).toBeNull();
      expect(xml).toContain('https://cdn.example.com/ivt.mp4');
      expect((await vast(ids.open!.uid, CLOUD_IP, BOT)).body).toContain('<Ad ');
      expect(await counted(`channel_id = ${ids.open!.id}`)).toMatchObject({ reqs: 2, opps: 2, ivt: 0 });
    });

    it("blocks on a channel's own blockIVT: an empty VAST, counted as a request and IVT with the reason, never an opportunity, no demand asked", async () => {
      const res = await vast(ids.blocking!.uid, CLOUD_IP);
      expect(res.statusCode).toBe(200);
      expect(schemaErrors('4.2', res.body)).toBe('');
      expect(res.body).not.toContain('<Ad ');
      const { trace } = await debug(ids.blocking!.uid, HOME_IP, BOT);
      expect(trace.result).toBe('ivt.bot_user_agent');
      expect(trace.ivt).toEqual({ mode: 'block', reason: 'bot_user_agent', blocked: true });
      expect(trace.sources).toEqual([]);
      // a viewer at home with a browser is served
      const clean = await debug(ids.blocking!.uid, HOME_IP);
      expect(clean.trace.result).toBe('filled');
      expect(clean.trace.ivt).toEqual({ mode: 'block', reason: '', blocked: false });
      expect(await reasons(`channel_id = ${ids.blocking!.id}`)).toEqual({
        'ivt.datacenter_ip': { reqs: 1, opps: 0, ivt: 1 },
        'ivt.bot_user_agent': { reqs: 1, opps: 0, ivt: 1 },
        '': { reqs: 1, opps: 1, ivt: 0 },
      });
      // nothing was asked of demand for the blocked ones: the campaign's win is the clean request's only
      const [wins] = await app.stats.select(
        `SELECT sum(wins) AS wins FROM ${STATS_TABLE} WHERE channel_id = ${ids.blocking!.id} AND campaign_id = ${ids.campaign!.id}`,
      );
      expect(Number(wins!.wins)).toBe(1);
      expect(await flaggedMetric('datacenter_ip', true)).toBeGreaterThanOrEqual(1);
      expect(await flaggedMetric('bot_user_agent', true)).toBeGreaterThanOrEqual(1);
    });

    it('answers a Prebid request on a blocking channel without a bid for a bot, with one for a browser', async () => {
      const bot = await prebid(ids.prebidBlocking!.uid, BOT);
      expect(bot.statusCode, bot.body).toBe(200);
      expect(bot.json()).toMatchObject({ seatbid: [] });
      const browser = await prebid(ids.prebidBlocking!.uid, CHROME);
      expect(browser.json<{ seatbid: { bid: unknown[] }[] }>().seatbid[0]!.bid).toHaveLength(1);
      expect(await reasons(`channel_id = ${ids.prebidBlocking!.id}`)).toMatchObject({
        'ivt.bot_user_agent': { reqs: 1, opps: 0, ivt: 1 },
        '': { reqs: 1, opps: 1, ivt: 0 },
      });
    });

    it("bids for a supplier's bot: a supplier has no option of its own, and the account's are off", async () => {
      const res = await rtb(ids.supplier!.uid, ortbRequest(BOT));
      expect(res.statusCode, res.body).toBe(200);
      expect(await counted(`supplier_id = ${ids.supplier!.id}`)).toMatchObject({ reqs: 1, ivt: 0 });
    });

    it('shows the verdict in "Test this tag" and blocks the test as a live request would be, without counting it', async () => {
      const res = await as(app, cookie, {
        method: 'POST',
        url: TAG_TEST_PATH,
        payload: { channelId: ids.blocking!.id, context: { ip: CLOUD_IP, ua: CHROME, width: 640, height: 360 } },
      });
      expect(res.statusCode, res.body).toBe(200);
      const answer = res.json<TagTestAnswer>();
      expect(answer.trace.result).toBe('ivt.datacenter_ip');
      expect(answer.trace.ivt).toEqual({ mode: 'block', reason: 'datacenter_ip', blocked: true });
      expect(answer.vast).not.toContain('<Ad ');
      expect((await reasons(`channel_id = ${ids.blocking!.id}`))['ivt.datacenter_ip']).toMatchObject({ reqs: 1 });
    });
  });

  describe('with setCheckIVTAll: every channel and supplier checked, flagged requests served and counted', () => {
    beforeAll(() => setOptions({ setCheckIVTAll: 1, blockIVT: null }));

    it('serves a flagged VAST request and counts it as IVT on its request row, with the reason in the trace', async () => {
      const before = await counted(`channel_id = ${ids.open!.id}`);
      const { trace, vast: xml } = await debug(ids.open!.uid, CLOUD_IP);
      expect(trace.result).toBe('filled');
      expect(trace.ivt).toEqual({ mode: 'count', reason: 'datacenter_ip', blocked: false });
      expect(xml).toContain('https://cdn.example.com/ivt.mp4');
      expect((await debug(ids.open!.uid, HOME_IP)).trace.ivt).toEqual({ mode: 'count', reason: '', blocked: false });
      const after = await counted(`channel_id = ${ids.open!.id} AND tag_id = 0 AND campaign_id = 0`);
      expect(after.reqs - before.reqs).toBe(2);
      expect(after.ivt - before.ivt).toBe(1);
      expect(after.opps - before.opps).toBe(2);
      expect(await flaggedMetric('datacenter_ip', false)).toBeGreaterThanOrEqual(1);
    });

    it("still blocks on a channel's own blockIVT", async () => {
      expect((await debug(ids.blocking!.uid, CLOUD_IP)).trace.ivt).toEqual({
        mode: 'block',
        reason: 'datacenter_ip',
        blocked: true,
      });
    });

    it("bids for a supplier's bot and counts it as IVT", async () => {
      const before = await counted(`supplier_id = ${ids.supplier!.id}`);
      const res = await rtb(ids.supplier!.uid, ortbRequest(BOT));
      expect(res.statusCode, res.body).toBe(200);
      const after = await counted(`supplier_id = ${ids.supplier!.id}`);
      expect([after.reqs - before.reqs, after.ivt - before.ivt, after.opps - before.opps]).toEqual([1, 1, 1]);
    });
  });

  describe("a supplier's dynamic ad pod (OpenRTB 2.6 video.poddur)", () => {
    beforeAll(() => setOptions({ setCheckIVTAll: 1, blockIVT: null }));

    it('is checked once: one request, one IVT flag, however many ads it gets', async () => {
      const other = await create('otherSpot', 'creatives', {
        name: 'IVT test other spot',
        format: 'video',
        videoSource: 'media',
        approval: 'approved',
        adomain: ['other.example.com'],
        duration: 15,
        mediaFiles: [
          {
            url: 'https://cdn.example.com/ivt-other.mp4',
            mime: 'video/mp4',
            duration: 15,
            width: 640,
            height: 360,
            bitrate: 800,
          },
        ],
      });
      await create('otherCampaign', 'campaigns', {
        name: 'IVT test other campaign',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: 24_000_000,
        channelScope: 'all',
        creativeIds: [other.id],
      });
      await app.edge.snapshots.rebuild();
      const before = await counted(`supplier_id = ${ids.supplier!.id} AND tag_id = 0`);
      const flaggedBefore = await flaggedMetric('bot_user_agent', false);
      const request = ortbRequest(BOT);
      request.imp[0]!.video = { ...request.imp[0]!.video, maxduration: 15, poddur: 30, maxseq: 2 };
      const res = await rtb(ids.supplier!.uid, request);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().seatbid.flatMap((s: { bid: unknown[] }) => s.bid)).toHaveLength(2);
      const after = await counted(`supplier_id = ${ids.supplier!.id} AND tag_id = 0`);
      expect([after.reqs - before.reqs, after.ivt - before.ivt, after.opps - before.opps]).toEqual([1, 1, 2]);
      // the check itself ran once (its verdict taken by the second ad)
      expect((await flaggedMetric('bot_user_agent', false)) - flaggedBefore).toBe(1);
    });
  });

  describe('with blockIVT on the account: flagged requests of every channel and supplier answered empty', () => {
    beforeAll(() => setOptions({ setCheckIVTAll: null, blockIVT: 1 }));

    it("answers a supplier's bot with a 204 no-bid, counted with its reason; a browser still gets a bid", async () => {
      const bot = await rtb(ids.supplier!.uid, ortbRequest(BOT));
      expect(bot.statusCode).toBe(204);
      expect(bot.body).toBe('');
      expect((await rtb(ids.supplier!.uid, ortbRequest(CHROME))).statusCode).toBe(200);
      expect((await reasons(`supplier_id = ${ids.supplier!.id}`))['ivt.bot_user_agent']).toEqual({
        reqs: 1,
        opps: 0,
        ivt: 1,
      });
    });

    it('answers an empty VAST on a channel without options of its own', async () => {
      const { trace, vast: xml } = await debug(ids.open!.uid, CLOUD_IP);
      expect(trace.ivt).toEqual({ mode: 'block', reason: 'datacenter_ip', blocked: true });
      expect(xml).not.toContain('<Ad ');
    });
  });

  describe('when the admin withdraws showCheckIVT', () => {
    beforeAll(async () => {
      await t.store.db.updateTable('users').set({ show_check_ivt: 0 }).where('username', '=', 'demand').execute();
      await app.edge.snapshots.rebuild();
    });
    afterAll(() =>
      t.store.db.updateTable('users').set({ show_check_ivt: 1 }).where('username', '=', 'demand').execute(),
    );

    it("puts the account's hidden options out of force; a channel's own blockIVT still blocks", async () => {
      const open = await debug(ids.open!.uid, CLOUD_IP);
      expect(open.trace.ivt).toBeNull();
      expect(open.trace.result).toBe('filled');
      expect((await rtb(ids.supplier!.uid, ortbRequest(BOT))).statusCode).toBe(200);
      expect((await debug(ids.blocking!.uid, CLOUD_IP)).trace.result).toBe('ivt.datacenter_ip');
    });
  });
});
