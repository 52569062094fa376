import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES, type ResourceKind } from '@adplane/shared';
import { buildTestApp, forEachStore, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/**
 * What a form sends as typed reaches the server whole: a negative amount or count, a bid of $0.00
 * and a name past 255 characters are refused with a 400 naming the field, and nothing is written
 * (no row, no change to the row); a URL or domain pasted with spaces or a line break around it is
 * kept trimmed.
 */
forEachStore((t) => {
  let app: FastifyInstance;
  let demand = '';
  let admin = '';
  let sdk = '';
  const call = (cookie: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    app.inject({ method, url, payload: payload as object, headers: { cookie } });
  const cookieOf = (kind: ResourceKind) => (kind === 'demands' ? admin : kind === 'sdkapps' ? sdk : demand);
  const total = async (kind: ResourceKind) =>
    (await call(cookieOf(kind), 'GET', `${RESOURCES[kind].api}?status=all&pageSize=10`)).json().total as number;

  beforeAll(async () => {
    app = await buildTestApp(t.store);
    demand = await login(app, 'demand');
    admin = await login(app, 'admin');
    sdk = await login(app, 'sdk');
  });
  afterAll(() => app.close());

  /** Every money and count field of every kind, with a value below what it means. */
  const refused: [ResourceKind, Record<string, unknown>, string, string][] = [
    ['campaigns', { bidCpm: -2_500_000 }, 'bidCpm', 'must be greater than 0'],
    ['campaigns', { bidCpm: 0 }, 'bidCpm', 'must be greater than 0'],
    ['campaigns', { totalBudget: -5_000_000 }, 'totalBudget', 'must not be negative'],
    ['campaigns', { dailyBudget: -1 }, 'dailyBudget', 'must not be negative'],
    ['campaigns', { frequencyCap: { count: 0, periodHours: 24 } }, 'frequencyCap.count', 'must be at least 1'],
    [
      'campaigns',
      { frequencyCap: { count: 3, periodHours: -24 } },
      'frequencyCap.periodHours',
      'must be between 1 and 720 hours',
    ],
    ['channels', { floorCpm: -1_000_000 }, 'floorCpm', 'must not be negative'],
    ['channels', { payout: { type: 'cpm', cpm: -1 } }, 'payout.cpm', 'must not be negative'],
    ['channels', { payout: { type: 'revshare', percent: -5 } }, 'payout.percent', 'must be between 0 and 100'],
    ['channels', { timeoutMs: -1 }, 'timeoutMs', 'must be at least 50 ms'],
    ['tags', { floorCpm: -1 }, 'floorCpm', 'must not be negative'],
    ['tags', { price: { type: 'cpm', cpm: -6_500_000 } }, 'price.cpm', 'must not be negative'],
    ['tags', { qpsLimit: -10 }, 'qpsLimit', 'must not be negative'],
    ['tags', { dailyRequestCap: -1 }, 'dailyRequestCap', 'must not be negative'],
    ['tags', { dailyImpCap: -1 }, 'dailyImpCap', 'must not be negative'],
    ['tags', { priority: -1 }, 'priority', 'must be between 1 and 100'],
    ['deals', { floorCpm: -15_000_000 }, 'floorCpm', 'must not be negative'],
    ['sups', { qpsLimit: -500 }, 'qpsLimit', 'must not be negative'],
    ['sups', { marginPercent: -25 }, 'marginPercent', 'must be between 0 and 100'],
    ['adexchanges', { qpsLimit: -1 }, 'qpsLimit', 'must not be negative'],
    ['adexchanges', { marginPercent: -15 }, 'marginPercent', 'must be between 0 and 100'],
    ['ivts', { samplePercent: -10 }, 'samplePercent', 'must be between 0 and 100'],
    ['demands', { priceReq: -10_000 }, 'priceReq', 'must not be negative'],
    ['demands', { priceImp: -1 }, 'priceImp', 'must not be negative'],
    ['demands', { pricePostbid: -1 }, 'pricePostbid', 'must not be negative'],
    ['demands', { priceDsp: -1 }, 'priceDsp', 'must be between 0 and 100'],
  ];

  describe('amounts and counts below what they mean', () => {
    it.each(refused)('refuses %s %j: 400 naming %s, nothing written', async (kind, values, field, message) => {
      const before = await total(kind);
      const res = await call(cookieOf(kind), 'POST', RESOURCES[kind].api, { ...sampleBody(kind, 70), ...values });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toContainEqual({ field, message });
      expect(await total(kind)).toBe(before);
    });

    it("refuses a negative budget on an update, and leaves the campaign's budget as it was", async () => {
      const created = await call(demand, 'POST', RESOURCES.campaigns.api, sampleBody('campaigns', 71));
      expect(created.statusCode, created.body).toBe(201);
      const url = `${RESOURCES.campaigns.api}/${created.json().id}`;
      const res = await call(demand, 'PUT', url, { ...sampleBody('campaigns', 71), totalBudget: -50_000_000_000 });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().field).toBe('totalBudget');
      expect((await call(demand, 'GET', url)).json().totalBudget).toBe(50_000_000_000);
    });

    it('keeps 0 where it means something: a floor of 0, a budget that never spends, a cap that never serves', async () => {
      const campaign = await call(demand, 'POST', RESOURCES.campaigns.api, {
        ...sampleBody('campaigns', 72),
        totalBudget: 0,
        dailyBudget: 0,
      });
      expect(campaign.statusCode, campaign.body).toBe(201);
      const tag = await call(demand, 'POST', RESOURCES.tags.api, {
        ...sampleBody('tags', 72),
        floorCpm: 0,
        dailyImpCap: 0,
      });
      expect(tag.statusCode, tag.body).toBe(201);
      expect(tag.json()).toMatchObject({ floorCpm: 0, dailyImpCap: 0 });
    });
  });

  describe('names', () => {
    it('refuses a 10,000-character name with the limit instead of cutting it, and writes nothing', async () => {
      const name = 'N'.repeat(10_000);
      for (const kind of ['campaigns', 'channels', 'tags', 'demands'] as const) {
        const before = await total(kind);
        const res = await call(cookieOf(kind), 'POST', RESOURCES[kind].api, { ...sampleBody(kind, 73), name });
        expect(res.statusCode, `${kind}: ${res.body}`).toBe(400);
        expect(res.json().errors, kind).toContainEqual({ field: 'name', message: 'must be at most 255 characters' });
        expect(await total(kind), kind).toBe(before);
      }
      const created = await call(demand, 'POST', RESOURCES.channels.api, sampleBody('channels', 74));
      const url = `${RESOURCES.channels.api}/${created.json().id}`;
      const res = await call(demand, 'PUT', url, { ...sampleBody('channels', 74), name });
      expect(res.statusCode).toBe(400);
      expect(res.json().field).toBe('name');
      expect((await call(demand, 'GET', url)).json().name).toBe('Roku CTV 74');
      // 255 is the limit, not 254
      const longest = await call(demand, 'PUT', url, { ...sampleBody('channels', 74), name: 'L'.repeat(255) });
      expect(longest.statusCode, longest.body).toBe(200);
      expect(longest.json().name).toHaveLength(255);
    });
  });

  describe('URLs and domains pasted with spaces around them', () => {
    const pasted = (url: string) => `  ${url} \n`;
    it.each([
      ['tags', 'vastUrl', 'https://ads.example.com/vast?cb={{cachebuster}}'],
      ['adexchanges', 'endpoint', 'https://rtb.example.com/openrtb2'],
      ['creatives', 'clickUrl', 'https://brand.example.com/landing'],
      ['ivts', 'urlTemplate', 'https://pix.example.com/p?ip={{ip}}'],
      ['sups', 'userSyncUrl', 'https://sync.example.com/match?id=${UID}'],
      ['sdkapps', 'storeUrl', 'https://play.example.com/store/apps/details?id=com.example'],
      ['channels', 'domain', 'roku.example.com'],
    ] as const)('saves %s %s trimmed', async (kind, field, url) => {
      const res = await call(cookieOf(kind), 'POST', RESOURCES[kind].api, {
        ...sampleBody(kind, 75),
        [field]: pasted(url),
      });
      expect(res.statusCode, res.body).toBe(201);
      const read = (await call(cookieOf(kind), 'GET', `${RESOURCES[kind].api}/${res.json().id}`)).json();
      expect(read[field]).toBe(url);
    });

    it("trims a media file's URL, and still refuses one with a space inside, naming it", async () => {
      const body = sampleBody('creatives', 76);
      const [file] = body.mediaFiles as Record<string, unknown>[];
      const ok = await call(demand, 'POST', RESOURCES.creatives.api, {
        ...body,
        mediaFiles: [{ ...file, url: pasted('https://cdn.example.com/spot.mp4') }],
      });
      expect(ok.statusCode, ok.body).toBe(201);
      expect(ok.json().mediaFiles[0].url).toBe('https://cdn.example.com/spot.mp4');
      const bad = await call(demand, 'POST', RESOURCES.creatives.api, {
        ...body,
        mediaFiles: [{ ...file, url: 'https://cdn.example.com/my spot.mp4' }],
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().field).toBe('mediaFiles.0.url');
    });
  });
});
