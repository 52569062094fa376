import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AuthUser } from '@adplane/shared';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

const JSON_ACCEPT = { accept: 'application/json' };

forEachStore((t) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp(t.store);
  });
  afterAll(async () => {
    await app.close();
  });

  const currentUser = async (cookie: string) =>
    (await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).json<AuthUser>();

  it('lets an admin act as a demand user, then go back', async () => {
    const cookie = await login(app, 'admin');
    const adminId = t.users.admin.id;

    const start = await as(app, cookie, { method: 'GET', url: `/api/switch?type=demand&id=${t.users.demand.id}` });
    expect(start.statusCode).toBe(302);
    expect(start.headers.location).toBe('/');

    const acting = await currentUser(cookie);
    expect(acting).toMatchObject({ id: t.users.demand.id, type: 'demand', adminId });
    // The acting user's own data is what the routes see.
    const profile = await as(app, cookie, { method: 'GET', url: '/api/demand/info' });
    expect(profile.json()).toMatchObject({ id: t.users.demand.id, uid: 'nw1' });
    expect((await as(app, cookie, { method: 'GET', url: '/api/admin/config' })).statusCode).toBe(403);

    const back = await as(app, cookie, {
      method: 'GET',
      url: `/api/switch?type=admin&id=${adminId}`,
      headers: JSON_ACCEPT,
    });
    expect(back.statusCode).toBe(200);
    expect(back.json<AuthUser>()).toMatchObject({ id: adminId, type: 'admin', uid: 'super' });
    expect(back.json<AuthUser>().adminId).toBeUndefined();
    expect((await currentUser(cookie)).id).toBe(adminId);
  });

  it('answers the new AuthUser as JSON when asked, and moves between users while impersonating', async () => {
    const cookie = await login(app, 'ops');
    const opsId = t.users.ops.id;
    const sub = await as(app, cookie, {
      method: 'GET',
      url: `/api/switch?type=sub&id=${t.users.sub.id}`,
      headers: JSON_ACCEPT,
    });
    expect(sub.json<AuthUser>()).toMatchObject({ id: t.users.sub.id, type: 'sub', adminId: opsId });
    const acme = await as(app, cookie, {
      method: 'GET',
      url: `/api/switch?type=demand&id=${t.users.acme.id}`,
      headers: JSON_ACCEPT,
    });
    expect(acme.json<AuthUser>()).toMatchObject({ id: t.users.acme.id, adminId: opsId });
    expect((await as(app, cookie, { method: 'GET', url: `/api/switch?type=admin&id=${opsId}` })).statusCode).toBe(302);
    expect((await currentUser(cookie)).type).toBe('admin');
  });

  it('refuses a demand user (403)', async () => {
    const cookie = await login(app, 'demand');
    const response = await as(app, cookie, { method: 'GET', url: `/api/switch?type=sub&id=${t.users.sub.id}` });
    expect(response.statusCode).toBe(403);
    expect((await currentUser(cookie)).id).toBe(t.users.demand.id);
  });

  it('refuses a sub trying to reach another tenant', async () => {
    const cookie = await login(app, 'sub');
    expect(
      (await as(app, cookie, { method: 'GET', url: `/api/switch?type=demand&id=${t.users.acme.id}` })).statusCode,
    ).toBe(403);
    expect(
      (await as(app, cookie, { method: 'GET', url: `/api/switch?type=admin&id=${t.users.admin.id}` })).statusCode,
    ).toBe(403);
  });

  it('never lets an admin act as another admin', async () => {
    const cookie = await login(app, 'admin');
    const response = await as(app, cookie, { method: 'GET', url: `/api/switch?type=admin&id=${t.users.ops.id}` });
    expect(response.statusCode).toBe(403);
    // Not even through an impersonated user.
    await as(app, cookie, { method: 'GET', url: `/api/switch?type=demand&id=${t.users.demand.id}` });
    expect(
      (await as(app, cookie, { method: 'GET', url: `/api/switch?type=admin&id=${t.users.ops.id}` })).statusCode,
    ).toBe(403);
    expect((await currentUser(cookie)).adminId).toBe(t.users.admin.id);
  });

  it('answers 404 for a user that does not exist or has another type, 400 for a bad query', async () => {
    const cookie = await login(app, 'admin');
    const missing = await as(app, cookie, { method: 'GET', url: '/api/switch?type=demand&id=999999' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('No active demand user with id 999999');
    expect(
      (await as(app, cookie, { method: 'GET', url: `/api/switch?type=sdk&id=${t.users.demand.id}` })).statusCode,
    ).toBe(404);
    const bad = await as(app, cookie, { method: 'GET', url: '/api/switch?type=boss&id=x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { field: string }) => e.field)).toEqual(['type', 'id']);
  });

  it('refuses anonymous callers', async () => {
    expect(
      (await app.inject({ method: 'GET', url: `/api/switch?type=demand&id=${t.users.demand.id}` })).statusCode,
    ).toBe(403);
  });
});
