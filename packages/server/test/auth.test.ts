import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthUser } from '@adplane/shared';
import { as, buildTestApp, DEMO_PASSWORD, forEachStore, freshAddress, login, sessionCookieOf } from './helpers.js';

/** A Set-Cookie header's parts (its cookies' name=value and attributes), trimmed, lower case. */
const cookieAttributes = (header: string): string[] => header.split(/[;,]/).map((part) => part.trim().toLowerCase());

forEachStore((t) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildTestApp(t.store);
  });
  afterAll(async () => {
    await app.close();
  });

  const signIn = (username: string, password: string, remoteAddress = freshAddress()) =>
    app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password }, remoteAddress });

  describe('POST /api/auth/login', () => {
    it('signs in by username and answers the AuthUser', async () => {
      const response = await signIn('demand', DEMO_PASSWORD);
      expect(response.statusCode).toBe(200);
      const user = response.json<AuthUser>();
      expect(user).toMatchObject({
        id: t.users.demand.id,
        type: 'demand',
        name: 'Northwind Media',
        showDsp: true,
        showSystemCost: true,
      });
      expect(user.config).toEqual({ host: t.settings.publicHost, landing: '', database: 'default', insightHub: '' });
      expect(user.vastParams.map((m) => m.param)).toContain('channel_id');
      expect(user.adminId).toBeUndefined();
      expect(user.uid).toBeUndefined();
    });

    it('signs in by e-mail, whatever its case', async () => {
      const response = await signIn('Demand@DEMO.adplane.test', DEMO_PASSWORD);
      expect(response.statusCode).toBe(200);
      expect(response.json<AuthUser>().id).toBe(t.users.demand.id);
    });

    it('marks the super admin and flags the other admins as disabled', async () => {
      const admin = (await signIn('admin', DEMO_PASSWORD)).json<AuthUser>();
      expect(admin).toMatchObject({ type: 'admin', uid: 'super', disabled: false });
      const ops = (await signIn('ops', DEMO_PASSWORD)).json<AuthUser>();
      expect(ops).toMatchObject({ type: 'admin', uid: 'ops', disabled: true });
    });

    it('sets an HttpOnly, SameSite=Lax session cookie on path /', async () => {
      const response = await signIn('sub', DEMO_PASSWORD);
      const header = String(response.headers['set-cookie']);
      expect(header).toMatch(/^adplane_sid=/);
      expect(header).toMatch(/HttpOnly/i);
      expect(header).toMatch(/SameSite=Lax/i);
      expect(header).toMatch(/Path=\//);
      // (read as attributes: the cookie's random value may hold the letters of 'secure')
      expect(cookieAttributes(header)).not.toContain('secure');
    });

    it('makes the cookie Secure when the public host is https', async () => {
      const secureApp = await buildTestApp(t.store, { publicHost: 'https://ads.example.com' });
      try {
        const response = await secureApp.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { username: 'adv', password: DEMO_PASSWORD },
        });
        expect(cookieAttributes(String(response.headers['set-cookie']))).toContain('secure');
      } finally {
        await secureApp.close();
      }
    });

    it("answers 401 'Bad credentials' to a wrong password and to an unknown user alike", async () => {
      const wrong = await signIn('demand', 'not-the-password');
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toEqual({ message: 'Bad credentials' });
      expect(sessionCookieOf(wrong)).toBeNull();
      const unknown = await signIn('nobody-here', DEMO_PASSWORD);
      expect(unknown.statusCode).toBe(401);
      expect(unknown.json()).toEqual({ message: 'Bad credentials' });
    });

    it('answers 400 naming the field when the username is missing', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { password: 'x' },
        remoteAddress: freshAddress(),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ field: 'username' });
    });
    // Throttling: test/security/signIn.test.ts.
  });

  describe('session', () => {
    it('is restored by GET /api/auth/user', async () => {
      const cookie = await login(app, 'manager');
      const response = await as(app, cookie, { method: 'GET', url: '/api/auth/user' });
      expect(response.statusCode).toBe(200);
      expect(response.json<AuthUser>()).toMatchObject({
        id: t.users.manager.id,
        type: 'demand',
        managerId: t.users.demand.id,
      });
    });

    it('answers 403 to /api/auth/user without a session, or with a forged cookie', async () => {
      expect((await app.inject({ method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);
      const forged = await as(app, 'adplane_sid=abc.def', { method: 'GET', url: '/api/auth/user' });
      expect(forged.statusCode).toBe(403);
      expect(forged.json()).toEqual({ message: 'Forbidden' });
    });

    it('is probed by GET /api/auth/session: the user when signed in, null (200, not 403) when not', async () => {
      const cookie = await login(app, 'manager');
      const signedIn = await as(app, cookie, { method: 'GET', url: '/api/auth/session' });
      expect(signedIn.statusCode).toBe(200);
      expect(signedIn.json<{ user: AuthUser }>().user).toMatchObject({ id: t.users.manager.id, type: 'demand' });
      const signedOut = await app.inject({ method: 'GET', url: '/api/auth/session' });
      expect(signedOut.statusCode).toBe(200);
      expect(signedOut.json()).toEqual({ user: null });
      expect((await as(app, 'adplane_sid=abc.def', { method: 'GET', url: '/api/auth/session' })).json()).toEqual({
        user: null,
      });
    });

    it('ends with GET /api/auth/logout: the session row is gone and the cookie cleared', async () => {
      const cookie = await login(app, 'sdk');
      const out = await as(app, cookie, { method: 'GET', url: '/api/auth/logout' });
      expect(out.statusCode).toBe(200);
      expect(out.json()).toEqual({ ok: true });
      expect(String(out.headers['set-cookie'])).toMatch(/adplane_sid=;/);
      expect((await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);
    });

    it('logout answers ok without a session too', async () => {
      const response = await app.inject({ method: 'GET', url: '/api/auth/logout' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ ok: true });
    });

    it('a new sign-in replaces the previous session of the browser', async () => {
      const first = await login(app, 'adv');
      const second = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'adv', password: DEMO_PASSWORD },
        headers: { cookie: first },
      });
      expect(second.statusCode).toBe(200);
      expect((await as(app, first, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);
      expect((await as(app, sessionCookieOf(second), { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(200);
    });
  });
});
