import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PlatformUser } from '@adplane/shared';
import { as, buildTestApp, forEachStore, freshAddress, login } from './helpers.js';

/**
 * Admins make admins (the super admin only) and SDK users of a tenant in the console, through
 * /api/users, with every account's rules; a non-admin is refused; the made users sign in as their type.
 */
const PASSWORD = 'platform-user-pass';

forEachStore((t) => {
  let app: FastifyInstance;
  let admin: string;
  let ops: string;
  let demand: string;
  beforeAll(async () => {
    app = await buildTestApp(t.store);
    admin = await login(app, 'admin', undefined, freshAddress());
    ops = await login(app, 'ops', undefined, freshAddress());
    demand = await login(app, 'demand', undefined, freshAddress());
  });
  afterAll(() => app.close());

  const create = (cookie: string, payload: object) => as(app, cookie, { method: 'POST', url: '/api/users', payload });
  const base = (username: string) => ({ name: `User ${username}`, username, email: '', password: PASSWORD });

  describe('/api/users', () => {
    it('lets the super admin make an admin, who signs in as an admin with a tag of its own', async () => {
      const res = await create(admin, { ...base(`new-admin-${t.dialect}`), type: 'admin' });
      expect(res.statusCode, res.body).toBe(201);
      const made = res.json<PlatformUser>();
      expect(made).toMatchObject({ type: 'admin', tenantId: null, status: 1 });
      expect(made.uid).toMatch(/^[0-9a-f]{8}$/);
      const cookie = await login(app, `new-admin-${t.dialect}`, PASSWORD, freshAddress());
      const me = await as(app, cookie, { method: 'GET', url: '/api/auth/user' });
      expect(me.json()).toMatchObject({ type: 'admin', disabled: true });
      const listed = (await as(app, admin, { method: 'GET', url: '/api/users' })).json<{ items: PlatformUser[] }>();
      expect(listed.items.map((u) => u.username)).toEqual(
        expect.arrayContaining(['admin', 'ops', 'sdk', made.username]),
      );
      expect(listed.items.every((u) => u.type === 'admin' || u.type === 'sdk')).toBe(true);
      const activity = await t.store.db
        .selectFrom('activity_log')
        .selectAll()
        .where('entity_kind', '=', 'users')
        .where('entity_id', '=', made.id)
        .execute();
      expect(activity).toHaveLength(1);
    });

    it('lets any admin make an SDK user of a demand account, who reaches the SDK apps of that tenant only', async () => {
      const res = await create(ops, { ...base(`new-sdk-${t.dialect}`), type: 'sdk', tenantId: t.users.demand.id });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json<PlatformUser>()).toMatchObject({ type: 'sdk', tenantId: t.users.demand.id, uid: null });
      const cookie = await login(app, `new-sdk-${t.dialect}`, PASSWORD, freshAddress());
      expect((await as(app, cookie, { method: 'GET', url: '/api/sdk/apps' })).statusCode).toBe(200);
      expect((await as(app, cookie, { method: 'GET', url: '/api/demand/tags' })).statusCode).toBe(403);
    });

    it('refuses a non-super admin making an admin, and every non-admin', async () => {
      const byOps = await create(ops, { ...base(`ops-made-${t.dialect}`), type: 'admin' });
      expect(byOps.statusCode).toBe(403);
      expect(byOps.json().message).toBe('Only the super admin can create admins');
      for (const cookie of [demand, await login(app, 'sdk', undefined, freshAddress())]) {
        expect(
          (await create(cookie, { ...base(`nope-${t.dialect}`), type: 'sdk', tenantId: t.users.demand.id })).statusCode,
        ).toBe(403);
        expect((await as(app, cookie, { method: 'GET', url: '/api/users' })).statusCode).toBe(403);
      }
      expect((await app.inject({ method: 'GET', url: '/api/users' })).statusCode).toBe(403);
    });

    it('validates like every account: a type, a tenant for SDK users and none for admins, a password, free sign-in names', async () => {
      const fieldsOf = async (payload: object) => {
        const res = await create(admin, payload);
        expect(res.statusCode, res.body).toBe(400);
        const body = res.json<{ field?: string; errors?: { field: string }[] }>();
        return body.errors ? body.errors.map((e) => e.field) : [body.field];
      };
      expect(await fieldsOf({ ...base('typeless-user') })).toContain('type');
      expect(await fieldsOf({ ...base('demand-type'), type: 'demand' })).toContain('type');
      expect(await fieldsOf({ ...base('sdk-no-tenant'), type: 'sdk' })).toContain('tenantId');
      expect(await fieldsOf({ ...base('admin-tenant'), type: 'admin', tenantId: t.users.demand.id })).toContain(
        'tenantId',
      );
      expect(await fieldsOf({ ...base('sdk-bad-tenant'), type: 'sdk', tenantId: 999999 })).toContain('tenantId');
      // a sub is no demand account
      expect(await fieldsOf({ ...base('sdk-sub-tenant'), type: 'sdk', tenantId: t.users.sub.id })).toContain(
        'tenantId',
      );
      expect(await fieldsOf({ ...base('no-password'), password: '', type: 'admin' })).toContain('password');
      expect(await fieldsOf({ ...base('has@at'), type: 'admin' })).toContain('username');
      expect(await fieldsOf({ ...base('Demand'), type: 'admin' })).toContain('username');
      expect(await fieldsOf({ ...base('fresh-name'), email: 'demand@demo.adplane.test', type: 'admin' })).toContain(
        'email',
      );
      expect(await fieldsOf({ ...base('weak-pass'), password: 'password', type: 'admin' })).toContain('password');
    });
  });
});
