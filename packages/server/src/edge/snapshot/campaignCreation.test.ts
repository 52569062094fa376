import { type FastifyInstance } from 'fastify';
import { parseCampaignRow, parseCreativeRow } from '@adplane/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, buildTestApp, createAs, forEachStore, login } from '../../../test/helpers.js';
import { createdAtMinute, MINUTE_MS } from '../../delivery/pacing.js';
import { getEntities } from '../../store/entities.js';
import { type Owners } from './accounts.js';
import { type CampaignFacts, campaignFacts, compileCampaigns } from './campaigns.js';
import { compileCreatives } from './creatives.js';
import { Kept } from './kept.js';
import { type SnapCampaign } from './types.js';
import { storedRow } from '../../../test/storedRows.js';

/**
 * A compiled campaign carries when it was created (its row's created_at column, in whole minutes since
 * the epoch: a small integer), which even pacing spreads its first day from (delivery/pacing.ts
 * paceWindow): from the stored row through the parsed rows (parsedRows.ts) to the snapshot's campaign.
 */
const creative = parseCreativeRow(
  storedRow(10, {
    approval: 'approved',
    format: 'video',
    videoSource: 'media',
    clickUrl: 'https://brand.example.com/',
    mediaFiles: [
      {
        url: 'https://cdn.example.com/a.mp4',
        mime: 'video/mp4',
        duration: 15,
        width: 1280,
        height: 720,
        bitrate: 2000,
      },
    ],
  }),
)!;
const owners: Owners = {
  tenants: new Map([[1, { id: 1, name: 'Tenant', timezone: -5, showDsp: true }]]),
  subpublishers: new Map(),
  advertisers: new Map(),
  sellerIds: new Map(),
};
const NOW = Date.UTC(2026, 5, 1, 12);

describe("a compiled campaign's creation", () => {
  it("is its row's created_at to the minute, kept with the object; absent without one", () => {
    const row = parseCampaignRow(
      storedRow(40, {
        startDate: '2026-06-01',
        bidCpm: 5_000_000,
        channelScope: 'all',
        creativeIds: [10],
        pacing: 'even',
        dailyBudget: 24_000_000,
      }),
    )!;
    const facts = campaignFacts(row, '2026-06-01T16:00:42.123Z');
    expect(facts.createdAtMinute).toBe(Date.UTC(2026, 5, 1, 16) / MINUTE_MS);
    const kept = new Kept<CampaignFacts, SnapCampaign>();
    const creatives = compileCreatives([creative], owners);
    const compiled = compileCampaigns([facts], owners, creatives, new Map(), NOW, kept).get(40)!;
    expect(compiled.createdAtMinute).toBe(facts.createdAtMinute);
    // a small integer, as the flight hours
    expect(compiled.createdAtMinute! < 2 ** 30).toBe(true);
    expect(compileCampaigns([facts], owners, creatives, new Map(), NOW, kept).get(40)).toBe(compiled);
    expect(
      compileCampaigns([campaignFacts(row)], owners, creatives, new Map(), NOW).get(40)!.createdAtMinute,
    ).toBeUndefined();
  });
});

forEachStore((t) => {
  describe("the snapshot's campaigns", () => {
    let app: FastifyInstance;
    beforeAll(async () => {
      app = await buildTestApp(t.store);
    });
    afterAll(() => app.close());

    it("carry the stored row's created_at, as the pacing API reads it", async () => {
      const cookie = await login(app, 'demand');
      const creativeId = (
        await createAs(app, cookie, 'creatives', {
          name: 'Created probe spot',
          format: 'video',
          videoSource: 'media',
          approval: 'approved',
          clickUrl: 'https://brand.example.com/',
          mediaFiles: [
            {
              url: 'https://cdn.example.com/created.mp4',
              mime: 'video/mp4',
              duration: 15,
              width: 640,
              height: 360,
              bitrate: 800,
            },
          ],
        })
      ).id;
      const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const id = (
        await createAs(app, cookie, 'campaigns', {
          name: 'Created probe',
          startDate: day,
          bidCpm: 1_000,
          channelScope: 'all',
          dailyBudget: 10_000_000,
          pacing: 'even',
          creativeIds: [creativeId],
        })
      ).id;
      await app.edge.snapshots.rebuild();
      const [row] = await getEntities(app.store.db, 'campaigns', { tenantId: null }, [id]);
      const compiled = app.edge.snapshots.current!.campaigns.get(id);
      expect(compiled?.createdAtMinute).toBe(createdAtMinute(row!.createdAt));
      expect(Math.abs(compiled!.createdAtMinute! * MINUTE_MS - Date.now())).toBeLessThan(5 * MINUTE_MS);
      // the row changed (a new bid): parsed again, with the same creation
      const res = await as(app, cookie, { method: 'GET', url: `/api/demand/campaigns/${id}` });
      const updated = await as(app, cookie, {
        method: 'PUT',
        url: `/api/demand/campaigns/${id}`,
        payload: { ...(res.json() as Record<string, unknown>), bidCpm: 2_000 },
      });
      expect(updated.statusCode, updated.body).toBe(200);
      await app.edge.snapshots.rebuild();
      expect(app.edge.snapshots.current!.campaigns.get(id)).toMatchObject({
        bidCpm: 2_000,
        createdAtMinute: compiled!.createdAtMinute,
      });
    });
  });
});
