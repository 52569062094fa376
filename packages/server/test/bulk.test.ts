import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    for (const user of ['demand', 'manager', 'sub', 'acme'])
      cookies[user] = await login(app, user, undefined, freshAddress());
  });
  afterAll(async () => {
    await app?.close();
  });

  const bulk = (user: string, kind: string, payload: Record<string, unknown>) =>
    as(app, cookies[user], { method: 'POST', url: `/api/demand/${kind}/bulk`, payload });
  const get = async (kind: string, id: number) =>
    (await as(app, cookies.demand, { method: 'GET', url: `/api/demand/${kind}/${id}` })).json<
      Record<string, unknown>
    >();
  const activity = async (id: number) =>
    (await as(app, cookies.demand, { method: 'GET', url: `/api/activity?kind=tags&entityId=${id}` })).json<
      ActivityEntry[]
    >();
  const newTags = async (n: number, label: string) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++)
      ids.push(
        (await createAs(app, cookies.demand, 'tags', { ...sampleBody('tags', i), name: `Bulk ${label} ${run} ${i}` }))
          .id,
      );
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
    expect((await bulk('demand', 'tags', { action: 'pause', ids })).json()).toMatchObject({
      changed: [],
      unchanged: ids,
    });
    expect((await activity(ids[0])).length).toBe(2);
    const back = await bulk('manager', 'tags', { action: 'activate', ids: ids.slice(0, 2) });
    expect(back.json()).toMatchObject({ changed: ids.slice(0, 2) });
    expect(await get('tags', ids[0])).toMatchObject({ status: 1 });
    expect(await get('tags', ids[2])).toMatchObject({ status: 0 });
  });

  it('archives and restores, refusing the whole call when one row is in use', async () => {
    const ids = await newTags(2, 'archive');
    const channel = await createAs(app, cookies.demand, 'channels', {
      ...sampleBody('channels', 1),
      name: `Bulk channel ${run}`,
      demand: [{ tagId: ids[1], priority: 1 }],
    });
    const refused = await bulk('demand', 'tags', { action: 'archive', ids });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ field: 'ids.1' });
    expect(refused.json<{ message: string }>().message).toMatch(
      new RegExp(`Tag 'Bulk archive ${run} 1' \\(${ids[1]}\\) is used by Channel 'Bulk channel ${run}'`),
    );
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
    const targeting = await createAs(app, cookies.demand, 'targetings', {
      ...sampleBody('targetings', 1),
      name: `Bulk targeting ${run}`,
    });
    const set = await bulk('demand', 'tags', { action: 'setTargeting', ids, targetingId: targeting.id });
    expect(set.statusCode, set.body).toBe(200);
    expect(await get('tags', ids[0])).toMatchObject({ targetingId: targeting.id });
    // The targeting now counts the tags among its users.
    const usage = (
      await as(app, cookies.demand, { method: 'GET', url: `/api/demand/targetings/${targeting.id}/usage` })
    ).json<{ id: number }[]>();
    expect(usage.map((u) => u.id).sort()).toEqual([...ids].sort());
    expect((await bulk('demand', 'tags', { action: 'setTargeting', ids, targetingId: null })).json()).toMatchObject({
      changed: ids,
    });
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
    const log = (await as(app, cookies.demand, { method: 'GET', url: `/api/activity?kind=subs&entityId=${sub}` })).json<
      ActivityEntry[]
    >();
    expect(log.slice(0, 2).map((e) => e.action)).toEqual(['update', 'update']);
  });

  describe('add to list', () => {
    let v2v: FastifyInstance;
    beforeAll(async () => {
      // Creative lists are a V2V list kind: their routes answer there.
      v2v = await buildTestApp(t.store, { edition: 'V2V' });
    });
    afterAll(async () => {
      await v2v?.close();
    });
    const listActivity = async (kind: string, id: number) =>
      (await as(app, cookies.demand, { method: 'GET', url: `/api/activity?kind=${kind}&entityId=${id}` })).json<
        ActivityEntry[]
      >();
    const items = async (kind: string, id: number) =>
      (await as(v2v, cookies.demand, { method: 'GET', url: `/api/demand/${kind}/${id}` })).json<{ items: string[] }>()
        .items;
    const newCreatives = async (n: number) => {
      const ids: number[] = [];
      for (let i = 0; i < n; i++)
        ids.push(
          (
            await createAs(v2v, cookies.demand, 'creatives', {
              ...sampleBody('creatives', i),
              name: `Listed ${run} ${i}`,
            })
          ).id,
        );
      return ids;
    };

    it('adds selected creatives to creative lists, one activity entry per list that gained any', async () => {
      const ids = await newCreatives(3);
      const holding = await createAs(v2v, cookies.demand, 'crelists', {
        name: `Holds one ${run}`,
        items: [String(ids[0])],
      });
      const empty = await createAs(v2v, cookies.demand, 'crelists', {
        name: `Empty ${run}`,
        items: ['brand.example.com'],
      });
      const res = await as(v2v, cookies.demand, {
        method: 'POST',
        url: '/api/demand/creatives/bulk',
        payload: { action: 'addToList', ids, listIds: [holding.id, empty.id] },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        action: 'addToList',
        changed: ids,
        unchanged: [],
        lists: [
          { id: holding.id, name: `Holds one ${run}`, added: 2, total: 3 },
          { id: empty.id, name: `Empty ${run}`, added: 3, total: 4 },
        ],
      });
      expect(await items('crelists', holding.id)).toEqual(ids.map(String));
      expect(await items('crelists', empty.id)).toEqual(['brand.example.com', ...ids.map(String)]);
      for (const list of [holding.id, empty.id])
        expect((await listActivity('crelists', list)).map((e) => e.action)).toEqual(['update', 'create']);
      const [entry] = await listActivity('crelists', holding.id);
      expect(entry).toMatchObject({ before: { items: [String(ids[0])] }, after: { items: ids.map(String) } });

      // again: nothing to add, nothing written
      const again = await as(v2v, cookies.demand, {
        method: 'POST',
        url: '/api/demand/creatives/bulk',
        payload: { action: 'addToList', ids, listIds: [holding.id] },
      });
      expect(again.json()).toMatchObject({ changed: [], unchanged: ids, lists: [{ added: 0, total: 3 }] });
      expect((await listActivity('crelists', holding.id)).length).toBe(2);
    });

    it('adds all or nothing: a list archived, of another account or missing is named and nothing is written', async () => {
      const ids = await newCreatives(1);
      const open = await createAs(v2v, cookies.demand, 'crelists', { name: `Open ${run}`, items: [] });
      const archived = await createAs(v2v, cookies.demand, 'crelists', { name: `Archived ${run}`, items: [] });
      expect(
        (
          await as(v2v, cookies.demand, {
            method: 'POST',
            url: `/api/demand/crelists/${archived.id}/archive`,
            payload: {},
          })
        ).statusCode,
      ).toBe(200);
      const acmeList = await createAs(v2v, cookies.acme, 'crelists', { name: `Acme ${run}`, items: [] });
      const post = (payload: Record<string, unknown>, user = 'demand', server = v2v) =>
        as(server, cookies[user], { method: 'POST', url: '/api/demand/creatives/bulk', payload });

      const refused = await post({ action: 'addToList', ids, listIds: [open.id, archived.id] });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ field: 'listIds.1' });
      expect(await items('crelists', open.id)).toEqual([]);
      expect((await post({ action: 'addToList', ids, listIds: [acmeList.id] })).json()).toMatchObject({
        field: 'listIds.0',
        message: `listIds.0: Creative List ${acmeList.id} not found`,
      });
      const cases: [Record<string, unknown>, string][] = [
        [{ action: 'addToList', ids }, 'listIds'],
        [{ action: 'addToList', ids, listIds: [] }, 'listIds'],
        [{ action: 'addToList', ids, listIds: [open.id, open.id] }, 'listIds'],
        [{ action: 'addToList', ids, listIds: ['x'] }, 'listIds.0'],
      ];
      for (const [payload, field] of cases) {
        const res = await post(payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json<{ field: string }>().field).toBe(field);
      }
      // tags are held by no list; creative lists are closed outside V2V
      const tags = await as(v2v, cookies.demand, {
        method: 'POST',
        url: '/api/demand/tags/bulk',
        payload: { action: 'addToList', ids: [1], listIds: [open.id] },
      });
      expect(tags.json()).toMatchObject({ field: 'action' });
      expect((await post({ action: 'addToList', ids, listIds: [open.id] }, 'demand', app)).statusCode).toBe(403);
    });

    it('adds values seen in traffic to app and publisher lists, each checked by the list rule', async () => {
      const apps = await createAs(v2v, cookies.demand, 'applists', {
        name: `Seen apps ${run}`,
        items: ['com.example.kept'],
      });
      const pubs = await createAs(v2v, cookies.demand, 'publists', { name: `Seen sites ${run}`, items: [] });
      const add = (kind: string, payload: Record<string, unknown>, user = 'demand') =>
        as(v2v, cookies[user], { method: 'POST', url: `/api/demand/${kind}/add`, payload });

      const bad = await add('applists', { listIds: [apps.id], items: ['com.example.new', 'not an app!'] });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ field: 'items.1' });
      expect(await items('applists', apps.id)).toEqual(['com.example.kept']);

      const ok = await add('applists', {
        listIds: [apps.id],
        items: ['com.example.new', 'com.example.kept', '1234567890'],
      });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json()).toEqual({ lists: [{ id: apps.id, name: `Seen apps ${run}`, added: 2, total: 3 }] });
      expect((await listActivity('applists', apps.id)).map((e) => e.action)).toEqual(['update', 'create']);

      expect(
        (await add('publists', { listIds: [pubs.id], items: ['News.Example.COM', 'pub-123'] })).json(),
      ).toMatchObject({ lists: [{ added: 2 }] });
      expect(await items('publists', pubs.id)).toEqual(['news.example.com', 'pub-123']);

      expect((await add('applists', { listIds: [apps.id], items: ['com.example.x'] }, 'acme')).json()).toMatchObject({
        field: 'listIds.0',
      });
      expect((await add('applists', { listIds: [apps.id], items: [] })).json()).toMatchObject({ field: 'items' });
      expect((await add('applists', { items: ['com.example.x'] })).json()).toMatchObject({ field: 'listIds' });
      expect((await add('applists', { listIds: [apps.id], items: ['com.example.x'] }, 'sub')).statusCode).toBe(403);
    });
  });
});
