import { describe, expect, it } from 'vitest';
import { EDITIONS, MODES, type AuthUser } from '@adplane/shared';
import { passesGuard } from './auth/guards.js';
import { buildNavigation, navigationPaths } from './layout/navigation.js';
import { buildRouteObjects, routeFor, ROUTES } from './routes.js';
import { makeUser } from './test/fixtures.js';

const PLAIN = [
  '/adexchanges', '/advertisers', '/applists', '/campaigns', '/channels', '/creatives', '/crelists', '/deals', '/demands',
  '/finance', '/ivts', '/log', '/login', '/managers', '/publists', '/reports', '/sdk', '/subpublishers', '/suppliers',
  '/tags', '/targetings', '/tooltips', '/',
];
const WITH_ID = ['/applications', '/pbReport', '/publishers', '/report', '/sites', '/tcreatives'];

describe('route table', () => {
  it('holds every route of spec section 2 exactly once', () => {
    const paths = ROUTES.map((r) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect([...paths].sort()).toEqual([...PLAIN, ...WITH_ID.map((p) => `${p}/:id?`)].sort());
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
          for (const path of navigationPaths(buildNavigation({ user: { ...user, config: { ...user.config, database: edition } }, mode, edition }).main)) {
            const route = routeFor(path);
            expect(route, path).toBeDefined();
            expect(passesGuard(route!.guard, user), `${user.type} ${path}`).toBe(true);
            seen.add(path);
          }
        }
      }
      expect([...seen], user.type).toEqual(expect.arrayContaining(expected));
    }
  });

  it('builds lazy routes under the frame, with a catch-all not-found route', () => {
    const [root] = buildRouteObjects();
    const [login, frame] = root.children ?? [];
    expect(login.path).toBe('/login');
    expect(typeof login.lazy).toBe('function');
    const framed = frame.children ?? [];
    expect(framed.at(-1)?.path).toBe('*');
    expect(framed.filter((r) => r.path !== '*').every((r) => typeof r.lazy === 'function' && r.errorElement)).toBe(true);
  });
});
