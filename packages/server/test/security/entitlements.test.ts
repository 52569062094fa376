import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Edition, EDITION_ONLY, type Feature, needsDsp, RESOURCE_KINDS, RESOURCES } from '@adplane/shared';
import { type GuardedRoute } from '../../src/auth/guards.js';
import { as, buildTestApp, forEachStore, login } from '../helpers.js';

/**
 * Mode and edition are the server's rules, not only the console's menus.
 * Every route of a DSP kind is refused to a tenant without showDsp, and every route of an
 * edition-only feature (Creative and Publisher Lists: V2V; Managers and User Activity: CTVMediaV2V)
 * outside its edition, whoever asks. The routes come from the live route registry (the one
 * docs/routes.md is rendered from), so a route added to such a kind is checked the day it is added.
 */
const DSP_KINDS = RESOURCE_KINDS.filter((kind) => needsDsp(kind));
const EDITION_FEATURES = [...Object.keys(EDITION_ONLY)] as Feature[];

function featureOf(url: string): Feature | null {
  if (url === '/api/activity') return 'activity';
  for (const kind of RESOURCE_KINDS) {
    const def = RESOURCES[kind];
    if (url === def.api || url.startsWith(`${def.api}/`) || url === def.namesApi) return kind;
  }
  return null;
}

/** Every registered route of a feature, with its path parameters filled. */
function routesOf(app: FastifyInstance, feature: Feature): GuardedRoute[] {
  const routes = app.guardedRoutes.filter((r) => featureOf(r.url) === feature);
  expect(routes.length, feature).toBeGreaterThan(0);
  return routes;
}

const fill = (url: string, id: number) => url.replace(/:[A-Za-z]+\??/g, String(id));

async function rowCount(app: FastifyInstance, cookie: string, kind: Feature): Promise<number> {
  const url = kind === 'activity' ? '/api/activity?limit=500' : `${RESOURCES[kind].api}/list`;
  const res = await as(app, cookie, { method: 'GET', url });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return (res.json() as unknown[]).length;
}

forEachStore((t) => {
  const apps: Partial<Record<Edition, FastifyInstance>> = {};
  const cookies: Partial<Record<`${Edition}:${string}`, string>> = {};
  const cookie = (edition: Edition, who: string) => cookies[`${edition}:${who}`]!;

  beforeAll(async () => {
    for (const edition of ['default', 'V2V', 'CTVMediaV2V'] as const) {
      apps[edition] = await buildTestApp(t.store, { edition });
      for (const who of ['admin', 'demand', 'manager', 'adv', 'acme'])
        cookies[`${edition}:${who}`] = await login(apps[edition]!, who);
    }
  });
  afterAll(async () => {
    for (const app of Object.values(apps)) await app.close();
  });

  const call = (edition: Edition, who: string, route: Pick<GuardedRoute, 'method' | 'url'>, id = 1) =>
    as(apps[edition]!, cookie(edition, who), {
      method: route.method as 'GET',
      url: fill(route.url, id),
      ...(route.method === 'POST' || route.method === 'PUT' ? { payload: { name: 'Entitlement probe' } } : {}),
    });

  describe('DSP kinds need a tenant with showDsp', () => {
    it.each(DSP_KINDS)(
      'refuses every %s route to acme (no showDsp), naming the DSP view, and writes nothing',
      async (kind) => {
        const app = apps.default!;
        // A real row of another tenant as the id: the refusal comes before any lookup.
        const theirs = (
          (
            await as(app, cookie('default', 'demand'), { method: 'GET', url: `${RESOURCES[kind].api}/list` })
          ).json() as { id: number }[]
        )[0];
        expect(theirs, kind).toBeDefined();
        const before = await rowCount(app, cookie('default', 'admin'), kind);
        for (const route of routesOf(app, kind)) {
          const res = await call('default', 'acme', route, theirs.id);
          expect(res.statusCode, `${route.method} ${route.url}: ${res.body}`).toBe(403);
          expect(res.json().message, route.url).toMatch(/DSP view/);
        }
        expect(await rowCount(app, cookie('default', 'admin'), kind)).toBe(before);
      },
    );

    it.each(DSP_KINDS)(
      'opens %s to a tenant with showDsp, its team member and its advertiser, and to admins',
      async (kind) => {
        for (const who of ['demand', 'manager', 'admin']) {
          const res = await as(apps.default!, cookie('default', who), { method: 'GET', url: RESOURCES[kind].api });
          expect(res.statusCode, `${who}: ${res.body}`).toBe(200);
        }
        // The adv user reads the rows assigned to it (campaigns, creatives); other kinds refuse it by role, not by mode.
        const adv = await as(apps.default!, cookie('default', 'adv'), {
          method: 'GET',
          url: `${RESOURCES[kind].api}/list`,
        });
        expect(adv.statusCode).toBe(RESOURCES[kind].assignedTo?.adv ? 200 : 403);
        if (adv.statusCode === 403) expect(adv.json().message).not.toMatch(/DSP view/);
      },
    );

    it('follows the tenant: tells the console whether the tenant has the DSP view', async () => {
      const user = async (who: string) =>
        (await as(apps.default!, cookie('default', who), { method: 'GET', url: '/api/auth/user' })).json();
      expect(await user('acme')).toMatchObject({ showDsp: false, tenantShowDsp: false });
      expect(await user('demand')).toMatchObject({ showDsp: true, tenantShowDsp: true });
      // A team member has no flag of its own, but works in a tenant that has the DSP view: it may switch.
      expect(await user('manager')).toMatchObject({ showDsp: true, tenantShowDsp: true });
      expect(await user('admin')).toMatchObject({ showDsp: true, tenantShowDsp: true });
      // an advertiser of a DSP tenant reads its assigned campaigns, but has no view to switch
      expect(await user('adv')).toMatchObject({ showDsp: false, tenantShowDsp: true });
    });
  });

  describe('edition-only features', () => {
    const OPEN_IN: Record<string, Edition> = {
      crelists: 'V2V',
      publists: 'V2V',
      managers: 'CTVMediaV2V',
      activity: 'CTVMediaV2V',
    };

    it('covers every edition-only feature of the shared rule', () => {
      expect(EDITION_FEATURES.sort()).toEqual(Object.keys(OPEN_IN).sort());
    });

    it.each(EDITION_FEATURES)(
      'refuses every %s route outside its edition, to admins and demand users alike, and writes nothing',
      async (feature) => {
        for (const edition of (['default', 'V2V', 'CTVMediaV2V'] as const).filter((e) => e !== OPEN_IN[feature])) {
          const openApp = apps[OPEN_IN[feature]]!;
          const before = await rowCount(openApp, cookie(OPEN_IN[feature], 'admin'), feature);
          for (const route of routesOf(apps[edition]!, feature)) {
            for (const who of ['admin', 'demand']) {
              const res = await call(edition, who, route);
              expect(res.statusCode, `${edition} ${who} ${route.method} ${route.url}: ${res.body}`).toBe(403);
              expect(res.json().message).toMatch(/not part of this edition/);
            }
          }
          expect(await rowCount(openApp, cookie(OPEN_IN[feature], 'admin'), feature)).toBe(before);
        }
      },
    );

    it.each(EDITION_FEATURES)('opens %s in its edition', async (feature) => {
      const edition = OPEN_IN[feature];
      const url = feature === 'activity' ? '/api/activity' : RESOURCES[feature].api;
      for (const who of ['admin', 'demand']) {
        const res = await as(apps[edition]!, cookie(edition, who), { method: 'GET', url });
        expect(res.statusCode, `${edition} ${who} ${url}: ${res.body}`).toBe(200);
      }
    });

    it('creates a publisher list in V2V, and refuses the same body on the default edition', async () => {
      const body = { name: 'Edition probe', items: ['news.example.com'] };
      const refused = await as(apps.default!, cookie('default', 'demand'), {
        method: 'POST',
        url: RESOURCES.publists.api,
        payload: body,
      });
      expect(refused.statusCode).toBe(403);
      const created = await as(apps.V2V!, cookie('V2V', 'demand'), {
        method: 'POST',
        url: RESOURCES.publists.api,
        payload: body,
      });
      expect(created.statusCode, created.body).toBe(201);
    });
  });
});
