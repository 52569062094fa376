import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '@adplane/shared';
import { as, buildTestApp, forEachStore, login, sampleFreshRow } from './crossSiteHelpers.js';

/**
 * Cross-site request refusal (CSRF) and the security headers, through the real app; the same is
 * checked in Chromium by e2e/specs/security.spec.ts.
 */
forEachStore((t) => {
  let app: FastifyInstance;
  let admin: string;
  let demand: string;
  beforeAll(async () => {
    app = await buildTestApp(t.store);
    admin = await login(app, 'admin');
    demand = await login(app, 'demand');
  });
  afterAll(async () => app.close());

  const me = async (cookie: string) =>
    (await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).json<{ id: number }>();
  const switchTo = (headers: Record<string, string>) =>
    as(app, admin, { method: 'GET', url: `/api/switch?type=demand&id=${t.users.demand.id}`, headers });

  describe('state-changing GET links (/api/switch, /api/auth/logout)', () => {
    it('refuses a top-level cross-site or same-site (sibling origin) navigation, and follows a same-origin one', async () => {
      for (const headers of <Record<string, string>[]>[
        { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
        { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' },
        { referer: 'https://evil.example/attack.html' },
        { origin: 'null' },
      ]) {
        const response = await switchTo(headers);
        expect(response.statusCode, JSON.stringify(headers)).toBe(403);
        expect(response.json().message).toMatch(/Cross-site request refused/);
        expect((await me(admin)).id).toBe(t.users.admin.id);
      }
      const typed = await switchTo({ 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' });
      expect(typed.statusCode).toBe(302);
      const back = await as(app, admin, {
        method: 'GET',
        url: `/api/switch?type=admin&id=${t.users.admin.id}`,
        headers: { 'sec-fetch-site': 'same-origin' },
      });
      expect(back.statusCode).toBe(302);
      expect((await me(admin)).id).toBe(t.users.admin.id);
      // A link of the console itself (no Fetch Metadata, Referer of this host) works too.
      expect((await switchTo({ referer: 'http://localhost:80/demands' })).statusCode).toBe(302);
      await as(app, admin, {
        method: 'GET',
        url: `/api/switch?type=admin&id=${t.users.admin.id}`,
        headers: { 'sec-fetch-site': 'same-origin' },
      });
    });

    it('does not sign out on a cross-site GET', async () => {
      const cookie = await login(app, 'adv');
      const logout = await as(app, cookie, {
        method: 'GET',
        url: '/api/auth/logout',
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      expect(logout.statusCode).toBe(403);
      expect((await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(200);
      const own = await as(app, cookie, {
        method: 'GET',
        url: '/api/auth/logout',
        headers: { 'sec-fetch-site': 'same-origin' },
      });
      expect(own.statusCode).toBe(200);
      expect((await as(app, cookie, { method: 'GET', url: '/api/auth/user' })).statusCode).toBe(403);
    });
  });

  describe('archive, restore, duplicate and every other POST', () => {
    it('refuses text/plain and missing content types (415) and other origins (403), leaving the row as it was', async () => {
      const row = await sampleFreshRow(app, demand, 'tags');
      const api = RESOURCES.tags.api;
      for (const action of ['archive', 'duplicate']) {
        const attempts = [
          { headers: { 'content-type': 'text/plain' }, payload: '{}', code: 415 },
          { headers: {}, payload: undefined, code: 415 },
          { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=1', code: 415 },
          { headers: { 'content-type': 'text/plain', origin: 'https://sibling.example' }, payload: '{}', code: 403 },
          { headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-site' }, payload: '{}', code: 403 },
        ];
        for (const attempt of attempts) {
          const response = await as(app, demand, {
            method: 'POST',
            url: `${api}/${row.id}/${action}`,
            headers: attempt.headers,
            payload: attempt.payload,
          });
          expect(response.statusCode, `${action} ${JSON.stringify(attempt.headers)}`).toBe(attempt.code);
        }
      }
      const after = await as(app, demand, { method: 'GET', url: `${api}/${row.id}` });
      expect(after.json()).toMatchObject({ archived: false });
      const copies = await as(app, demand, {
        method: 'GET',
        url: `${api}?search=${encodeURIComponent(`${row.name} (copy)`)}`,
      });
      expect(copies.json().total).toBe(0);
      // The console's own call: JSON, same origin.
      const ok = await as(app, demand, {
        method: 'POST',
        url: `${api}/${row.id}/archive`,
        headers: { 'sec-fetch-site': 'same-origin' },
        payload: {},
      });
      expect(ok.statusCode).toBe(200);
    });

    it('refuses a cross-origin DELETE and a cross-origin sign-in', async () => {
      const row = await sampleFreshRow(app, demand, 'tags');
      const del = await as(app, demand, {
        method: 'DELETE',
        url: `${RESOURCES.tags.api}/${row.id}`,
        headers: { origin: 'https://evil.example' },
      });
      expect(del.statusCode).toBe(403);
      const signIn = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { origin: 'https://evil.example' },
        payload: { username: 'demand', password: 'demo' },
      });
      expect(signIn.statusCode).toBe(403);
    });
  });

  describe('security headers', () => {
    it('sends CSP, frame-ancestors, X-Frame-Options, nosniff and Referrer-Policy on the API', async () => {
      const response = await as(app, demand, { method: 'GET', url: '/api/auth/user' });
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toContain('upgrade-insecure-requests');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(response.headers['strict-transport-security']).toBeUndefined();
    });

    it('serves HTML creatives a sandboxed preview page of their own policy, framed by the console only', async () => {
      const response = await app.inject({ method: 'GET', url: '/preview/creative.html' });
      expect(response.statusCode).toBe(200);
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toMatch(/^sandbox allow-scripts allow-popups;/);
      expect(csp).not.toContain('allow-same-origin');
      expect(csp).not.toContain('allow-popups-to-escape-sandbox');
      expect(csp).toContain("frame-ancestors 'self'");
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    });

    it('adds HSTS and upgrade-insecure-requests when the public host is https', async () => {
      const secure = await buildTestApp(t.store, { publicHost: 'https://ads.example.com' });
      try {
        const response = await secure.inject({ method: 'GET', url: '/api/auth/user' });
        expect(String(response.headers['strict-transport-security'])).toContain('max-age=31536000');
        expect(String(response.headers['content-security-policy'])).toContain('upgrade-insecure-requests');
      } finally {
        await secure.close();
      }
    });
  });
});
