import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DecisionTrace, type PostbidSetup } from '@adplane/shared';
import { postbackKey } from '../src/edge/doors/postback.js';
import { seedPostbidCap } from '../src/edge/seeding/postbidCapSeed.js';
import { PostbidCap } from '../src/edge/postbid/postbidCap.js';
import { postbidDraw } from '../src/edge/postbid/postbidSampling.js';
import { ensureTrackingKey } from '../src/edge/tracking/trackingKey.js';
import { TokenSigner } from '../src/edge/tracking/trackingToken.js';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { as, buildTestApp, createAs, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine, statsRow } from './statsEngines.js';
import { midHourClock } from './testTime.js';
import { schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Post-bid pixels and the postbid report through the real app, on every config store and stats
 * engine (docs/traffic-quality.md "Post-bid pixels", docs/reports.md "Postbid report"): the pixel
 * on the sampled share of VAST answers (predicted from the decision id), post-bid impressions
 * counted on the impression beacon, the monthly cap, the vendors' postback, /api/pbrun per user and
 * the monthly limit on saved postbid reports.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const PIXEL_HOST = 'https://scan.pixel-vendor.test/p';

interface Answer {
  xml: string;
  decisionId: string;
  impression: string;
  pixels: string[];
}

forEachStoreAndStatsEngine((t, s) => {
  let app: FastifyInstance;
  /** The edge processes' clock: the month's post-bid counts and saved reports do not turn within the tests. */
  const clock = midHourClock();
  const cookies: Record<string, string> = {};
  let northwind = 0;
  let acme = 0;
  let pixelId = 0;
  let channel = { id: 0, uid: '' };
  let bare = { id: 0, uid: '' };
  let supplier = { id: 0, uid: '' };

  const vast = async (uid: string): Promise<Answer> => {
    const res = await edgeRequest(app, {
      method: 'GET',
      url: `/vast/${uid}?w=640&h=360&ip=73.158.1.1&domain=news.example.com&page_url=${encodeURIComponent('https://news.example.com/a?b=1')}`,
      headers: { 'user-agent': CHROME },
    });
    expect(res.statusCode).toBe(200);
    const urls = [...res.body.matchAll(/<Impression><!\[CDATA\[(.*?)\]\]><\/Impression>/g)].map((m) => m[1]!);
    return {
      xml: res.body,
      decisionId: /<AdServingId>(.*?)<\/AdServingId>/.exec(res.body)?.[1] ?? '',
      impression: urls.find((u) => u.includes('/ev?e=impression')) ?? '',
      pixels: urls.filter((u) => u.startsWith(PIXEL_HOST)),
    };
  };
  const beacon = async (url: string) => {
    const { pathname, search } = new URL(url);
    expect((await edgeRequest(app, { method: 'GET', url: pathname + search })).statusCode).toBe(200);
  };
  const sums = async (where: string) => {
    await app.edge.flush();
    const [row] = await s.stats.select(
      `SELECT sum(imps) AS imps, sum(postbid_imps) AS postbid_imps, sum(postbid_ivt) AS postbid_ivt FROM ${STATS_TABLE} WHERE ${where}`,
    );
    return {
      imps: Number(row?.imps ?? 0),
      postbid_imps: Number(row?.postbid_imps ?? 0),
      postbid_ivt: Number(row?.postbid_ivt ?? 0),
    };
  };
  const setProfile = async (options: { postbidPercent: number; setPostbidAll: 1 | null }) => {
    const before = (await as(app, cookies.demand!, { method: 'GET', url: '/api/demand/info' })).json<
      Record<string, unknown>
    >();
    const res = await as(app, cookies.demand!, {
      method: 'PUT',
      url: '/api/demand/info',
      payload: { ...before, ...options },
    });
    expect(res.statusCode, res.body).toBe(200);
    await app.edge.snapshots.rebuild();
  };
  const setConfig = async (config: { postbidMaxImps: number; postbidMaxReps: number }) => {
    const res = await as(app, cookies.admin!, { method: 'PUT', url: '/api/admin/config', payload: config });
    expect(res.statusCode, res.body).toBe(200);
    await app.edge.snapshots.rebuild();
  };
  const trace = async (uid: string): Promise<DecisionTrace> => {
    const res = await edgeRequest(app, {
      cookie: cookies.demand!,
      method: 'GET',
      url: `/vast/${uid}?w=640&h=360&ip=73.158.1.1&domain=news.example.com&debug=1`,
      headers: { 'user-agent': CHROME },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ trace: DecisionTrace }>().trace;
  };

  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { stats: s.stats, clock });
    northwind = t.users.demand!.id;
    acme = t.users.acme!.id;
    for (const user of ['admin', 'demand', 'manager', 'sub', 'acme'])
      cookies[user] = await login(app, user, undefined, freshAddress());
    const spot = await createAs(app, cookies.demand!, 'creatives', {
      name: 'Post-bid test spot',
      format: 'video',
      videoSource: 'media',
      approval: 'approved',
      clickUrl: 'https://brand.example.com/pb',
      adomain: ['brand.example.com'],
      duration: 15,
      mediaFiles: [
        {
          url: 'https://cdn.example.com/pb.mp4',
          mime: 'video/mp4',
          duration: 15,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });
    await createAs(app, cookies.demand!, 'campaigns', {
      name: 'Post-bid test campaign',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: 30_000_000,
      channelScope: 'all',
      creativeIds: [spot.id],
    });
    pixelId = (
      await createAs(app, cookies.demand!, 'ivts', {
        name: 'Scan vendor post-bid',
        vendor: 'Scan Vendor',
        stage: 'postbid',
        samplePercent: 100,
        urlTemplate: `${PIXEL_HOST}?imp={{impression_id}}&ip={{ip}}&u={{page_url}}&ch={{channel_id}}&cb={{cachebuster}}`,
      })
    ).id;
    const base = {
      format: 'video',
      environment: 'web',
      vastVersion: '4.2',
      payout: { type: 'revshare', percent: 70 },
      demandMode: 'auction',
      timeoutMs: 1000,
    };
    channel = await createAs(app, cookies.demand!, 'channels', {
      ...base,
      name: 'Post-bid: scanned',
      ivtIds: [pixelId],
    });
    bare = await createAs(app, cookies.demand!, 'channels', { ...base, name: 'Post-bid: no pixel' });
    supplier = await createAs(app, cookies.demand!, 'sups', {
      name: 'Post-bid test SSP',
      qpsLimit: 'unlimited',
      marginPercent: 20,
      formats: ['video'],
    });
    await setConfig({ postbidMaxImps: 0, postbidMaxReps: 0 });
    await setProfile({ postbidPercent: 50, setPostbidAll: null });
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('post-bid pixels on the edge', () => {
    it('carries the pixel on the sampled share of VAST answers, predicted from the decision id, XSD-valid, macros filled', async () => {
      let carried = 0;
      for (let i = 0; i < 24; i++) {
        const a = await vast(channel.uid);
        expect(a.decisionId).not.toBe('');
        const sampled = postbidDraw(a.decisionId, '') < 50;
        expect(a.pixels.length, a.decisionId).toBe(sampled ? 1 : 0);
        if (!sampled) continue;
        carried++;
        expect(schemaErrors('4.2', a.xml)).toBe('');
        const q = new URL(a.pixels[0]!).searchParams;
        expect(q.get('ip')).toBe('73.158.1.1');
        expect(q.get('u')).toBe('https://news.example.com/a?b=1');
        expect(q.get('ch')).toBe(String(channel.id));
        expect(q.get('cb')).toBe(a.decisionId);
        expect(q.get('imp')).toMatch(/^[\w-]+\.[\w-]{22}$/);
      }
      expect(carried).toBeGreaterThan(0);
      // a channel without pixels never carries one, and its trace says why
      expect((await vast(bare.uid)).pixels).toEqual([]);
      expect((await trace(bare.uid)).postbid).toMatchObject({ result: 'none_configured', source: null });
    });

    it('counts post-bid impressions on the impression beacon, only for answers that carried pixels', async () => {
      const before = await sums(`channel_id = ${channel.id}`);
      const answers = await Promise.all(Array.from({ length: 12 }, () => vast(channel.uid)));
      for (const a of answers) await beacon(a.impression);
      // a replayed beacon counts once
      await beacon(answers[0]!.impression);
      const after = await sums(`channel_id = ${channel.id}`);
      expect(after.imps - before.imps).toBe(12);
      expect(after.postbid_imps - before.postbid_imps).toBe(answers.filter((a) => a.pixels.length).length);
      // a process that starts now begins the account's month at its post-bid impressions so far
      const now = app.clock.now();
      const month = new Date(now).toISOString().slice(0, 7);
      const [own] = await s.stats.select(
        `SELECT sum(postbid_imps) AS n FROM ${STATS_TABLE} WHERE tenant_id = ${northwind} AND hour >= '${month}-01 00:00:00'`,
      );
      const cap = new PostbidCap();
      await seedPostbidCap(cap, s.stats, app.log, now);
      expect(cap.used(northwind, now)).toBe(Number(own?.n ?? 0));
      expect(cap.used(northwind, now)).toBeGreaterThan(0);
    });

    it("another edge process's count reaches this process's post-bid impressions through the stats store, while it runs", async () => {
      // another process: a data folder of its own (the delivery counters a process saves at its stop are
      // read back by the next one started on the same folder), its count starting at the store's
      const otherDir = mkdtempSync(join(tmpdir(), 'adplane-other-edge-'));
      const other = await buildTestApp(
        t.store,
        { dataDir: otherDir },
        { stats: s.stats, role: 'edge', edge: { postbidReseedMs: 50 }, clock },
      );
      try {
        const otherCap = other.edge.deps!.postbid!.cap;
        const start = otherCap.used(northwind, clock.now());
        const answers = await Promise.all(Array.from({ length: 12 }, () => vast(channel.uid)));
        const carried = answers.filter((a) => a.pixels.length);
        expect(carried.length).toBeGreaterThan(0);
        for (const a of carried) await beacon(a.impression);
        await app.edge.flush();
        // the other process decided nothing: its count grows from the store alone, on its next read
        const until = Date.now() + 5_000;
        while (otherCap.used(northwind, clock.now()) < start + carried.length && Date.now() < until)
          await new Promise((r) => setTimeout(r, 50));
        expect(otherCap.used(northwind, clock.now())).toBe(start + carried.length);
      } finally {
        await other.close();
        rmSync(otherDir, { recursive: true, force: true });
      }
    });

    it("with setPostbidAll every channel carries the account's post-bid pixels; the monthly cap stops them and the trace says so", async () => {
      await setProfile({ postbidPercent: 100, setPostbidAll: 1 });
      // (every live post-bid pixel of the account: the store is shared by the stats engines' blocks, each adds one)
      expect((await vast(bare.uid)).pixels.length).toBeGreaterThan(0);
      // a supplier's OpenRTB bid carries them in its markup too
      const bid = await edgeRequest(app, {
        method: 'POST',
        url: `/rtb/bid/${supplier.uid}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          id: `pb-${Date.now()}`,
          imp: [{ id: '1', video: { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360 } }],
          site: { domain: 'news.example.com', page: 'https://news.example.com/story' },
          device: { ua: CHROME, ip: '73.158.1.1', devicetype: 2 },
          tmax: 500,
        }),
      });
      expect(bid.statusCode, bid.body).toBe(200);
      const adm = String(bid.json<{ seatbid: { bid: { adm: string }[] }[] }>().seatbid[0]!.bid[0]!.adm);
      expect(adm).toContain(`<Impression><![CDATA[${PIXEL_HOST}?imp=`);
      const version = /<VAST version="([\d.]+)"/.exec(adm)?.[1] as '4.2';
      expect(schemaErrors(version, adm)).toBe('');
      const used = app.edge.deps!.postbid!.cap.used(northwind, clock.now());
      await setConfig({ postbidMaxImps: used + 2, postbidMaxReps: 0 });
      const next = [await vast(bare.uid), await vast(channel.uid), await vast(channel.uid)];
      expect(next.map((a) => a.pixels.length > 0)).toEqual([true, true, false]);
      expect(schemaErrors('4.2', next[2]!.xml)).toBe('');
      expect((await trace(channel.uid)).postbid).toMatchObject({
        result: 'cap_reached',
        source: 'account',
        maxImps: used + 2,
        monthUsed: used + 2,
      });
      // the impression of a capped answer is not a post-bid impression
      const before = await sums(`channel_id = ${channel.id}`);
      await beacon(next[2]!.impression);
      const after = await sums(`channel_id = ${channel.id}`);
      expect([after.imps - before.imps, after.postbid_imps - before.postbid_imps]).toEqual([1, 0]);
      await setConfig({ postbidMaxImps: 0, postbidMaxReps: 0 });
      await setProfile({ postbidPercent: 100, setPostbidAll: null });
    });
  });

  describe("the vendors' postback", () => {
    it("counts a flagged impression into postbid_ivt on the impression's row, once; refuses another account's key, a forged id and bad input with the field", async () => {
      const setup = (await as(app, cookies.demand!, { method: 'GET', url: '/api/pbSetup' })).json<PostbidSetup>();
      expect(setup.postbackUrl).toMatch(new RegExp(`/pb/${northwind}-[\\w-]{22}$`));
      const path = new URL(setup.postbackUrl!).pathname;
      const [flagged, clean] = [await vast(channel.uid), await vast(channel.uid)];
      const idOf = (a: Answer) => new URL(a.pixels[0]!).searchParams.get('imp')!;
      for (const a of [flagged, clean]) await beacon(a.impression);
      const before = await sums(`channel_id = ${channel.id}`);

      const ok = await edgeRequest(app, {
        method: 'GET',
        url: `${path}?id=${encodeURIComponent(idOf(flagged))}&ivt=1&reason=datacenter`,
      });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json()).toEqual({ ok: true, received: 1, flagged: 1 });
      // the same verdict again, and a batch with a clean verdict: counted once, the clean one not at all
      const batch = await edgeRequest(app, {
        method: 'POST',
        url: path,
        payload: [
          { id: idOf(flagged), ivt: 1 },
          { id: idOf(clean), ivt: 0 },
        ],
        headers: { 'content-type': 'application/json' },
      });
      expect(batch.json()).toEqual({ ok: true, received: 2, flagged: 1 });
      const after = await sums(`channel_id = ${channel.id}`);
      expect(after.postbid_ivt - before.postbid_ivt).toBe(1);
      const [row] = await s.stats.select(
        `SELECT country, integration FROM ${STATS_TABLE} WHERE channel_id = ${channel.id} AND postbid_ivt > 0 LIMIT 1`,
      );
      expect(row).toMatchObject({ integration: 'VAST' });

      // another account's postback URL cannot write this account's results
      const signer = new TokenSigner(await ensureTrackingKey(t.store.db));
      const acmePath = `/pb/${postbackKey(signer, acme)}`;
      const foreign = await edgeRequest(app, {
        method: 'GET',
        url: `${acmePath}?id=${encodeURIComponent(idOf(clean))}&ivt=1`,
      });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()).toMatchObject({ field: 'id' });
      const badKey = await edgeRequest(app, {
        method: 'GET',
        url: `/pb/${northwind}-AAAAAAAAAAAAAAAAAAAAAA?id=x&ivt=1`,
      });
      expect([badKey.statusCode, badKey.json().field]).toEqual([403, 'key']);
      const cases: [string, string][] = [
        [`${path}?ivt=1`, 'id'],
        [`${path}?id=${encodeURIComponent(idOf(clean))}`, 'ivt'],
        [`${path}?id=${encodeURIComponent(idOf(clean))}&ivt=yes`, 'ivt'],
        [`${path}?id=forged.AAAAAAAAAAAAAAAAAAAAAA&ivt=1`, 'id'],
        [`${path}?id=%E0%A4%A&ivt=1`, 'id'],
      ];
      for (const [url, field] of cases) {
        const res = await edgeRequest(app, { method: 'GET', url });
        expect([res.statusCode, res.json().field], url).toEqual([400, field]);
      }
      const notJson = await edgeRequest(app, {
        method: 'POST',
        url: path,
        payload: 'id=1&ivt=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect([notJson.statusCode, notJson.json().field]).toEqual([400, 'body']);
      const badItem = await edgeRequest(app, {
        method: 'POST',
        url: path,
        payload: {
          results: [
            { id: idOf(clean), ivt: 1 },
            { id: idOf(clean), ivt: 3 },
          ],
        },
        headers: { 'content-type': 'application/json' },
      });
      expect([badItem.statusCode, badItem.json().field]).toEqual([400, 'results.1.ivt']);
      expect((await sums(`channel_id = ${channel.id}`)).postbid_ivt - before.postbid_ivt).toBe(1);
    });
  });

  describe('POST /api/pbrun and saved postbid reports', () => {
    const HOUR = '2026-10-05 10:00:00';
    beforeAll(async () => {
      await s.stats.write([
        statsRow({
          hour: HOUR,
          tenant_id: northwind,
          channel_id: channel.id,
          country: 'US',
          imps: 400,
          postbid_imps: 200,
          postbid_ivt: 10,
        }),
        statsRow({
          hour: HOUR,
          tenant_id: northwind,
          channel_id: channel.id,
          country: 'CA',
          imps: 100,
          postbid_imps: 50,
          postbid_ivt: 20,
        }),
        statsRow({
          hour: HOUR,
          tenant_id: acme,
          channel_id: 999_999,
          country: 'US',
          imps: 90,
          postbid_imps: 90,
          postbid_ivt: 45,
        }),
      ]);
    });
    const pbrun = (user: string, body: Record<string, unknown>) =>
      as(app, cookies[user] ?? null, {
        method: 'POST',
        url: '/api/pbrun',
        payload: {
          startDate: '2026-10-05',
          endDate: '2026-10-05',
          metrics: ['postbidImps', 'postbidIvt', 'postbidIvtRate'],
          ...body,
        },
      });

    it('answers IVT rates by dimension in the user scope', async () => {
      const res = await pbrun('demand', { dimensions: ['country'], sort: { by: 'country', order: 'asc' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual([
        { country: 'CA', postbidImps: 50, postbidIvt: 20, postbidIvtRate: 40 },
        { country: 'US', postbidImps: 200, postbidIvt: 10, postbidIvtRate: 5 },
        { total: true, postbidImps: 250, postbidIvt: 30, postbidIvtRate: 12 },
      ]);
      const admin = (await pbrun('admin', { dimensions: ['tenant'] })).json<Record<string, unknown>[]>();
      expect(
        admin
          .filter((r) => !r.total)
          .map((r) => [r.tenant, r.postbidIvtRate])
          .sort(),
      ).toEqual(
        [
          [acme, 50],
          [northwind, 12],
        ].sort(),
      );
    });

    it('refuses users without post-bid and anything but post-bid metrics and dimensions, naming the field', async () => {
      for (const user of ['acme', 'manager', 'sub']) expect((await pbrun(user, {})).statusCode, user).toBe(403);
      expect((await pbrun('anon', {})).statusCode).toBe(403);
      const wrong = await pbrun('demand', { metrics: ['revenue'] });
      expect([wrong.statusCode, wrong.json().field]).toEqual([400, 'metrics.0']);
      const dim = await pbrun('demand', { dimensions: ['browser'] });
      expect([dim.statusCode, dim.json().field]).toEqual([400, 'dimensions.0']);
      // an account granted post-bid sees only its own numbers
      await t.store.db.updateTable('users').set({ show_postbid_pix: 1 }).where('id', '=', acme).execute();
      const own = (await pbrun('acme', {})).json<Record<string, unknown>[]>();
      expect(own).toEqual([{ total: true, postbidImps: 90, postbidIvt: 45, postbidIvtRate: 50 }]);
      await t.store.db.updateTable('users').set({ show_postbid_pix: 0 }).where('id', '=', acme).execute();
    });

    it('saves no more postbid reports a month than postbidMaxReps, counting saves (a deleted one does not give its place back)', async () => {
      await setConfig({ postbidMaxImps: 0, postbidMaxReps: 2 });
      const request = {
        startDate: '2026-10-05',
        endDate: '2026-10-05',
        dimensions: ['country'],
        metrics: ['postbidImps', 'postbidIvtRate'],
      };
      const save = (name: string, ivt = true, body = request) =>
        as(app, cookies.demand!, { method: 'POST', url: '/api/savedReports', payload: { name, ivt, request: body } });
      const setupNow = async () =>
        (await as(app, cookies.demand!, { method: 'GET', url: '/api/pbSetup' })).json<PostbidSetup>();
      const startedAt = (await setupNow()).reportsSaved;
      await setConfig({ postbidMaxImps: 0, postbidMaxReps: startedAt + 2 });
      const wrongMetric = await save('Not post-bid', true, { ...request, metrics: ['revenue'] });
      expect([wrongMetric.statusCode, wrongMetric.json().field]).toEqual([400, 'request.metrics.0']);
      const first = await save('IVT by country');
      expect(first.statusCode, first.body).toBe(201);
      expect(first.json()).toMatchObject({ ivt: 1, name: 'IVT by country' });
      expect((await save('IVT by country 2')).statusCode).toBe(201);
      const third = await save('IVT by country 3');
      expect(third.statusCode).toBe(429);
      expect(third.json().message).toMatch(
        /saved its \d+ postbid reports for \w+ \d{4} \(the monthly limit set by the admin\)/,
      );
      expect(await setupNow()).toMatchObject({ reportsSaved: startedAt + 2, maxReports: startedAt + 2 });
      // other reports are not limited; a deleted postbid report keeps its place taken
      expect((await save('Plain report', false, { ...request, metrics: ['imps'] })).statusCode).toBe(201);
      expect(
        (await as(app, cookies.demand!, { method: 'DELETE', url: `/api/savedReport/${first.json().id}` })).statusCode,
      ).toBe(200);
      expect((await save('IVT by country 4')).statusCode).toBe(429);
      // the bell lists the postbid report as ivt, to open at /pbReport/{id}?saved=1
      const bell = (await as(app, cookies.demand!, { method: 'GET', url: '/api/savedReports' })).json<
        { name: string; ivt: number }[]
      >();
      expect(bell.find((r) => r.name === 'IVT by country 2')?.ivt).toBe(1);
      // the admin lifts the limit (0: none)
      await setConfig({ postbidMaxImps: 0, postbidMaxReps: 0 });
      expect((await save('IVT by country 5')).statusCode).toBe(201);
    });
  });
});
