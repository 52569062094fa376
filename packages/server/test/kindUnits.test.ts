import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '@adplane/shared';
import { buildTestApp, forEachStore, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/**
 * Through the real API: every reference list of targeting refuses an unknown code with a 400 naming
 * the field; a CPM and a share cannot be confused; 'unlimited' round-trips and 0 stays a real zero.
 */
forEachStore((t) => {
  let app: FastifyInstance;
  let cookie = '';
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    app.inject({ method, url, payload: payload as object, headers: { cookie } });

  beforeAll(async () => {
    app = await buildTestApp(t.store);
    cookie = await login(app, 'demand');
  });
  afterAll(() => app.close());

  describe('targeting reference lists', () => {
    const unknown: [string, string][] = [
      ['os', 'Windoze'],
      ['devices', 'SmartTV'],
      ['browsers', 'netscape'],
      ['tvFamilies', 'betamax'],
      ['countries', 'XX'],
      ['regions', 'MARS'],
      ['usStates', 'ZZ'],
      ['iabCategories', 'IAB99'],
    ];
    it.each(unknown)('refuses an unknown %s code (%s), naming the field, and writes nothing', async (field, code) => {
      const before = (await call('GET', `${RESOURCES.targetings.api}?pageSize=100`)).json().total as number;
      const res = await call('POST', RESOURCES.targetings.api, {
        name: `bad ${field}`,
        rules: { [field]: { mode: 'include', values: [code] } },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().field).toBe(`rules.${field}`);
      expect(res.json().message).toContain(code);
      expect((await call('GET', `${RESOURCES.targetings.api}?pageSize=100`)).json().total).toBe(before);
    });

    it('takes known codes of every list', async () => {
      const rules = {
        os: { values: ['roku', 'tvos'] },
        devices: { values: ['smarttv'] },
        browsers: { values: ['chrome'] },
        tvFamilies: { values: ['roku', 'firetv'] },
        countries: { values: ['US'] },
        regions: { mode: 'exclude', values: ['EMEA'] },
        usStates: { values: ['CA'] },
        iabCategories: { mode: 'exclude', values: ['IAB25'] },
      };
      const res = await call('POST', RESOURCES.targetings.api, { name: 'all lists', rules });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().rules.os).toEqual({ mode: 'include', values: ['roku', 'tvos'] });
    });
  });

  describe('prices and caps', () => {
    it('keeps a CPM a CPM and a share a share', async () => {
      const cpm = await call('POST', RESOURCES.tags.api, {
        ...sampleBody('tags', 40),
        price: { type: 'cpm', cpm: 6_500_000 },
      });
      expect(cpm.statusCode, cpm.body).toBe(201);
      expect(cpm.json().price).toEqual({ type: 'cpm', cpm: 6_500_000 });
      const share = await call('PUT', `${RESOURCES.tags.api}/${cpm.json().id}`, {
        ...sampleBody('tags', 40),
        price: { type: 'revshare', percent: 85 },
      });
      expect(share.statusCode, share.body).toBe(200);
      expect(share.json().price).toEqual({ type: 'revshare', percent: 85 });

      // A number alone, a CPM written as a share or a share above 100 are refused, naming the field.
      for (const [price, field] of [
        [6_500_000, 'price'],
        [{ type: 'revshare', cpm: 6_500_000 }, 'price.percent'],
        [{ type: 'revshare', percent: 6_500_000 }, 'price.percent'],
        [{ type: 'cpm', percent: 80 }, 'price.cpm'],
      ] as const) {
        const res = await call('POST', RESOURCES.tags.api, { ...sampleBody('tags', 41), price });
        expect(res.statusCode, `${JSON.stringify(price)}: ${res.body}`).toBe(400);
        expect(res.json().field).toBe(field);
      }
      const payout = await call('POST', RESOURCES.channels.api, {
        ...sampleBody('channels', 42),
        payout: { type: 'cpm', value: 70 },
      });
      expect(payout.statusCode).toBe(400);
      expect(payout.json().field).toBe('payout.cpm');
    });

    it("round-trips 'unlimited' and keeps 0 as a real zero", async () => {
      const tag = await call('POST', RESOURCES.tags.api, {
        ...sampleBody('tags', 43),
        qpsLimit: 'unlimited',
        dailyRequestCap: 0,
      });
      expect(tag.statusCode, tag.body).toBe(201);
      const read = (await call('GET', `${RESOURCES.tags.api}/${tag.json().id}`)).json();
      expect(read).toMatchObject({ qpsLimit: 'unlimited', dailyRequestCap: 0, dailyImpCap: 'unlimited' });

      const campaign = await call('POST', RESOURCES.campaigns.api, {
        ...sampleBody('campaigns', 44),
        totalBudget: 'unlimited',
        dailyBudget: 2_000_000_000,
      });
      expect(campaign.statusCode, campaign.body).toBe(201);
      expect(campaign.json()).toMatchObject({ totalBudget: 'unlimited', dailyBudget: 2_000_000_000 });
      // 'unlimited' sorts above every number, on SQLite and PostgreSQL alike.
      const names = [`Sorted unlimited ${t.dialect}`, `Sorted 10 ${t.dialect}`, `Sorted 0 ${t.dialect}`];
      for (const [name, qpsLimit] of [
        [names[0], 'unlimited'],
        [names[1], 10],
        [names[2], 0],
      ] as const) {
        expect((await call('POST', RESOURCES.sups.api, { ...sampleBody('sups', 46), name, qpsLimit })).statusCode).toBe(
          201,
        );
      }
      for (const order of ['asc', 'desc'] as const) {
        const page = (
          await call('GET', `${RESOURCES.sups.api}?sort=qpsLimit&order=${order}&pageSize=100&search=Sorted`)
        ).json();
        const got = (page.items as { name: string }[]).map((r) => r.name);
        expect(got, order).toEqual(order === 'asc' ? [names[2], names[1], names[0]] : [names[0], names[1], names[2]]);
      }
      const bad = await call('POST', RESOURCES.sups.api, { ...sampleBody('sups', 45), qpsLimit: 'none' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().field).toBe('qpsLimit');
    });
  });
});
