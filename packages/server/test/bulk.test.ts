import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ActivityEntry } from '@adplane/shared';
import { as, buildTestApp, createAs, forEachStore, freshAddress, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/** POST {api}/bulk: all or nothing, per-row checks in the caller's scope, one activity entry per changed row. */
forEachStore((t) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  const run = `${Date.now() % 100_000}`;

  beforeAll(async () => {
    // User Activity is a CTVMediaV2V page: read the entries there.
    app = await buildTestApp(t.store, { edition: 'CTVMediaV2V' });
    for (const user of ['demand', 'manager', 'sub', 'acme']) cookies[user] = await login(app, user, undefined, freshAddress());
  });
  afterAll(async () => {
    await app?.close();
  });

  const bulk = (user: string, kind: string, payload: Record<string, unknown>) => as(app, cookies[user], { method: 'POST', url: `/api/demand/${kind}/bulk`, payload });
  const get = async (kind: string, id: number) => (await as(app, cookies.demand, { method: 'GET', url: `/api/demand/${kind}/${id}` })).json<Record<string, unknown>>();
  const activity = async (id: number) =>
    (await as(app, cookies.demand, { method: 'GET', url: `/api/activity?kind=tags&entityId=${id}` })).json<ActivityEntry[]>();
  const newTags = async (n: number, label: string) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push((await createAs(app, cookies.demand, 'tags', { ...sampleBody('tags', i), name: `Bulk ${label} ${run} ${i}` })).id);
    return ids;
  };

  it('pauses and activates rows, one activity entry per changed row', async () => {
    const ids = await newTags(3, 'pause');
    const paused = await bulk('demand', 'tags', { action: 'pause', ids });
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json()).toEqual({ action: 'pause', changed: ids, unchanged: [] });
    for (const id of ids) {
      expect(await get('tags', id)).toMatchObject({ status: 0 });
      const [entry] = await activity(id);
      expect(entry).toMatchObject({ action: 'update', before: { status: 1 }, after: { status: 0 } });
    }
    // Pausing again writes nothing; activating a mix changes only the paused.
    expect((await bulk('demand', 'tags', { action: 'pause', ids })).json()).toMatchObject({ changed: [], unchanged: ids });
    expect((await activity(ids[0])).length).toBe(2);
    const back = await bulk('manager', 'tags', { action: 'activate', ids: ids.slice(0, 2) });
    expect(back.json()).toMatchObject({ changed: ids.slice(0, 2) });
    expect(await get('tags', ids[0])).toMatchObject({ status: 1 });
    expect(await get('tags', ids[2])).toMatchObject({ status: 0 });
  });

  it('archives and restores, refusing the whole call when one row is in use', async () => {
    const ids = await newTags(2, 'archive');
    const channel = await createAs(app, cookies.demand, 'channels', { ...sampleBody('channels', 1), name: `Bulk channel ${run}`, demand: [{ tagId: ids[1], priority: 1 }] });
    const refused = await bulk('demand', 'tags', { action: 'archive', ids });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ field: 'ids.1' });
    expect(refused.json<{ message: string }>().message).toMatch(new RegExp(`Tag 'Bulk archive ${run} 1' \\(${ids[1]}\\) is used by Channel 'Bulk channel ${run}'`));
    // Nothing was written: the first row is not archived either.
    expect(await get('tags', ids[0])).toMatchObject({ archived: false });
    expect((await activity(ids[0])).map((e) => e.action)).toEqual(['create']);
    await as(app, cookies.demand, { method: 'DELETE', url: `/api/demand/channels/${channel.id}` });
    expect((await bulk('demand', 'tags', { action: 'archive', ids })).json()).toMatchObject({ changed: ids });
    expect(await get('tags', ids[1])).toMatchObject({ archived: true });
    // An archived row is not paused: restore it first.
    const paused = await bulk('demand', 'tags', { action: 'pause', ids });
    expect(paused.statusCode).toBe(409);
    expect(paused.json()).toMatchObject({ field: 'ids.0' });
    expect(paused.json<{ message: string }>().message).toMatch(/is archived: restore it first/);
    expect((await bulk('demand', 'tags', { action: 'restore', ids })).json()).toMatchObject({ changed: ids });
    expect((await activity(ids[0])).map((e) => e.action)).toEqual(['restore', 'archive', 'create']);
  });

  it('sets or takes off the targeting of every row, checking it exists in the account', async () => {
    const ids = await newTags(2, 'targeting');
    const targeting = await createAs(app, cookies.demand, 'targetings', { ...sampleBody('targetings', 1), name: `Bulk targeting ${run}` });
    const set = await bulk('demand', 'tags', { action: 'setTargeting', ids, targetingId: targeting.id });
    expect(set.statusCode, set.body).toBe(200);
    expect(await get('tags', ids[0])).toMatchObject({ targetingId: targeting.id });
    // The targeting now counts the tags among its users.
    const usage = (await as(app, cookies.demand, { method: 'GET', url: `/api/demand/targetings/${targeting.id}/usage` })).json<{ id: number }[]>();
    expect(usage.map((u) => u.id).sort()).toEqual([...ids].sort());
    expect((await bulk('demand', 'tags', { action: 'setTargeting', ids, targetingId: null })).json()).toMatchObject({ changed: ids });
    expect(await get('tags', ids[1])).toMatchObject({ targetingId: null });
    const missing = await bulk('demand', 'tags', { action: 'setTargeting', ids, targetingId: 999_999 });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ field: 'targetingId' });
    const noTarget = await bulk('demand', 'tags', { action: 'setTargeting', ids });
    expect(noTarget.json()).toMatchObject({ field: 'targetingId' });
    // Kinds without a targeting do not offer it.
    const deals = await bulk('demand', 'ivts', { action: 'setTargeting', ids: [1], targetingId: targeting.id });
    expect(deals.statusCode).toBe(400);
    expect(deals.json()).toMatchObject({ field: 'action' });
  });

  it("names a row outside the caller's scope and writes nothing", async () => {
    const ids = await newTags(1, 'scope');
    const acmeTag = await createAs(app, cookies.acme, 'tags', { ...sampleBody('tags', 3), name: `Acme bulk ${run}` });
    const res = await bulk('demand', 'tags', { action: 'pause', ids: [ids[0], acmeTag.id] });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ field: 'ids.1', message: `ids.1: Tag ${acmeTag.id} not found` });
    expect(await get('tags', ids[0])).toMatchObject({ status: 1 });
    expect((await bulk('sub', 'channels', { action: 'pause', ids: [1] })).statusCode).toBe(403);
  });

  it('refuses bad input with the field named', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'explode', ids: [1] }, 'action'],
      [{ action: 'pause', ids: [] }, 'ids'],
      [{ action: 'pause', ids: [1, 1] }, 'ids'],
      [{ action: 'pause', ids: ['a'] }, 'ids.0'],
    ];
    for (const [payload, field] of cases) {
      const res = await bulk('demand', 'tags', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json<{ field: string }>().field).toBe(field);
    }
  });

  it('pauses and archives subpublisher accounts', async () => {
    const sub = t.users.sub.id;
    const paused = await bulk('demand', 'subs', { action: 'pause', ids: [sub] });
    expect(paused.statusCode, paused.body).toBe(200);
    expect((await get('subs', sub)).status).toBe(0);
    expect((await bulk('demand', 'subs', { action: 'activate', ids: [sub] })).json()).toMatchObject({ changed: [sub] });
    const log = (await as(app, cookies.demand, { method: 'GET', url: `/api/activity?kind=subs&entityId=${sub}` })).json<ActivityEntry[]>();
    expect(log.slice(0, 2).map((e) => e.action)).toEqual(['update', 'update']);
  });
});
