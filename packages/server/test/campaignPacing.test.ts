import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PacingAnswer } from '@adplane/shared';
import { type DecisionTrace } from '@adplane/shared';
import { createdAtMinute, paceWindow, targetSoFar, tenantDay } from '../src/delivery/pacing.js';
import { getEntities } from '../src/store/entities.js';
import { forEachStoreAndDeliveryEngine } from './deliveryEngines.js';
import { as, buildTestApp, createAs, login } from './helpers.js';
import { edgeRequest } from './edgeClient.js';

/**
 * GET /api/demand/campaigns/pacing through the real app on both delivery engines: the spend the edge
 * counted for impressions it served comes back as spent today (in the hour of the tenant's day it
 * happened), against the even target of that moment; an api-role process on the same Redis reads
 * the same numbers; bad ids are named; another tenant's campaign is not found.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const BID = 60_000_000; // $60 CPM: above the seeded campaigns, so ours wins while it may
const PER_IMP = BID / 1000;
const TENANT_TZ = -5; // the seeded demand tenant's offset

forEachStoreAndDeliveryEngine((engine, t) => {
  describe(`campaign pacing API (${engine.engine})`, () => {
    let app: FastifyInstance;
    let apiOnly: FastifyInstance | null = null;
    let cookie: string;
    let campaignId = 0;
    let idleId = 0;
    let wins = 0;
    /** When the first of its decisions was made: its spend is booked from that hour on. */
    let servedFrom = 0;

    beforeAll(async () => {
      const deployment = engine.deployment();
      app = await buildTestApp(t.store, { redisUrl: deployment.redisUrl }, { deliveryPrefix: deployment.prefix });
      if (deployment.redisUrl)
        apiOnly = await buildTestApp(
          t.store,
          { redisUrl: deployment.redisUrl },
          { deliveryPrefix: deployment.prefix, role: 'api' },
        );
      cookie = await login(app, 'demand');
      const creativeId = (
        await createAs(app, cookie, 'creatives', {
          name: 'Pacing spot',
          format: 'video',
          videoSource: 'media',
          approval: 'approved',
          clickUrl: 'https://brand.example.com/',
          mediaFiles: [
            {
              url: 'https://cdn.example.com/pace.mp4',
              mime: 'video/mp4',
              duration: 15,
              width: 640,
              height: 360,
              bitrate: 800,
            },
          ],
        })
      ).id;
      const channelUid = (
        await createAs(app, cookie, 'channels', {
          name: 'Pacing CTV',
          vastVersion: '4.2',
          demandMode: 'auction',
          timeoutMs: 1000,
          demand: [],
        })
      ).uid;
      campaignId = (
        await createAs(app, cookie, 'campaigns', {
          name: 'Paced evenly',
          startDate: day(-1),
          endDate: day(30),
          bidCpm: BID,
          channelScope: 'all',
          dailyBudget: 4 * PER_IMP,
          totalBudget: 40 * PER_IMP,
          pacing: 'asap',
          creativeIds: [creativeId],
        })
      ).id;
      idleId = (
        await createAs(app, cookie, 'campaigns', {
          name: 'Not started',
          startDate: day(3),
          bidCpm: 1_000_000,
          channelScope: 'all',
          dailyBudget: 100_000_000,
          pacing: 'even',
          creativeIds: [creativeId],
        })
      ).id;
      await app.edge.snapshots.rebuild();
      // serve until the daily budget of 4 impressions is spent (Redis may first refuse while its lease comes)
      servedFrom = Date.now();
      for (let i = 0; i < 80 && wins < 4; i++) {
        const res = await edgeRequest(app, {
          cookie,
          method: 'GET',
          url: `/vast/${channelUid}?w=640&h=360&ip=8.8.8.8&device_id=pace-${i}&debug=1`,
        });
        const { vast, trace } = res.json() as { vast: string; trace: DecisionTrace };
        if (trace.winner?.source === 'campaign' && trace.winner.id === campaignId) {
          const impression = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(vast)![1]!;
          expect(
            (await edgeRequest(app, { method: 'GET', url: impression.slice(impression.indexOf('/ev')) })).statusCode,
          ).toBe(200);
          wins++;
        } else {
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    });
    afterAll(async () => {
      await apiOnly?.close();
      await app?.close();
    });

    const pacing = async (server: FastifyInstance, query: string, who = cookie) =>
      as(server, who, { method: 'GET', url: `/api/demand/campaigns/pacing?${query}` });
    /** The answer once the campaign's spend reached `spent` (with Redis, an impression is counted once the replay check answers, after /ev). */
    async function pacingWhen(
      server: FastifyInstance,
      query: string,
      who: string,
      spent: number,
    ): Promise<PacingAnswer> {
      let answer: PacingAnswer | null = null;
      for (let i = 0; i < 100; i++) {
        const res = await pacing(server, query, who);
        expect(res.statusCode, res.body).toBe(200);
        answer = res.json() as PacingAnswer;
        if (answer.campaigns[0]!.spentToday >= spent) break;
        await app.edge.pacing.delivery.flush();
        await new Promise((r) => setTimeout(r, 20));
      }
      return answer!;
    }

    it('answers the spend the edge counted today, its hour, the target and the capped state', async () => {
      expect(wins).toBe(4);
      const answer = await pacingWhen(app, `ids=${campaignId},${idleId}`, cookie, 4 * PER_IMP);
      const [paced, idle] = answer.campaigns;
      const today = tenantDay(answer.at, TENANT_TZ);
      expect(paced).toMatchObject({
        campaignId,
        pacing: 'asap',
        day: today.date,
        timezone: TENANT_TZ,
        hour: today.hour,
        dailyBudget: 4 * PER_IMP,
        spentToday: 4 * PER_IMP,
        targetSoFar: 4 * PER_IMP,
        projected: 4 * PER_IMP,
        totalBudget: 40 * PER_IMP,
        totalSpent: 4 * PER_IMP,
        state: 'capped',
        reason: "Today's budget spent",
      });
      expect(paced!.hourly).toHaveLength(24);
      // in the hour it was served: the read's, or (when the serving and the read straddle an hour's end,
      // as they may on the real clock) from the first decision's hour to the read's
      const first = tenantDay(servedFrom, TENANT_TZ);
      const fromHour = first.index === today.index ? first.hour : 0;
      expect(fromHour).toBeLessThanOrEqual(today.hour);
      expect(
        paced!.hourly.slice(fromHour, today.hour + 1).reduce((a, b) => a + b, 0),
        `hourly ${paced!.hourly.join(', ')}`,
      ).toBe(4 * PER_IMP);
      expect(paced!.hourly.reduce((a, b) => a + b, 0)).toBe(4 * PER_IMP);
      expect(paced!.evenByHour![23]).toBe(4 * PER_IMP);

      // even pacing: the target is the budget's share of its pace window gone at the moment of the read
      // (the tenant's day, from the campaign's creation on the day it was created: today)
      expect(idle).toMatchObject({
        campaignId: idleId,
        pacing: 'even',
        spentToday: 0,
        state: 'not_delivering',
        reason: `Starts on ${day(3)}`,
        totalSpent: null,
      });
      const [idleRow] = await getEntities(app.store.db, 'campaigns', { tenantId: null }, [idleId]);
      const window = paceWindow(today, createdAtMinute(idleRow!.createdAt));
      expect(idle!.targetSoFar).toBe(targetSoFar(100_000_000, answer.at, window));
      expect(idle!.evenByHour![today.hour]).toBe(
        targetSoFar(100_000_000, today.start + (today.hour + 1) * 3_600_000, window),
      );
    });

    it("a campaign created today is on pace at its creation, not behind the whole day's line", async () => {
      const freshId = (
        await createAs(app, cookie, 'campaigns', {
          name: 'Created mid-day',
          startDate: day(-1),
          bidCpm: 1_000,
          channelScope: 'all',
          dailyBudget: 100_000_000,
          pacing: 'even',
          creativeIds: [],
        })
      ).id;
      const res = await pacing(app, `ids=${freshId}`);
      expect(res.statusCode, res.body).toBe(200);
      const answer = res.json() as PacingAnswer;
      const fresh = answer.campaigns[0]!;
      // read at once: at most two minutes' share of what is left of the day (its creation is taken to the minute), not behind
      const today = tenantDay(answer.at, TENANT_TZ);
      expect(fresh).toMatchObject({ campaignId: freshId, pacing: 'even', spentToday: 0 });
      expect(fresh.state).not.toBe('behind');
      expect(fresh.targetSoFar!).toBeLessThanOrEqual(
        Math.ceil((100_000_000 * 120_000) / Math.max(today.end - answer.at, 120_000)),
      );
      expect(fresh.allowedPerHour!).toBeGreaterThanOrEqual(
        Math.floor((100_000_000 * 3_600_000) / (today.end - today.start)),
      );
    });

    it('reads the same numbers from an api-role process on the same Redis', async () => {
      if (!apiOnly) return; // in-process counters live in the serving process only
      const answer = await pacingWhen(apiOnly, `ids=${campaignId}`, await login(apiOnly, 'demand'), 4 * PER_IMP);
      expect(answer.campaigns[0]).toMatchObject({
        spentToday: 4 * PER_IMP,
        totalSpent: 4 * PER_IMP,
        state: 'capped',
      });
    });

    it('names bad ids and keeps other tenants out', async () => {
      for (const query of [
        '',
        'ids=',
        'ids=abc',
        'ids=1,-2',
        `ids=${Array.from({ length: 201 }, (_, i) => i + 1).join(',')}`,
      ]) {
        const res = await pacing(app, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json()).toMatchObject({ field: 'ids' });
      }
      const acme = await login(app, 'acme');
      const other = await pacing(app, `ids=${campaignId}`, acme);
      expect(other.statusCode).toBeGreaterThanOrEqual(403);
      expect(other.statusCode).toBeLessThan(405);
      expect((await pacing(app, `ids=${campaignId}`, null as unknown as string)).statusCode).toBe(403);
      // an adv user sees only its own campaigns: ours has no advertiser
      const adv = await pacing(app, `ids=${campaignId}`, await login(app, 'adv'));
      expect(adv.statusCode).toBe(404);
      expect(adv.json()).toMatchObject({ field: 'ids' });
    });

    // last: it restarts the app
    it('a restart carries on from the stats store: the day spent stays spent, the total spend too (in-process counters, or a Redis that lost its data)', async () => {
      expect(wins).toBe(4);
      await apiOnly?.close();
      apiOnly = null;
      // closing flushes the counters into the stats store; the new process opens a fresh deployment (nothing
      // counted in Redis; in-process, the counters saved under DATA_DIR at the close come back too: both agree)
      await app.close();
      const fresh = engine.deployment();
      app = await buildTestApp(t.store, { redisUrl: fresh.redisUrl }, { deliveryPrefix: fresh.prefix });
      cookie = await login(app, 'demand');
      const answer = await pacingWhen(app, `ids=${campaignId}`, cookie, 4 * PER_IMP);
      expect(answer.campaigns[0]).toMatchObject({
        spentToday: 4 * PER_IMP,
        totalSpent: 4 * PER_IMP,
        state: 'capped',
      });
      // and the campaign does not win again today
      const channelUid = (
        await createAs(app, cookie, 'channels', {
          name: 'Pacing after restart',
          vastVersion: '4.2',
          demandMode: 'auction',
          timeoutMs: 1000,
          demand: [],
        })
      ).uid;
      await app.edge.snapshots.rebuild();
      for (let i = 0; i < 10; i++) {
        const res = await edgeRequest(app, {
          cookie,
          method: 'GET',
          url: `/vast/${channelUid}?w=640&h=360&ip=8.8.8.8&device_id=again-${i}&debug=1`,
        });
        const { trace } = res.json() as { trace: DecisionTrace };
        expect(trace.winner?.source === 'campaign' && trace.winner.id === campaignId, `decision ${i}`).toBe(false);
      }
    });
  });
});
