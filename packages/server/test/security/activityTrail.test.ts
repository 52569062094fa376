import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RESOURCES } from '@adplane/shared';
import { sampleBody } from '../resourceSamples.js';
import { as, buildTestApp, forEachStore, login } from '../helpers.js';

/**
 * The activity log keeps its trail: deleting an account leaves its activity-log rows, and profile
 * and admin Config changes are logged.
 */
forEachStore((t) => {
  let app: FastifyInstance;
  let demand: string;
  let admin: string;
  beforeAll(async () => {
    // Managers (the team members created and deleted here) exist in the CTVMediaV2V edition.
    app = await buildTestApp(t.store, { edition: 'CTVMediaV2V' });
    demand = await login(app, 'demand');
    admin = await login(app, 'admin');
  });
  afterAll(async () => app.close());

  // JSON columns come back as text on SQLite and parsed on PostgreSQL.
  const json = (v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v);
  const logOf = (userId: number) =>
    t.store.db.selectFrom('activity_log').selectAll().where('user_id', '=', userId).orderBy('id').execute();

  it("keeps a deleted account's changes in the log", async () => {
    const created = await as(app, demand, {
      method: 'POST',
      url: RESOURCES.managers.api,
      payload: { name: 'Temp trader', username: 'temp-trader', email: '', password: 'a-long-unusual-passphrase' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const manager = created.json<{ id: number }>();
    const cookie = await login(app, 'temp-trader', 'a-long-unusual-passphrase');
    expect(
      (await as(app, cookie, { method: 'POST', url: RESOURCES.tags.api, payload: sampleBody('tags', 41) })).statusCode,
    ).toBe(201);
    expect(await logOf(manager.id)).toHaveLength(1);
    expect(
      (await as(app, demand, { method: 'DELETE', url: `${RESOURCES.managers.api}/${manager.id}` })).statusCode,
    ).toBe(204);
    const kept = await logOf(manager.id);
    expect(kept.map((r) => [r.entity_kind, r.action])).toEqual([['tags', 'create']]);
  });

  it('logs profile changes, with the admin behind an impersonation', async () => {
    const profile = (await as(app, demand, { method: 'GET', url: '/api/demand/info' })).json<Record<string, unknown>>();
    const {
      id: _id,
      type: _type,
      uid: _uid,
      token: _token,
      domain: _domain,
      readOnly: _ro,
      priceReq: _a,
      priceDsp: _b,
      priceImp: _c,
      pricePostbid: _d,
      ...editable
    } = profile;
    const own = await as(app, demand, {
      method: 'PUT',
      url: '/api/demand/info',
      payload: { ...editable, companyAddress: '1 Harbour Street' },
    });
    expect(own.statusCode, own.body).toBe(200);
    const impersonating = await login(app, 'admin');
    await as(app, impersonating, { method: 'GET', url: `/api/switch?type=demand&id=${t.users.demand.id}` });
    const byAdmin = await as(app, impersonating, {
      method: 'PUT',
      url: '/api/demand/info',
      payload: { ...editable, companyAddress: '2 Harbour Street' },
    });
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    const rows = (await logOf(t.users.demand.id)).filter((r) => r.entity_kind === 'profile');
    expect(rows.map((r) => [r.action, r.admin_id, r.tenant_id])).toEqual([
      ['update', null, t.users.demand.id],
      ['update', t.users.admin.id, t.users.demand.id],
    ]);
    expect(json(rows[1].after)).toMatchObject({ companyAddress: '2 Harbour Street' });
    expect(json(rows[1].before)).toMatchObject({ companyAddress: '1 Harbour Street' });
  });

  it("logs the admin's Config changes", async () => {
    const saved = await as(app, admin, {
      method: 'PUT',
      url: '/api/admin/config',
      payload: { postbidMaxImps: 1234, postbidMaxReps: 5 },
    });
    expect(saved.statusCode).toBe(200);
    const rows = (await logOf(t.users.admin.id)).filter((r) => r.entity_kind === 'config');
    expect(rows).toHaveLength(1);
    expect(json(rows[0].after)).toEqual({ postbidMaxImps: 1234, postbidMaxReps: 5 });
  });
});
