import { type FastifyInstance } from 'fastify';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DecisionTrace } from '@adplane/shared';
import { readConfigVersion } from '../src/store/configVersion.js';
import { forEachStoreAndDeliveryEngine } from './deliveryEngines.js';
import { startDemandServer } from './demandServers.js';
import { buildTestApp, createAs, login } from './helpers.js';
import { edgePort, edgeRequest } from './edgeClient.js';

/**
 * Delivery control wired into the edge (docs/delivery.md, "Where the edge calls it"), through the
 * real app on both engines: the decision admits the winner, the counted impression (/ev) commits it,
 * and the campaign's daily budget and frequency cap stop it from filling.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const BID = 50_000_000; // $50 CPM: above the seeded campaigns, so ours wins while it may
const PER_IMP = BID / 1000;

forEachStoreAndDeliveryEngine((engine, t) => {
  describe(`delivery control on the edge (${engine.engine})`, () => {
    let app: FastifyInstance;
    let cookie: string;
    let creativeId = 0;
    let channelUid = '';

    beforeAll(async () => {
      const deployment = engine.deployment();
      app = await buildTestApp(t.store, { redisUrl: deployment.redisUrl }, { deliveryPrefix: deployment.prefix });
      cookie = await login(app, 'demand');
      creativeId = (
        await createAs(app, cookie, 'creatives', {
          name: 'Budget spot',
          format: 'video',
          videoSource: 'media',
          approval: 'approved',
          clickUrl: 'https://brand.example.com/',
          mediaFiles: [
            {
              url: 'https://cdn.example.com/spot.mp4',
              mime: 'video/mp4',
              duration: 15,
              width: 640,
              height: 360,
              bitrate: 800,
            },
          ],
        })
      ).id;
      channelUid = (
        await createAs(app, cookie, 'channels', {
          name: 'Delivery CTV',
          vastVersion: '4.2',
          demandMode: 'auction',
          timeoutMs: 1000,
          demand: [],
        })
      ).uid;
    });
    afterAll(async () => {
      await app?.close();
    });

    /**
     * One ad request (debug=1 for the trace; it is a live decision), and its impression fired when ours won.
     * `browser`: no device id, but the browser's adplane id in its uids cookie (from an address of its own each time).
     */
    async function serve(
      campaignId: number,
      device: string,
      uid = channelUid,
      browser?: string,
    ): Promise<{ won: boolean; trace: DecisionTrace }> {
      const viewer = browser
        ? `ip=8.8.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`
        : `ip=8.8.8.8&device_id=${device}`;
      const uids = browser
        ? `; uids=${Buffer.from(JSON.stringify({ tempUIDs: { adplane: { uid: browser, expires: new Date(Date.now() + 86_400_000).toISOString() } } })).toString('base64url')}`
        : '';
      const res = await edgeRequest(app, {
        cookie: `${cookie}${uids}`,
        method: 'GET',
        url: `/vast/${uid}?w=640&h=360&${viewer}&debug=1`,
      });
      expect(res.statusCode, res.body).toBe(200);
      const { vast, trace } = res.json() as { vast: string; trace: DecisionTrace };
      const won = trace.winner?.source === 'campaign' && trace.winner.id === campaignId;
      if (won) {
        const impression = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(vast)![1]!;
        expect(
          (await edgeRequest(app, { method: 'GET', url: impression.slice(impression.indexOf('/ev')) })).statusCode,
        ).toBe(200);
      }
      return { won, trace };
    }

    /** Requests until ours has `wins` wins or is refused for `reason` (the Redis engine may first answer budget_lease while its lease comes). */
    async function serveUntil(
      campaignId: number,
      device: string,
      reason: string,
      browser?: string,
    ): Promise<{ wins: number; refusal: string }> {
      let wins = 0;
      for (let i = 0; i < 60; i++) {
        const { won, trace } = await serve(campaignId, device, channelUid, browser);
        if (won) {
          wins++;
          continue;
        }
        const fate = trace.sources.find((s) => s.source === 'campaign' && s.id === campaignId);
        if (fate?.reason === reason) return { wins, refusal: reason };
        await new Promise((r) => setTimeout(r, 20));
      }
      return { wins, refusal: '' };
    }

    it('stops filling a campaign after its daily budget of 3 impressions is spent', async () => {
      const campaign = await createAs(app, cookie, 'campaigns', {
        name: 'Three a day',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: BID,
        channelScope: 'all',
        dailyBudget: 3 * PER_IMP,
        pacing: 'asap',
        creativeIds: [creativeId],
      });
      await app.edge.snapshots.rebuild();
      expect(await serveUntil(campaign.id, 'device-budget', 'daily_budget')).toEqual({
        wins: 3,
        refusal: 'daily_budget',
      });
      // on Redis the impression is committed once Redis confirms it is not a replay (after /ev answered)
      await vi.waitFor(() => expect(app.edge.pacing.delivery.stats().committed).toBeGreaterThanOrEqual(3), {
        timeout: 5000,
      });
    });

    it('gives one device a campaign with a frequency cap of 2 twice, then not again; another device still gets it', async () => {
      const campaign = await createAs(app, cookie, 'campaigns', {
        name: 'Twice per viewer',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: BID,
        channelScope: 'all',
        pacing: 'asap',
        frequencyCap: { count: 2, periodHours: 24 },
        creativeIds: [creativeId],
      });
      await app.edge.snapshots.rebuild();
      expect(await serveUntil(campaign.id, 'device-a', 'frequency_cap')).toEqual({
        wins: 2,
        refusal: 'frequency_cap',
      });
      expect((await serve(campaign.id, 'device-a')).won).toBe(false);
      expect((await serveUntil(campaign.id, 'device-b', 'frequency_cap')).wins).toBe(2);
    });

    it("counts a browser without a device id by its adplane id (the uids cookie of Prebid Server's user sync), whatever its address", async () => {
      const campaign = await createAs(app, cookie, 'campaigns', {
        name: 'Twice per browser',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: BID,
        channelScope: 'all',
        pacing: 'asap',
        frequencyCap: { count: 2, periodHours: 24 },
        creativeIds: [creativeId],
      });
      await app.edge.snapshots.rebuild();
      expect(await serveUntil(campaign.id, '', 'frequency_cap', 'browser-a')).toEqual({
        wins: 2,
        refusal: 'frequency_cap',
      });
      expect((await serve(campaign.id, '', channelUid, 'browser-a')).won).toBe(false);
      expect((await serveUntil(campaign.id, '', 'frequency_cap', 'browser-b')).wins).toBe(2);
    });

    it('publishes the config version after a config write, for edge processes to rebuild at once', async () => {
      const heard: (number | null)[] = [];
      const unsubscribe = app.configBus.subscribe((version) => heard.push(version));
      try {
        await createAs(app, cookie, 'campaigns', {
          name: 'Heard of',
          startDate: day(-1),
          bidCpm: 1_000_000,
          channelScope: 'all',
          creativeIds: [creativeId],
        });
        const version = await readConfigVersion(t.store.db);
        for (let i = 0; i < 50 && !heard.includes(version); i++) await new Promise((r) => setTimeout(r, 20));
        expect(heard).toContain(version);
      } finally {
        unsubscribe();
      }
    });

    it('gives back what a decision reserved when the player hung up before the answer', async () => {
      const demand = await startDemandServer();
      try {
        const campaign = await createAs(app, cookie, 'campaigns', {
          name: 'Patient player',
          startDate: day(-1),
          endDate: day(30),
          bidCpm: BID,
          channelScope: 'all',
          dailyBudget: 3 * PER_IMP,
          pacing: 'asap',
          creativeIds: [creativeId],
        });
        // a demand tag that answers in 300 ms: the auction waits for it, our campaign still wins
        const slow = await createAs(app, cookie, 'tags', {
          name: 'Slow partner',
          vastUrl: `${demand.url}/inline?price=1&delay=300`,
          price: { type: 'cpm', cpm: 1_000_000 },
          timeoutMs: 1000,
        });
        const slowChannel = (
          await createAs(app, cookie, 'channels', {
            name: 'Slow CTV',
            vastVersion: '4.2',
            demandMode: 'auction',
            timeoutMs: 1000,
            demand: [{ tagId: slow.id, priority: 1 }],
          })
        ).uid;
        await app.edge.snapshots.rebuild();
        // one impression served and counted, so the budget is in use (and on Redis, leased) before the test
        const committed = app.edge.pacing.delivery.stats().committed;
        await vi.waitFor(async () => expect((await serve(campaign.id, 'device-hangup', slowChannel)).won).toBe(true), {
          timeout: 5000,
          interval: 20,
        });
        // (on Redis the impression commits once Redis confirms it is not a replay)
        await vi.waitFor(() => expect(app.edge.pacing.delivery.stats().committed).toBeGreaterThan(committed), {
          timeout: 5000,
        });
        const port = await edgePort(app);
        /** A request whose player hangs up after 50 ms; resolves once its decision is made (400 ms on). */
        const hangUp = async () => {
          const socket = connect({ port, host: '127.0.0.1' });
          await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
          socket.write(
            `GET /vast/${slowChannel}?w=640&h=360&ip=8.8.8.8&device_id=device-hangup HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
          );
          await new Promise((resolve) => setTimeout(resolve, 50));
          socket.destroy();
          await new Promise((resolve) => setTimeout(resolve, 400));
        };
        // on Redis a decision may be refused while the budget's lease renews: try until one is admitted
        let before = app.edge.pacing.delivery.stats();
        for (let i = 0; i < 10; i++) {
          before = app.edge.pacing.delivery.stats();
          await hangUp();
          if (app.edge.pacing.delivery.stats().admitted > before.admitted) break;
        }
        // the decision was made (our campaign admitted) after the player had gone...
        expect(app.edge.pacing.delivery.stats().admitted).toBe(before.admitted + 1);
        // ...and holds nothing: the reservation went back at once (it would hold for a minute)
        expect(app.edge.pacing.delivery.stats().held).toBe(before.held);
      } finally {
        await demand.close();
      }
    });

    it('shows the delivery engine in /healthz and /metrics', async () => {
      const health = (await app.inject({ method: 'GET', url: '/healthz' })).json() as {
        status: string;
        delivery: { engine: string; redis: string };
      };
      expect(health).toMatchObject({
        status: 'ok',
        delivery: { engine: engine.engine, redis: engine.engine === 'redis' ? 'ok' : 'unused' },
      });
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain(`adplane_delivery_redis_up{engine="${engine.engine}"} 1`);
      expect(metrics).toMatch(/adplane_delivery\{stat="committed"\} [1-9]/);
      expect(metrics).toMatch(/adplane_delivery_refused\{reason="frequency_cap"\} [1-9]/);
    });
  });
});
