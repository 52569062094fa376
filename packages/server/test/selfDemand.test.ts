import { type AddressInfo } from 'node:net';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DecisionTrace, TAG_TEST_PATH, type TagTestAnswer } from '@adplane/shared';
import { type Settings } from '../src/settings.js';
import { HOP_HEADER, NOFILL_HEADER } from '../src/edge/request/demandHops.js';
import { startDemandServer, type DemandServer } from './demandServers.js';
import { until } from './deliveryEngines.js';
import { as, buildTestApp, createAs, onSqliteStore, login } from './helpers.js';

/**
 * Demand on the edge's own entry points (request/demandHops.ts, http/ownEntryPoints.ts), on a real
 * listening server whose inbound /vast/ and /rtb/ requests are counted: a VAST tag calling its own
 * channel, and two RTB tags in a ring, each at the other's channel. By default such URLs are refused
 * when saved and when called (a wrapper leading there), and a request carrying our hop marker is a
 * no-fill; with the operator's ADPLANE_ALLOW_SELF_DEMAND=1 one hop is decided and the next refused:
 * a bounded number of calls, and the trace names the loop.
 */
interface Edge {
  app: FastifyInstance;
  base: string;
  cookie: string;
  /** The edge's inbound decision requests over HTTP (/vast/ and /rtb/ paths), with the hops their marker says. */
  inbound: { path: string; hops: string }[];
}

async function startEdge(store: Parameters<typeof buildTestApp>[0], overrides: Partial<Settings>): Promise<Edge> {
  const app = await buildTestApp(store, overrides);
  const inbound: Edge['inbound'] = [];
  const serve = app.edge.serveRaw;
  app.edge.serveRaw = (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (path.startsWith('/vast/') || path.startsWith('/rtb/'))
      inbound.push({ path, hops: String(req.headers[HOP_HEADER] ?? '').split('.')[0]! });
    return serve(req, res);
  };
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { app, base, cookie: await login(app, 'demand'), inbound };
}

/** Waits until the edge's snapshot has the tag with `url` (its VAST URL or endpoint), and the channels. */
const served = (e: Edge, tagId: number, url: string, ...channels: string[]) =>
  until(`tag ${tagId} at ${url} in the snapshot`, () => {
    const snapshot = e.app.edge.snapshots.current;
    const tag = snapshot?.tags.get(tagId);
    return (
      !!tag &&
      (tag.vastUrl === url || tag.endpoint === url) &&
      channels.every((uid) => snapshot!.channelsByUid.has(uid))
    );
  });

/** The demand tags' fates (the tenant's own campaigns, under the channels' floor, aside). */
const tagFates = (trace: DecisionTrace) => trace.sources.filter((s) => s.source !== 'campaign');

const debugTrace = async (e: Edge, uid: string, headers: Record<string, string> = {}): Promise<DecisionTrace> => {
  const res = await as(e.app, e.cookie, { method: 'GET', url: `/vast/${uid}?w=640&h=360&ip=8.8.8.8&debug=1`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { trace: DecisionTrace }).trace;
};

const videoBidRequest = (id: string) => ({
  id,
  imp: [{ id: '1', video: { mimes: ['video/mp4'], w: 640, h: 360, protocols: [2, 3] } }],
  site: { domain: 'news.example.com' },
  device: { ip: '8.8.8.8', ua: 'Mozilla/5.0' },
  tmax: 300,
});

const CPM = { type: 'cpm', cpm: 2_000_000 };
/** A floor the tenant's own campaigns do not reach: the demand tags are called. */
const FLOOR = { floorCpm: 100_000_000 };
const RTB_PRICE = { type: 'revshare', percent: 100 };

onSqliteStore((t) => {
  describe('by default', () => {
    let e: Edge;
    let demand: DemandServer;
    beforeAll(async () => {
      demand = await startDemandServer();
      e = await startEdge(t.store, {});
    });
    afterAll(async () => {
      await e?.app.close();
      await demand?.close();
    });

    it("refuses to save a demand tag whose URL is one of the server's own entry points, naming the field", async () => {
      const port = new URL(e.base).port;
      const channel = await createAs(e.app, e.cookie, 'channels', { name: 'Own channel', demand: [] });
      const post = (body: Record<string, unknown>) =>
        as(e.app, e.cookie, {
          method: 'POST',
          url: '/api/demand/tags',
          payload: { name: `Self ${Math.random()}`, price: CPM, timeoutMs: 1000, ...body },
        });
      for (const vastUrl of [
        `${e.base}/vast/${channel.uid}?w=640`,
        `http://localhost:${port}/vast/${channel.uid}`,
        'http://127.0.0.1:8080/vast/x'.replace('8080', port),
      ]) {
        const res = await post({ vastUrl });
        expect(res.statusCode, vastUrl).toBe(400);
        expect(res.json()).toMatchObject({ field: 'vastUrl' });
        expect(res.body).toContain('ADPLANE_ALLOW_SELF_DEMAND');
      }
      const rtb = await post({ integration: 'RTB', endpoint: `${e.base}/rtb/${channel.uid}`, price: RTB_PRICE });
      expect(rtb.statusCode).toBe(400);
      expect(rtb.json()).toMatchObject({ field: 'endpoint' });
      // the same origin's other paths (the demo demand, tracking) are not entry points
      expect((await post({ vastUrl: `${e.base}/demo/demand/vast?price=2` })).statusCode).toBe(201);
      // and an edit is held to the same rule
      const tag = await createAs(e.app, e.cookie, 'tags', {
        name: 'Elsewhere',
        vastUrl: `${demand.url}/inline?price=5`,
        price: CPM,
        timeoutMs: 1000,
      });
      const edit = await as(e.app, e.cookie, {
        method: 'PUT',
        url: `/api/demand/tags/${tag.id}`,
        payload: { name: 'Elsewhere', vastUrl: `${e.base}/vast/${channel.uid}`, price: CPM, timeoutMs: 1000 },
      });
      expect(edit.statusCode).toBe(400);
      expect(e.inbound).toEqual([]);
    });

    it('does not call a wrapper that leads to its own entry point: a no-fill naming the loop, and the demand hears our hop marker', async () => {
      const target = await createAs(e.app, e.cookie, 'channels', { name: 'Wrapped into', demand: [] });
      const url = `${demand.url}/wrapper?depth=1&end=${encodeURIComponent(`${e.base}/vast/${target.uid}`)}`;
      const tag = await createAs(e.app, e.cookie, 'tags', {
        name: 'Wrapper home',
        vastUrl: url,
        price: CPM,
        timeoutMs: 1000,
      });
      const channel = await createAs(e.app, e.cookie, 'channels', {
        name: 'Wrapper channel',
        ...FLOOR,
        demand: [{ tagId: tag.id, priority: 1 }],
      });
      await served(e, tag.id, url, channel.uid);
      // the wrapper's own calls (its error tracker, pinged with 301 after the decision, is another path)
      const wrapperCalls = () => demand.calls.filter((u) => u.pathname === '/wrapper').length;
      const calls = demand.calls.length;
      const before = wrapperCalls();
      const trace = await debugTrace(e, channel.uid);
      expect(trace.result).not.toBe('filled');
      expect(tagFates(trace)).toEqual([
        expect.objectContaining({ id: tag.id, fate: 'no_fill', reason: 'demand_loop.own_entry_point', vastError: 301 }),
      ]);
      expect(e.inbound).toEqual([]);
      expect(wrapperCalls()).toBe(before + 1);
      const call = demand.calls.findIndex((u, i) => i >= calls && u.pathname === '/wrapper');
      expect(String(demand.headers[call]![HOP_HEADER])).toMatch(/^1\.[\w-]{22}$/);
    });

    it('answers a request carrying our own hop marker (a name the settings do not know) with a no-fill naming the loop, counted', async () => {
      const channel = await createAs(e.app, e.cookie, 'channels', { name: 'Marked', ...FLOOR, demand: [] });
      await until('channel in the snapshot', () => !!e.app.edge.snapshots.current?.channelsByUid.get(channel.uid));
      const marker = e.app.edge.deps!.loops!.marker;
      expect((await debugTrace(e, channel.uid, { [HOP_HEADER]: marker.header(1) })).result).toBe('demand_loop');
      // another deployment's marker, or a forged one, is nobody's: decided as usual
      expect((await debugTrace(e, channel.uid, { [HOP_HEADER]: '1.AAAAAAAAAAAAAAAAAAAAAA' })).result).toBe('no_bid');

      const rtb = await createAs(e.app, e.cookie, 'channels', {
        name: 'Marked RTB',
        ...FLOOR,
        integration: 'RTB',
        format: 'video',
        payout: { type: 'revshare', percent: 70 },
        demand: [],
      });
      await until('RTB channel in the snapshot', () => !!e.app.edge.snapshots.current?.channelsByUid.get(rtb.uid));
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${e.base}/rtb/${rtb.uid}`, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json', ...headers },
        });
      const viaHeader = await post(videoBidRequest('h'), { [HOP_HEADER]: marker.header(1) });
      expect([viaHeader.status, viaHeader.headers.get(NOFILL_HEADER)]).toEqual([204, 'demand_loop']);
      // forwarded by an exchange: no header, our marked node in the supply chain
      const node = marker.mark({ asi: 'ads.example', sid: 'c1', hp: 1, rid: 'earlier-request' });
      const forwarded = await post({
        ...videoBidRequest('s'),
        source: { schain: { ver: '1.0', complete: 1, nodes: [node, { asi: 'exchange.example', sid: '9', hp: 1 }] } },
      });
      expect([forwarded.status, forwarded.headers.get(NOFILL_HEADER)]).toEqual([204, 'demand_loop']);
      const metrics = await e.app.metrics.render();
      expect(metrics).toMatch(/adplane_demand_loops_refused_total\{stage="entry",kind="vast"\} [1-9]/);
      expect(metrics).toMatch(/adplane_demand_loops_refused_total\{stage="entry",kind="rtb"\} [2-9]/);
      expect(metrics).toMatch(/adplane_demand_loops_refused_total\{stage="call",kind="vast"\} [1-9]/);
    });
  });

  describe('with demand on its own origin allowed (ADPLANE_ALLOW_SELF_DEMAND=1)', () => {
    let e: Edge;
    beforeAll(async () => {
      e = await startEdge(t.store, { allowSelfDemand: true });
    });
    afterAll(async () => {
      await e?.app.close();
    });

    it("a VAST tag at its own channel's tag: one hop decided, the next refused, and the trace names the loop", async () => {
      const tag = await createAs(e.app, e.cookie, 'tags', {
        name: 'Self VAST',
        vastUrl: 'https://demand.example/vast',
        price: CPM,
        timeoutMs: 1000,
      });
      const channel = await createAs(e.app, e.cookie, 'channels', {
        name: 'Self-calling channel',
        ...FLOOR,
        demand: [{ tagId: tag.id, priority: 1 }],
      });
      const url = `${e.base}/vast/${channel.uid}?w=640&h=360`;
      const edit = await as(e.app, e.cookie, {
        method: 'PUT',
        url: `/api/demand/tags/${tag.id}`,
        payload: { name: 'Self VAST', vastUrl: url, price: CPM, timeoutMs: 1000 },
      });
      expect(edit.statusCode, edit.body).toBe(200);
      await served(e, tag.id, url, channel.uid);
      e.inbound.length = 0;

      const trace = await debugTrace(e, channel.uid);
      expect(trace.result).not.toBe('filled');
      expect(tagFates(trace)).toEqual([
        expect.objectContaining({ id: tag.id, fate: 'no_fill', reason: 'demand_loop' }),
      ]);
      // the first hop decided (and called its tag again), the second refused without an auction
      expect(e.inbound).toEqual([
        { path: `/vast/${channel.uid}`, hops: '1' },
        { path: `/vast/${channel.uid}`, hops: '2' },
      ]);
    });

    it("two RTB tags in a ring, each at the other's channel: three bid requests from one, and the trace names the loop", async () => {
      const placeholder = 'https://bidder.example/rtb';
      const toB = await createAs(e.app, e.cookie, 'tags', {
        name: 'Ring A to B',
        integration: 'RTB',
        endpoint: placeholder,
        price: RTB_PRICE,
        timeoutMs: 1000,
      });
      const toA = await createAs(e.app, e.cookie, 'tags', {
        name: 'Ring B to A',
        integration: 'RTB',
        endpoint: placeholder,
        price: RTB_PRICE,
        timeoutMs: 1000,
      });
      const rtbChannel = (name: string, tagId: number) =>
        createAs(e.app, e.cookie, 'channels', {
          name,
          ...FLOOR,
          integration: 'RTB',
          format: 'video',
          payout: { type: 'revshare', percent: 70 },
          demand: [{ tagId, priority: 1 }],
        });
      const a = await rtbChannel('Ring channel A', toB.id);
      const b = await rtbChannel('Ring channel B', toA.id);
      const point = async (tag: { id: number }, name: string, at: string) => {
        const res = await as(e.app, e.cookie, {
          method: 'PUT',
          url: `/api/demand/tags/${tag.id}`,
          payload: { name, integration: 'RTB', endpoint: at, price: RTB_PRICE, timeoutMs: 1000 },
        });
        expect(res.statusCode, res.body).toBe(200);
        await served(e, tag.id, at);
      };
      await point(toB, 'Ring A to B', `${e.base}/rtb/${b.uid}`);
      await point(toA, 'Ring B to A', `${e.base}/rtb/${a.uid}`);
      await until(
        'both ring channels in the snapshot',
        () =>
          !!e.app.edge.snapshots.current?.channelsByUid.get(a.uid) &&
          !!e.app.edge.snapshots.current?.channelsByUid.get(b.uid),
      );
      e.inbound.length = 0;

      // one bid request from outside: A calls B (hop 1, decided), B calls A (hop 2, refused)
      const res = await fetch(`${e.base}/rtb/${a.uid}`, {
        method: 'POST',
        body: JSON.stringify(videoBidRequest('ring')),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(204);
      expect(e.inbound).toEqual([
        { path: `/rtb/${a.uid}`, hops: '' },
        { path: `/rtb/${b.uid}`, hops: '1' },
        { path: `/rtb/${a.uid}`, hops: '2' },
      ]);

      // the tag tested from the console: its trace names the loop as its no-fill reason
      e.inbound.length = 0;
      const tested = await as(e.app, e.cookie, {
        method: 'POST',
        url: TAG_TEST_PATH,
        payload: { tagId: toB.id, context: { country: 'US' } },
      });
      expect(tested.statusCode, tested.body).toBe(200);
      expect(tagFates((tested.json() as TagTestAnswer).trace)).toEqual([
        expect.objectContaining({ id: toB.id, fate: 'no_fill', reason: 'demand_loop' }),
      ]);
      expect(e.inbound).toEqual([
        { path: `/rtb/${b.uid}`, hops: '1' },
        { path: `/rtb/${a.uid}`, hops: '2' },
      ]);
    });
  });
});
