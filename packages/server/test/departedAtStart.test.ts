import { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../src/clock.js';
import { HourlyCounters } from '../src/edge/counters/hourlyCounters.js';
import { DeliveryGate } from '../src/edge/auction/deliveryGate.js';
import { type EdgeResponse } from '../src/http/edgeHttp.js';
import { DEPARTED_MS } from '../src/edge/snapshot/departed.js';
import { SnapshotHolder } from '../src/edge/snapshot/snapshotHolder.js';
import { type SnapCampaign } from '../src/edge/snapshot/types.js';
import { ReplayGuard } from '../src/edge/tracking/replayGuard.js';
import { handleEvent } from '../src/edge/doors/trackingEvents.js';
import { type Decision, newDecisionId, TokenSigner } from '../src/edge/tracking/trackingToken.js';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

/**
 * A process started after a campaign or demand tag left the live set (paused, archived, its flight
 * over) still knows it for a day (edge/snapshot/departed.ts): its first build reads from the store
 * what left lately, so an impression another process decided before the pause books its spend here.
 */
const silent = { info() {}, error() {} };
const signer = new TokenSigner('k'.repeat(32));

forEachStore((t) => {
  describe('what left before a process started', () => {
    let app: FastifyInstance;
    let demand: string;
    let live: SnapCampaign[];
    beforeAll(async () => {
      app = await buildTestApp(t.store);
      demand = await login(app, 'demand');
      live = [...app.edge.snapshots.current!.campaigns.values()];
    });
    afterAll(() => app.close());

    const startProcess = async () => {
      const holder = new SnapshotHolder(t.store.db, silent, 60_000);
      await holder.rebuild();
      return holder.current!;
    };
    const bulk = async (action: 'pause' | 'archive', ids: number[]) =>
      expect(
        (await as(app, demand, { method: 'POST', url: '/api/demand/campaigns/bulk', payload: { action, ids } }))
          .statusCode,
      ).toBeLessThan(300);

    it('is known to its first build: paused and archived lately, as they were; long ago, or live, not', async () => {
      const [paused, archived, longAgo] = live;
      expect(longAgo, 'the demo workspace has three live campaigns').toBeDefined();
      await bulk('pause', [paused!.id]);
      await bulk('archive', [archived!.id]);
      await bulk('pause', [longAgo!.id]);
      const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3_600_000).toISOString();
      await sql`update campaigns set updated_at = ${twoDaysAgo} where id = ${longAgo!.id}`.execute(t.store.db);

      const snapshot = await startProcess();
      const departed = snapshot.departed!.campaigns;
      expect(departed.get(paused!.id)).toMatchObject({
        id: paused!.id,
        dailyBudget: paused!.dailyBudget,
        totalBudget: paused!.totalBudget,
        pacing: paused!.pacing,
      });
      expect(departed.has(archived!.id)).toBe(true);
      expect(departed.has(longAgo!.id)).toBe(false);
      for (const c of snapshot.campaigns.values()) expect(departed.has(c.id)).toBe(false);
      // the first build's reading of the store is handed over, not kept on the snapshot
      expect(snapshot.leftBeforeStart).toBeUndefined();
    });

    it("books an impression decided before the pause on the new process: the campaign's spend counts it", async () => {
      const [paused] = live;
      const snapshot = await startProcess();
      expect(snapshot.campaigns.has(paused!.id)).toBe(false);
      const now = Date.now();
      const d: Decision = {
        id: newDecisionId(),
        at: Math.floor(now / 1000) - 60,
        tenantId: paused!.tenantId,
        channelId: 2,
        subpublisherId: 0,
        tagId: 0,
        campaignId: paused!.id,
        creativeId: 0,
        advertiserId: paused!.advertiserId,
        country: 'US',
        device: 'desktop',
        os: 'windows',
        appBundle: '',
        domain: 'news.example',
        revenueCpm: 4_000_000,
        costCpm: 3_000_000,
        test: 0,
        integration: 'VAST',
        supplierId: 0,
        adexchangeId: 0,
        dealId: '',
        partner: '',
        marketplace: '',
        viewer: '',
        postbid: 0,
        arm: '',
      };
      const pacing = new DeliveryGate();
      const deps = {
        clock: new TestClock(now),
        signer,
        replay: new ReplayGuard(),
        pacing,
        counters: new HourlyCounters(() => null),
        snapshot: () => snapshot,
      };
      const res: EdgeResponse = { statusCode: 200, headersSent: false, destroyed: false, writeHead() {}, end() {} };
      handleEvent(deps, new URLSearchParams({ e: 'impression', t: signer.sign(d) }), res, now);
      expect(pacing.delivery.pacingState(paused!, now).spentToday).toBe(4_000);
    });

    it("knows a campaign whose flight ended within the day, from its flight's end", async () => {
      // the one paused two days ago, live again and stamped as long ago, its flight over since
      const [, , ended] = live;
      const row = await sql<{ data: string }>`select data from campaigns where id = ${ended!.id}`.execute(t.store.db);
      // ended at the start of today in the tenant's zone (a flight ends at 24:00 of its end day)
      const today = new Date(Date.now() + ended!.timezone * 3_600_000).toISOString().slice(0, 10);
      const yesterday = new Date(Date.parse(today) - 24 * 3_600_000).toISOString().slice(0, 10);
      const data = {
        ...(JSON.parse(String(row.rows[0]!.data)) as Record<string, unknown>),
        startDate: '2020-01-01',
        endDate: yesterday,
      };
      await sql`update campaigns set data = ${JSON.stringify(data)}, status = 1 where id = ${ended!.id}`.execute(
        t.store.db,
      );
      const snapshot = await startProcess();
      expect(snapshot.campaigns.has(ended!.id)).toBe(false);
      const endedAt = Date.parse(today) - ended!.timezone * 3_600_000;
      expect(Date.now() - endedAt).toBeLessThan(DEPARTED_MS);
      expect(snapshot.departed!.campaigns.get(ended!.id)?.flightEndHour).toBe(endedAt / 3_600_000);
    });

    it('knows the campaigns of an advertiser, and the campaigns and demand tags of a tenant, paused lately; not of one paused long ago', async () => {
      // the campaign paused in the first case, serving again under its advertiser
      const [campaign] = live;
      await sql`update campaigns set status = 1, archived = 0 where id = ${campaign!.id}`.execute(t.store.db);
      const stamp = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
      const setAccount = (id: number, status: number, msAgo: number) =>
        sql`update users set status = ${status}, updated_at = ${stamp(msAgo)} where id = ${id}`.execute(t.store.db);
      expect((await startProcess()).campaigns.has(campaign!.id)).toBe(true);

      // its advertiser paused an hour ago: known as departed from then
      await setAccount(campaign!.advertiserId!, 0, 3_600_000);
      let snapshot = await startProcess();
      expect(snapshot.campaigns.has(campaign!.id)).toBe(false);
      expect(snapshot.departed!.campaigns.get(campaign!.id)).toMatchObject({
        id: campaign!.id,
        dailyBudget: campaign!.dailyBudget,
      });
      // ... but paused two days ago, it has not served for longer than a process keeps what left
      await setAccount(campaign!.advertiserId!, 0, 2 * DEPARTED_MS);
      expect((await startProcess()).departed!.campaigns.has(campaign!.id)).toBe(false);
      await setAccount(campaign!.advertiserId!, 1, 0);

      // the tenant paused a minute ago: its campaign and its live demand tags
      const liveTags = await sql<{
        id: number;
      }>`select id from demand_tags where tenant_id = ${campaign!.tenantId} and status = 1 and archived = 0`.execute(
        t.store.db,
      );
      expect(liveTags.rows.length, 'the demo tenant has live demand tags').toBeGreaterThan(0);
      await setAccount(campaign!.tenantId, 0, 60_000);
      snapshot = await startProcess();
      expect(snapshot.departed!.campaigns.has(campaign!.id)).toBe(true);
      for (const tag of liveTags.rows) expect(snapshot.departed!.tags.has(Number(tag.id)), `tag ${tag.id}`).toBe(true);
      await setAccount(campaign!.tenantId, 1, 0);
      snapshot = await startProcess();
      expect(snapshot.campaigns.has(campaign!.id)).toBe(true);
      expect(snapshot.departed!.campaigns.has(campaign!.id)).toBe(false);
    });

    it('knows a campaign whose last creative stopped lately (paused: a creative a campaign names cannot be archived), from the creative; not long ago', async () => {
      const [campaign] = live;
      const serving = (await startProcess()).campaigns.get(campaign!.id);
      expect(serving, 'the campaign serves again after the case before').toBeDefined();
      const creativeIds = serving!.creatives.map((c) => c.id);
      expect(creativeIds.length).toBeGreaterThan(0);
      const paused = await as(app, demand, {
        method: 'POST',
        url: '/api/demand/creatives/bulk',
        payload: { action: 'pause', ids: creativeIds },
      });
      expect(paused.statusCode, paused.body).toBeLessThan(300);
      // the campaign itself unchanged for two days: only its creatives say when it stopped
      const twoDaysAgo = new Date(Date.now() - 2 * DEPARTED_MS).toISOString();
      await sql`update campaigns set updated_at = ${twoDaysAgo} where id = ${campaign!.id}`.execute(t.store.db);

      let snapshot = await startProcess();
      expect(snapshot.campaigns.has(campaign!.id)).toBe(false);
      expect(snapshot.departed!.campaigns.get(campaign!.id)).toMatchObject({
        id: campaign!.id,
        dailyBudget: campaign!.dailyBudget,
        totalBudget: campaign!.totalBudget,
      });

      // paused two days ago: it has not served for longer than a process keeps what left
      for (const id of creativeIds)
        await sql`update creatives set updated_at = ${twoDaysAgo} where id = ${id}`.execute(t.store.db);
      snapshot = await startProcess();
      expect(snapshot.departed!.campaigns.has(campaign!.id)).toBe(false);
    });
  });
});
