import { afterAll, beforeAll, expect, it } from 'vitest';
import { channelCampaignsPath, RESOURCES, type ResourceKind } from '@adplane/shared';
import { buildEditionApps, type EditionApps, forEachStore, grantDsp, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/**
 * Every /api route, called as every role (and signed out), against an independent table of who may
 * do what. "allowed" means the server let the caller through its guard and its tenant rules (the
 * answer may still be 400/404 for the empty body or unknown id the matrix sends); "refused" is 403.
 * A second pass calls every :id route of one tenant's rows as a user of another tenant: never 2xx.
 * Each route is called where its edition opens it, in a tenant with the DSP view: the mode and
 * edition rules have their own test (security/entitlements.test.ts).
 */
const ROLES = ['anon', 'admin', 'ops', 'demand', 'manager', 'sub', 'adv', 'sdk'] as const;
type Role = (typeof ROLES)[number];
const SIGNED_IN: Role[] = ROLES.filter((r) => r !== 'anon');
const TENANT_WRITERS: Role[] = ['admin', 'ops', 'demand', 'manager'];

const TENANT_KINDS: ResourceKind[] = [
  'channels',
  'tags',
  'sups',
  'campaigns',
  'creatives',
  'adexchanges',
  'deals',
  'supplydeals',
  'targetings',
  'applists',
  'publists',
  'crelists',
  'iplists',
  'ivts',
];
/** Rows assigned to a sub or adv user are readable (only) by that user. */
const ASSIGNED_READERS: Partial<Record<ResourceKind, Role[]>> = {
  channels: ['sub'],
  tags: ['adv'],
  campaigns: ['adv'],
  creatives: ['adv'],
};

function allowedRoles(method: string, url: string): Role[] {
  const read = method === 'GET';
  const kind = (Object.keys(RESOURCES) as ResourceKind[]).find(
    (k) => url === RESOURCES[k].api || url.startsWith(`${RESOURCES[k].api}/`),
  );
  if (url === '/api/demand/channelNames/list') return [...TENANT_WRITERS, 'sub'];
  if (url === '/api/demand/tagnames/list') return [...TENANT_WRITERS, 'adv'];
  // A channel's campaigns set from the channel: who may edit channels and campaigns (an adv user reads its campaigns only).
  if (method === 'PUT' && url === channelCampaignsPath(':id')) return TENANT_WRITERS;
  if (kind && TENANT_KINDS.includes(kind))
    return read ? [...TENANT_WRITERS, ...(ASSIGNED_READERS[kind] ?? [])] : TENANT_WRITERS;
  switch (kind) {
    case 'tooltips':
      return read ? SIGNED_IN : ['admin', 'ops'];
    case 'sdkapps':
      return ['sdk'];
    case 'subs':
    case 'advs':
      return TENANT_WRITERS;
    case 'managers':
      return ['admin', 'ops', 'demand'];
    case 'demands':
      // Only the super admin creates, archives or deletes demand accounts.
      return read || method === 'PUT' ? ['admin', 'ops'] : ['admin'];
  }
  const fixed: Record<string, Role[]> = {
    'POST /api/auth/login': [...ROLES],
    'GET /api/auth/user': SIGNED_IN,
    // answers every caller (the signed-out probe gets { user: null }, never 403)
    'GET /api/auth/session': [...ROLES],
    'POST /api/auth/password': SIGNED_IN,
    'GET /api/auth/passwordReset': [...ROLES],
    'POST /api/auth/forgotPassword': [...ROLES],
    'POST /api/auth/resetPassword': [...ROLES],
    'GET /api/auth/signIns': SIGNED_IN,
    'GET /api/users/:id/signIns': ['admin', 'ops'],
    // Two-factor sign-in: the second step answers anyone (its pending token decides); each user's own
    // enrolment; an admin's view and reset of any account's.
    'POST /api/auth/login/code': [...ROLES],
    'POST /api/auth/login/setup': [...ROLES],
    'POST /api/auth/login/confirm': [...ROLES],
    'GET /api/auth/twoFactor': SIGNED_IN,
    'POST /api/auth/twoFactor/setup': SIGNED_IN,
    'POST /api/auth/twoFactor/confirm': SIGNED_IN,
    'POST /api/auth/twoFactor/recoveryCodes': SIGNED_IN,
    'POST /api/auth/twoFactor/disable': SIGNED_IN,
    'GET /api/users/:id/twoFactor': ['admin', 'ops'],
    // Admins and SDK users, made by admins (an admin only by the super admin: platformUsers.test.ts).
    'GET /api/users': ['admin', 'ops'],
    'POST /api/users': ['admin', 'ops'],
    'POST /api/users/:id/twoFactor/reset': ['admin', 'ops'],
    'GET /api/switch': ['admin', 'ops'],
    'GET /api/demand/info': ['demand', 'manager', 'sub', 'adv', 'sdk'],
    'PUT /api/demand/info': ['demand', 'manager', 'sdk'],
    'GET /api/admin/config': ['admin', 'ops'],
    'PUT /api/admin/config': ['admin', 'ops'],
    'GET /api/ui/settings': SIGNED_IN,
    'PUT /api/ui/settings': SIGNED_IN,
    // The SSP/DSP switch: admins and the tenant's demand users (its DSP view is on in the matrix's tenant).
    'PUT /api/ui/mode': ['admin', 'ops', 'demand', 'manager'],
    'GET /api/demand/vastParams': SIGNED_IN,
    'GET /api/demand/vast2Params': SIGNED_IN,
    'GET /api/activity': ['admin', 'ops', 'demand', 'manager'],
    // Reports: everyone with stats in scope (sdk users have none); saved reports are each user's own.
    'POST /api/rrun': ['admin', 'ops', 'demand', 'manager', 'sub', 'adv'],
    // The postbid report: admins and users granted post-bid (showPostbidPix or showPostbidWh: the demand user here)
    'POST /api/pbrun': ['admin', 'ops', 'demand'],
    'GET /api/pbSetup': ['admin', 'ops', 'demand'],
    'POST /api/rfile': ['admin', 'ops', 'demand', 'manager', 'sub', 'adv'],
    'GET /api/savedReports': SIGNED_IN,
    'POST /api/savedReports': SIGNED_IN,
    'GET /api/savedReport/:id': SIGNED_IN,
    'PUT /api/savedReport/:id': SIGNED_IN,
    'DELETE /api/savedReport/:id': SIGNED_IN,
    'GET /api/savedFile/:id': SIGNED_IN,
    // Schedules of saved reports: each user's own (another's answers 404); adding one needs reports in scope.
    'GET /api/savedReport/:id/schedules': SIGNED_IN,
    'POST /api/savedReport/:id/schedules': ['admin', 'ops', 'demand', 'manager', 'sub', 'adv'],
    'PUT /api/reportSchedule/:id': SIGNED_IN,
    'DELETE /api/reportSchedule/:id': SIGNED_IN,
    'GET /api/dashboard': ['admin', 'ops', 'demand', 'manager', 'sub', 'adv'],
    'GET /api/clock': SIGNED_IN,
    // The numbers beside list rows: everyone with stats (the matrix sends no kind, so allowed is 400).
    'GET /api/rowStats': ['admin', 'ops', 'demand', 'manager', 'sub', 'adv'],
    // Whether rows serve: everyone signed in reaches the query check (the matrix sends no kind, so
    // allowed is 400); a kind the user may not list is refused (deliveryStates.test.ts).
    'GET /api/deliveryStates': SIGNED_IN,
    'GET /api/finance': ['admin', 'ops'],
    // "Test this tag" shows demand and prices: the tenant's own users and admins.
    'POST /api/edge/test': TENANT_WRITERS,
    // Each user's own API keys (the matrix's calls: an empty name is 400, an unknown key 404).
    'GET /api/apiKeys': SIGNED_IN,
    'POST /api/apiKeys': SIGNED_IN,
    'DELETE /api/apiKeys/:id': SIGNED_IN,
    // A tenant's alert rules and their episodes: its demand users, team members included.
    'GET /api/alerts/rules': ['demand', 'manager'],
    'POST /api/alerts/rules': ['demand', 'manager'],
    'PUT /api/alerts/rules/:id': ['demand', 'manager'],
    'DELETE /api/alerts/rules/:id': ['demand', 'manager'],
    'GET /api/alerts/episodes': ['demand', 'manager'],
    // The OpenAPI document and its reference page are public.
    'GET /api/openapi.json': [...ROLES],
    'GET /api/docs': [...ROLES],
  };
  const roles = fixed[`${method} ${url}`];
  if (!roles) throw new Error(`The authorization matrix has no rule for ${method} ${url}: add one`);
  return roles;
}

forEachStore((t) => {
  let apps: EditionApps;
  const cookies: Partial<Record<Role | 'acme', string>> = {};
  const routes = () => apps.apps.default.guardedRoutes;

  beforeAll(async () => {
    apps = await buildEditionApps(t.store);
    await grantDsp(t.store, t.users.acme.id);
    for (const role of [...SIGNED_IN, 'acme'] as const) cookies[role] = await login(apps.apps.default, role);
  });
  afterAll(() => apps.close());

  const call = (role: Role | 'acme', method: string, url: string, payload?: object) =>
    apps.for(url).inject({
      method: method as 'GET',
      url,
      ...(payload ? { payload } : method === 'POST' || method === 'PUT' ? { payload: {} } : {}),
      headers: cookies[role as Role] ? { cookie: cookies[role as Role]! } : {},
    });

  it('covers every route except logout, which the auth tests cover', () => {
    const all = routes().filter((r) => r.url !== '/api/auth/logout');
    expect(all.length).toBeGreaterThan(150);
    for (const r of all) expect(() => allowedRoles(r.method, r.url)).not.toThrow();
  });

  it.each(SIGNED_IN.concat('anon'))('answers every route as %s by the table', async (role) => {
    const wrong: string[] = [];
    for (const route of routes()) {
      if (route.url === '/api/auth/logout') continue;
      const url = route.url.replace(':id', '999999') + (route.url === '/api/switch' ? '?type=demand&id=999999' : '');
      const res = await call(role, route.method, url);
      const allowed = allowedRoles(route.method, route.url).includes(role);
      const refused = res.statusCode === 403;
      if (allowed === refused || res.statusCode >= 500)
        wrong.push(`${route.method} ${route.url}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('never lets another tenant read or change a row', async () => {
    const ids: Partial<Record<ResourceKind, number>> = {
      subs: t.users.sub.id,
      advs: t.users.adv.id,
      managers: t.users.manager.id,
    };
    for (const kind of TENANT_KINDS) {
      const res = await call('demand', 'POST', RESOURCES[kind].api, sampleBody(kind, 77));
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(201);
      ids[kind] = res.json().id;
    }
    const leaks: string[] = [];
    for (const route of routes().filter((r) => r.url.includes(':id'))) {
      const kind = (Object.keys(ids) as ResourceKind[]).find((k) => route.url.startsWith(`${RESOURCES[k].api}/`));
      if (!kind) continue;
      const url = route.url.replace(':id', String(ids[kind]));
      const body = route.method === 'PUT' ? sampleBody(kind, 78) : undefined;
      const res = await call('acme', route.method, url, body);
      if (res.statusCode < 400) leaks.push(`${route.method} ${url}: ${res.statusCode}`);
    }
    expect(leaks).toEqual([]);
    // And the rows are untouched.
    for (const kind of TENANT_KINDS) {
      const res = await call('demand', 'GET', `${RESOURCES[kind].api}/${ids[kind]}`);
      expect(res.json()).toMatchObject({ archived: false, name: sampleBody(kind, 77).name });
    }
  });
});
