import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DecisionTrace } from '@adplane/shared';
import { forEachStoreAndDeliveryEngine } from './deliveryEngines.js';
import { as, buildTestApp, createAs, login } from './helpers.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Audit probes of delivery control through the real app on both engines (docs/delivery.md): a
 * daily budget lowered mid-day stops the campaign at once, and an impression beacon replayed spends
 * once. Players ask /vast and fire the answer's impression at /ev.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const BID = 53_330_000; // $53.33 CPM: above the seeded campaigns
const PER_IMP = BID / 1000;

forEachStoreAndDeliveryEngine((engine, t) => {
  describe(`audit: delivery on the edge (${engine.engine})`, () => {
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
          name: 'Audit spot',
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
          name: 'Audit CTV',
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

    /** One ad request; the impression URL when ours won. */
    async function request(
      campaignId: number,
      device: string,
    ): Promise<{ impression: string | null; trace: DecisionTrace }> {
      const res = await edgeRequest(app, {
        cookie,
        method: 'GET',
        url: `/vast/${channelUid}?w=640&h=360&ip=8.8.8.8&device_id=${device}&debug=1`,
      });
      expect(res.statusCode, res.body).toBe(200);
      const { vast, trace } = res.json() as { vast: string; trace: DecisionTrace };
      if (!(trace.winner?.source === 'campaign' && trace.winner.id === campaignId)) return { impression: null, trace };
      const url = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(vast)![1]!;
      return { impression: url.slice(url.indexOf('/ev')), trace };
    }
    const fire = async (impression: string) =>
      expect((await edgeRequest(app, { method: 'GET', url: impression })).statusCode).toBe(200);
    const refusalOf = (trace: DecisionTrace, campaignId: number) =>
      trace.sources.find((s) => s.source === 'campaign' && s.id === campaignId)?.reason;

    /** Requests (each impression fired) until `wins` wins, the lease allowing. */
    async function win(campaignId: number, wins: number): Promise<void> {
      let won = 0;
      for (let i = 0; i < 80 && won < wins; i++) {
        const { impression } = await request(campaignId, `device-${i}`);
        if (impression) {
          await fire(impression);
          won++;
        } else await new Promise((r) => setTimeout(r, 20));
      }
      expect(won).toBe(wins);
    }

    it('a daily budget lowered mid-day to what is spent stops the campaign at the next request', async () => {
      const body = {
        name: 'Lowered',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: BID,
        channelScope: 'all',
        dailyBudget: 100 * PER_IMP,
        pacing: 'asap',
        creativeIds: [creativeId],
      };
      const campaign = await createAs(app, cookie, 'campaigns', body);
      await app.edge.snapshots.rebuild();
      await win(campaign.id, 6);
      await vi.waitFor(() => expect(app.edge.pacing.delivery.stats().committed).toBeGreaterThanOrEqual(6), {
        timeout: 5000,
      });
      const put = await as(app, cookie, {
        method: 'PUT',
        url: `/api/demand/campaigns/${campaign.id}`,
        payload: { ...body, dailyBudget: 6 * PER_IMP },
      });
      expect(put.statusCode, put.body).toBe(200);
      await app.edge.snapshots.rebuild();
      const fates: (string | undefined)[] = [];
      for (let i = 0; i < 4; i++) {
        const { impression, trace } = await request(campaign.id, `device-late-${i}`);
        if (impression) await fire(impression);
        fates.push(impression ? 'won' : refusalOf(trace, campaign.id));
      }
      expect(fates).toEqual(['daily_budget', 'daily_budget', 'daily_budget', 'daily_budget']);
    });

    it('an impression beacon replayed spends once', async () => {
      const campaign = await createAs(app, cookie, 'campaigns', {
        name: 'Replayed',
        startDate: day(-1),
        endDate: day(30),
        bidCpm: BID,
        channelScope: 'all',
        dailyBudget: 3 * PER_IMP,
        pacing: 'asap',
        creativeIds: [creativeId],
      });
      await app.edge.snapshots.rebuild();
      let first: string | null = null;
      for (let i = 0; i < 40 && !first; i++) {
        first = (await request(campaign.id, 'device-replay')).impression;
        if (!first) await new Promise((r) => setTimeout(r, 20));
      }
      expect(first).not.toBeNull();
      const committed = app.edge.pacing.delivery.stats().committed;
      for (let i = 0; i < 4; i++) await fire(first!);
      await vi.waitFor(() => expect(app.edge.pacing.delivery.stats().committed).toBe(committed + 1), {
        timeout: 5000,
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(app.edge.pacing.delivery.stats().committed).toBe(committed + 1);
      // two more fit the budget of three
      await win(campaign.id, 2);
    });
  });
});
