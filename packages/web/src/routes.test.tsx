import { describe, expect, it } from 'vitest';
import { CONSOLE_ROUTE_PATHS, EDITIONS, isConsolePath, MODES, type AuthUser } from '@adplane/shared';
import { passesGuard } from './auth/guards.js';
import { buildNavigation, navigationPaths } from './layout/navigation.js';
import { effectiveMode } from './prefs/mode.js';
import { buildRouteObjects, featureOf, routeFor, ROUTES } from './routes.js';
import { makeUser } from './test/fixtures.js';

const PLAIN = [
  '/adexchanges',
  '/advertisers',
  '/alerts',
  '/applists',
  '/campaigns',
  '/channels',
  '/creatives',
  '/crelists',
  '/deals',
  '/demands',
  '/finance',
  '/iplists',
  '/ivts',
  '/log',
  '/login',
  '/reset-password',
  '/managers',
  '/publists',
  '/reports',
  '/sdk',
  '/subpublishers',
  '/suppliers',
  '/supply-deals',
  '/tags',
  '/targetings',
  '/tooltips',
  '/users',
  '/',
];
const WITH_ID = ['/applications', '/pbReport', '/publishers', '/report', '/sites', '/tcreatives'];

describe('route table', () => {
  it('holds every route of the console exactly once', () => {
    const paths = ROUTES.map((r) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect([...paths].sort()).toEqual([...PLAIN, ...WITH_ID.map((p) => `${p}/:id?`)].sort());
  });

  it('is the same list the server answers 200 for (every other path is a 404)', () => {
    expect(ROUTES.map((r) => r.path).sort()).toEqual([...CONSOLE_ROUTE_PATHS].sort());
    for (const path of ['/report', '/report/12', '/channels', '/', '/login'])
      expect(isConsolePath(path), path).toBe(true);
    for (const path of ['/nowhere', '/report/12/x', '/channels/3', '/reportx'])
      expect(isConsolePath(path), path).toBe(false);
  });

  it('resolves optional ids', () => {
    expect(routeFor('/report')?.path).toBe('/report/:id?');
    expect(routeFor('/report/12')?.path).toBe('/report/:id?');
    expect(routeFor('/report/12/x')).toBeUndefined();
    expect(routeFor('/reports')?.path).toBe('/reports');
    expect(routeFor('/nowhere')).toBeUndefined();
  });

  it('guards: admin pages, sdk page, public sign-in', () => {
    const guard = (path: string) => routeFor(path)?.guard;
    expect(['/demands', '/tooltips', '/finance'].map(guard)).toEqual(['admin', 'admin', 'admin']);
    expect(guard('/sdk')).toBe('sdk');
    expect(guard('/login')).toBe('public');
    expect(guard('/')).toBe('auth');
    expect(guard('/applists')).toBe('demandOrAdmin');
    expect(guard('/log')).toBe('demandOrAdmin');
  });

  it('opens every link of every navigation bar to the user who sees it', () => {
    // Each user with links it must find among its navigation bars: an empty bar cannot pass.
    const users: [AuthUser, string[]][] = [
      [makeUser('admin'), ['/demands', '/tooltips', '/finance', '/log']],
      [makeUser('demand', { showDsp: true }), ['/channels', '/tags', '/campaigns', '/creatives', '/targetings']],
      [makeUser('demand', { managerId: 2 }), ['/channels', '/tags']],
      [makeUser('sub'), ['/']],
      [makeUser('adv'), ['/']],
      [makeUser('sdk'), ['/sdk']],
    ];
    for (const [user, expected] of users) {
      const seen = new Set<string>();
      for (const mode of MODES) {
        for (const edition of EDITIONS) {
          // The bar is built with the mode the user really gets (SSP for one who may not switch).
          const shown = effectiveMode(user, mode);
          for (const path of navigationPaths(
            buildNavigation({ user: { ...user, config: { ...user.config, database: edition } }, mode: shown, edition })
              .main,
          )) {
            const route = routeFor(path);
            expect(route, path).toBeDefined();
            // The bar's own user, in the edition the bar was built for: the guard and the mode and edition rule pass.
            const inEdition = { ...user, config: { ...user.config, database: edition } };
            expect(
              passesGuard(route!.guard, inEdition, featureOf(route!)),
              `${user.type} ${path} (${edition}, ${shown})`,
            ).toBe(true);
            seen.add(path);
          }
        }
      }
      expect([...seen], user.type).toEqual(expect.arrayContaining(expected));
    }
  });

  it("guards DSP pages by the tenant's DSP view and edition-only pages by the edition, as the server does", () => {
    const open = (path: string, user: AuthUser) => passesGuard(routeFor(path)!.guard, user, featureOf(routeFor(path)!));
    const noDsp = makeUser('demand', { showDsp: false });
    const dsp = makeUser('demand', { showDsp: true });
    for (const path of ['/campaigns', '/creatives', '/adexchanges', '/suppliers', '/deals']) {
      expect(open(path, noDsp), path).toBe(false);
      expect(open(path, dsp), path).toBe(true);
      // A team member follows its tenant, not a switch of its own.
      expect(open(path, makeUser('demand', { managerId: 2, showDsp: false, tenantShowDsp: true })), path).toBe(true);
    }
    expect(open('/channels', noDsp)).toBe(true);
    for (const path of ['/crelists', '/publists']) {
      expect(open(path, makeUser('demand', {}, 'default')), path).toBe(false);
      expect(open(path, makeUser('demand', {}, 'CTVMediaV2V')), path).toBe(false);
      expect(open(path, makeUser('demand', {}, 'V2V')), path).toBe(true);
    }
    expect(open('/managers', makeUser('demand', {}, 'default'))).toBe(false);
    expect(open('/managers', makeUser('demand', {}, 'CTVMediaV2V'))).toBe(true);
    // Admins see every mode, but editions bind them too.
    expect(open('/log', makeUser('admin', {}, 'V2V'))).toBe(false);
    expect(open('/log', makeUser('admin', {}, 'CTVMediaV2V'))).toBe(true);
  });

  it('builds lazy routes under the frame, with a catch-all not-found route', () => {
    const [root] = buildRouteObjects();
    const [login, reset, frame] = root.children ?? [];
    expect(login.path).toBe('/login');
    expect(reset.path).toBe('/reset-password');
    expect(typeof login.lazy).toBe('function');
    const framed = frame.children ?? [];
    expect(framed.at(-1)?.path).toBe('*');
    expect(framed.filter((r) => r.path !== '*').every((r) => typeof r.lazy === 'function' && r.errorElement)).toBe(
      true,
    );
  });
});
