import { rmSync } from 'node:fs';
import { type FastifyInstance, type HTTPMethods } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { type Guard } from '../src/auth/guards.js';
import { as, buildTestApp, forEachStore, login, testSettings } from './helpers.js';

const SIGNED_IN = ['admin', 'ops', 'demand', 'manager', 'sub', 'adv', 'sdk'] as const;
type Who = (typeof SIGNED_IN)[number] | 'anonymous';
const EVERYONE: readonly Who[] = [...SIGNED_IN, 'anonymous'];

const only = (...allowed: Who[]) =>
  Object.fromEntries(EVERYONE.map((w) => [w, allowed.includes(w) ? 200 : 403])) as Record<Who, number>;
const signedIn = only(...SIGNED_IN);
const nonAdmins = only('demand', 'manager', 'sub', 'adv', 'sdk');
const admins = only('admin', 'ops');

interface Case {
  method: HTTPMethods;
  url: string | ((ids: Record<string, number>) => string);
  guard: Guard;
  expect: Record<Who, number>;
  payload?: (who: Who) => unknown;
  accept?: string;
}

/** Every control-plane route of the foundation, with who gets in. */
const CASES: Case[] = [
  { method: 'GET', url: '/api/auth/user', guard: 'auth', expect: signedIn },
  { method: 'GET', url: '/api/demand/info', guard: 'auth', expect: nonAdmins },
  {
    method: 'PUT',
    url: '/api/demand/info',
    guard: 'auth',
    expect: only('demand', 'manager', 'sdk'),
    payload: (who) => ({ name: `Name of ${who}` }),
  },
  { method: 'GET', url: '/api/admin/config', guard: 'admin', expect: admins },
  {
    method: 'PUT',
    url: '/api/admin/config',
    guard: 'admin',
    expect: admins,
    payload: () => ({ postbidMaxImps: 1000, postbidMaxReps: 10 }),
  },
  { method: 'GET', url: '/api/ui/settings', guard: 'auth', expect: signedIn },
  { method: 'PUT', url: '/api/ui/settings', guard: 'auth', expect: signedIn, payload: () => ({ tabs: true }) },
  { method: 'GET', url: '/api/demand/vastParams', guard: 'auth', expect: signedIn },
  { method: 'GET', url: '/api/demand/vast2Params', guard: 'auth', expect: signedIn },
  {
    method: 'GET',
    url: (ids) => `/api/switch?type=adv&id=${ids.adv}`,
    guard: 'auth',
    expect: admins,
    accept: 'application/json',
  },
  { method: 'GET', url: '/api/auth/logout', guard: 'public', expect: only(...EVERYONE) },
];

forEachStore((t) => {
  let app: FastifyInstance;
  const cookies: Partial<Record<Who, string>> = {};
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    app = await buildTestApp(t.store);
    for (const [name, u] of Object.entries(t.users)) ids[name] = u.id;
  });
  afterAll(async () => {
    await app.close();
  });

  describe.each(CASES)('$method $url', (c) => {
    const url = (typeof c.url === 'string' ? c.url : '/api/switch').split('?')[0];
    it(`declares guard '${c.guard}'`, () => {
      expect(app.guardedRoutes).toContainEqual({ method: c.method, url, guard: c.guard });
    });
    it.each(EVERYONE)('%s', async (who) => {
      // A fresh session per call: switch and logout change the session they run in.
      cookies[who] = who === 'anonymous' ? undefined : await login(app, who);
      const response = await as(app, cookies[who] ?? null, {
        method: c.method,
        url: typeof c.url === 'string' ? c.url : c.url(ids),
        ...(c.payload ? { payload: c.payload(who) as object } : {}),
        headers: c.accept ? { accept: c.accept } : {},
      });
      expect(response.statusCode, response.body).toBe(c.expect[who]);
      if (response.statusCode === 403 && c.expect[who] === 403 && (who === 'anonymous' || c.guard !== 'auth')) {
        expect(response.json()).toEqual({ message: 'Forbidden' });
      }
    });
  });

  it('refuses every non-public /api route to an anonymous caller, whoever registered it', async () => {
    const guarded = app.guardedRoutes.filter((r) => r.guard !== 'public');
    expect(guarded.length).toBeGreaterThan(5);
    for (const route of guarded) {
      const response = await app.inject({
        method: route.method as HTTPMethods,
        url: route.url.replace(/:[A-Za-z]+/g, '1'),
        payload: {},
      });
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(403);
    }
  });

  it('refuses every admin-only route to a demand user and every demand/sdk-only route to an admin', async () => {
    const demand = await login(app, 'demand');
    const admin = await login(app, 'admin');
    for (const route of app.guardedRoutes) {
      const caller =
        route.guard === 'admin' ? demand : route.guard === 'demand' || route.guard === 'sdk' ? admin : null;
      if (!caller) continue;
      const response = await as(app, caller, {
        method: route.method as HTTPMethods,
        url: route.url.replace(/:[A-Za-z]+/g, '1'),
        payload: {},
      });
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(403);
    }
  });
});

describe('guard declaration', () => {
  it('stops the app at start when an /api route declares no guard', async () => {
    const settings = testSettings();
    const { openStore } = await import('../src/store/db.js');
    const store = await openStore(settings);
    // The edge reads its tracking key from the config store at start: the store is migrated as main.ts does.
    const { migrateToLatest } = await import('../src/store/migrations/index.js');
    await migrateToLatest(store);
    const app = await buildApp({ settings, store });
    try {
      expect(() => app.get('/api/naked', async () => ({}))).toThrow(/GET \/api\/naked must declare config.guard/);
      // Routes outside /api need none.
      expect(() => app.get('/outside', async () => ({}))).not.toThrow();
    } finally {
      await app.close();
      await store.close();
      rmSync(settings.dataDir, { recursive: true, force: true });
    }
  });

  forEachStore((t) => {
    let app: FastifyInstance;
    const GUARD_ROUTES: Guard[] = ['public', 'auth', 'admin', 'demand', 'sdk'];
    beforeAll(async () => {
      app = await buildApp({ settings: t.settings, store: t.store });
      for (const guard of GUARD_ROUTES) {
        app.get(`/api/test-guard/${guard}`, { config: { guard } }, async (request) => ({
          who: request.auth?.user.username ?? null,
        }));
      }
      await app.ready();
    });
    afterAll(async () => {
      await app.close();
    });

    const EXPECTED: Record<Guard, Record<Who, number>> = {
      public: only(...EVERYONE),
      auth: signedIn,
      admin: admins,
      demand: only('demand', 'manager'),
      sdk: only('sdk'),
    };

    it.each(GUARD_ROUTES)("guard '%s' lets in exactly its user types", async (guard) => {
      for (const who of EVERYONE) {
        const cookie = who === 'anonymous' ? null : await login(app, who);
        const response = await as(app, cookie, { method: 'GET', url: `/api/test-guard/${guard}` });
        expect(response.statusCode, `${who} on ${guard}`).toBe(EXPECTED[guard][who]);
        if (response.statusCode === 200) expect(response.json()).toEqual({ who: who === 'anonymous' ? null : who });
      }
    });

    it('applies the guard to the impersonated user while an admin impersonates', async () => {
      const cookie = await login(app, 'admin');
      const sdkId = t.users.sdk.id;
      expect((await as(app, cookie, { method: 'GET', url: `/api/switch?type=sdk&id=${sdkId}` })).statusCode).toBe(302);
      expect((await as(app, cookie, { method: 'GET', url: '/api/test-guard/sdk' })).json()).toEqual({ who: 'sdk' });
      expect((await as(app, cookie, { method: 'GET', url: '/api/test-guard/admin' })).statusCode).toBe(403);
    });
  });
});
