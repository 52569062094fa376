import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type EntityTables } from '../src/store/entityTables.js';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { insertEntity } from '../src/store/entities.js';
import { as, buildTestApp, login, onSqliteStore } from './helpers.js';
import { edgeRequest } from './edgeClient.js';

/**
 * An SDK app's key on its VAST requests (`app_key`): a key of the channel's account's live app names
 * the request's app in the reports; an unknown key, another account's, or a paused or archived app's
 * (revoked) gets the edge's empty answer and a counted reason.
 */
onSqliteStore((t) => {
  let app: FastifyInstance;
  let channelUid = '';
  let channelId = 0;
  const keys = { live: '', paused: '', archived: '', otherTenant: '' };
  beforeAll(async () => {
    app = await buildTestApp(t.store);
    const sdk = await login(app, 'sdk');
    const create = (n: number, body: Record<string, unknown> = {}) =>
      as(app, sdk, {
        method: 'POST',
        url: '/api/sdk/apps',
        payload: { name: `Harbor app ${n}`, bundle: `com.harbor.app${n}`, platform: 'roku', ...body },
      });
    keys.live = (await create(1)).json<{ uid: string }>().uid;
    keys.paused = (await create(2, { status: 0 })).json<{ uid: string }>().uid;
    const archived = (await create(3)).json<{ id: number; uid: string }>();
    keys.archived = archived.uid;
    expect(
      (await as(app, sdk, { method: 'POST', url: `/api/sdk/apps/${archived.id}/archive`, payload: {} })).statusCode,
    ).toBe(200);
    // a live channel of the sdk user's account (Northwind) serves the requests
    const channel = await t.store.db
      .withTables<EntityTables>()
      .selectFrom('supply_channels')
      .select(['id', 'uid'])
      .where('tenant_id', '=', t.users.demand.id)
      .where('status', '=', 1)
      .where('archived', '=', 0)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    channelUid = channel.uid!;
    channelId = channel.id;
    // another account's app (as its own SDK user would have made it): not one of this channel's account's
    keys.otherTenant = (
      await insertEntity(
        t.store.db,
        'sdkapps',
        t.users.acme.id,
        {
          name: 'Acme app',
          status: 1,
          subId: null,
          advId: null,
          data: { bundle: 'com.acme.app', platform: 'roku', storeUrl: '' },
          refs: [],
        },
        { uid: true, userId: null },
      )
    ).uid!;
    await app.edge.snapshots.rebuild();
  });
  afterAll(async () => {
    await app.close();
  });

  const vast = (key: string) =>
    edgeRequest(
      app,
      `/vast/${channelUid}?app_key=${encodeURIComponent(key)}&app_bundle=com.claimed.bundle&w=1920&h=1080`,
    );
  const reasonsOf = async () => {
    await app.edge.flush();
    const rows = await app.stats.select(
      `SELECT nofill_reason, app_bundle, sum(reqs) AS reqs FROM ${STATS_TABLE} WHERE channel_id = ${channelId} GROUP BY nofill_reason, app_bundle`,
    );
    return rows.map((r) => ({ reason: String(r.nofill_reason), bundle: String(r.app_bundle), reqs: Number(r.reqs) }));
  };

  it("refuses an unknown key, another account's and a revoked one with the empty answer, each counted by its reason", async () => {
    for (const key of ['no-such-key', keys.otherTenant, keys.paused, keys.archived]) {
      const res = await vast(key);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('<Ad ');
    }
    const rows = await reasonsOf();
    expect(rows.find((r) => r.reason === 'sdk_app.unknown')?.reqs).toBe(2);
    expect(rows.find((r) => r.reason === 'sdk_app.revoked')?.reqs).toBe(2);
  });

  it("attributes a live app's request to the app's own bundle, whatever bundle the tag claims", async () => {
    await vast(keys.live);
    const rows = await reasonsOf();
    const mine = rows.filter((r) => !r.reason.startsWith('sdk_app.'));
    expect(mine.map((r) => r.bundle)).toEqual(['com.harbor.app1']);
    expect(mine[0].reqs).toBe(1);
  });
});
