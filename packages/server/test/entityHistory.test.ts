import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ActivityEntry } from '@adplane/shared';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/** GET {api}/:id/history: a row's own changes, in every edition, to whoever may read the row. */
forEachStore((t) => {
  let app: FastifyInstance;
  let demand = '';
  let tag = 0;
  beforeAll(async () => {
    // the default edition: no User Activity page
    app = await buildTestApp(t.store, { edition: 'default' });
    demand = await login(app, 'demand');
    tag = (await createAs(app, demand, 'tags', sampleBody('tags', 801))).id;
    const renamed = await as(app, demand, {
      method: 'PUT',
      url: `/api/demand/tags/${tag}`,
      payload: { ...sampleBody('tags', 801), name: 'SpotX renamed' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
  });
  afterAll(async () => {
    await app.close();
  });

  const history = (cookie: string, url = `/api/demand/tags/${tag}/history`) => as(app, cookie, { method: 'GET', url });

  it("answers the row's own changes, newest first, with who made them, where the log page is closed", async () => {
    expect((await as(app, demand, { method: 'GET', url: '/api/activity' })).statusCode).toBe(403);
    const res = await history(demand);
    expect(res.statusCode, res.body).toBe(200);
    const entries = res.json<ActivityEntry[]>();
    expect(entries.map((e) => e.action)).toEqual(['update', 'create']);
    expect(entries.every((e) => e.kind === 'tags' && e.entityId === tag)).toBe(true);
    expect(entries[0]).toMatchObject({ userName: 'Northwind Media', after: { name: 'SpotX renamed' } });
    expect(entries[0].before).toMatchObject({ name: 'SpotX VAST 801' });
  });

  it('pages with beforeId and limit', async () => {
    const all = (await history(demand)).json<ActivityEntry[]>();
    const first = await history(demand, `/api/demand/tags/${tag}/history?limit=1`);
    expect(first.json<ActivityEntry[]>().map((e) => e.id)).toEqual([all[0].id]);
    const next = await history(demand, `/api/demand/tags/${tag}/history?beforeId=${all[0].id}`);
    expect(next.json<ActivityEntry[]>().map((e) => e.id)).toEqual([all[1].id]);
  });

  it("refuses another tenant's row as not found, and lets an admin read it", async () => {
    const acme = await login(app, 'acme');
    expect((await history(acme)).statusCode).toBe(404);
    const admin = await history(await login(app, 'admin'));
    expect(admin.json<ActivityEntry[]>().map((e) => e.action)).toEqual(['update', 'create']);
  });

  it('names the bad field', async () => {
    const bad = await history(demand, `/api/demand/tags/${tag}/history?limit=0`);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('limit');
    expect((await history(demand, '/api/demand/tags/x/history')).statusCode).toBe(400);
  });

  it('answers an account row (a subpublisher) to its tenant', async () => {
    const sub = t.users.sub.id;
    const res = await history(demand, `/api/demand/subs/${sub}/history`);
    expect(res.statusCode, res.body).toBe(200);
    expect(Array.isArray(res.json())).toBe(true);
    expect((await history(await login(app, 'acme'), `/api/demand/subs/${sub}/history`)).statusCode).toBe(404);
  });
});
