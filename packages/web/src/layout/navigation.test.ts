import { describe, expect, it } from 'vitest';
import { EDITIONS, MODES, type AuthUser, type Edition, type Mode } from '@adplane/shared';
import { makeUser } from '../test/fixtures.js';
import { buildNavigation, navigationPaths, selectedKeys, type Navigation, type NavItem } from './navigation.js';

type Role = 'admin' | 'demand' | 'managedDemand' | 'sub' | 'adv' | 'sdk';
const ROLES: Role[] = ['admin', 'demand', 'managedDemand', 'sub', 'adv', 'sdk'];

function userFor(role: Role, edition: Edition, extra: Partial<AuthUser> = {}): AuthUser {
  if (role === 'managedDemand') return makeUser('demand', { managerId: 3, ...extra }, edition);
  return makeUser(role, extra, edition);
}

function nav(role: Role, mode: Mode, edition: Edition, extra: Partial<AuthUser> = {}): Navigation {
  return buildNavigation({ user: userFor(role, edition, extra), mode, edition, insightHubUrl: 'https://hub.example/' });
}

function menuOf(navigation: Navigation, key: string): NavItem | undefined {
  return navigation.main.find((item) => item.key === `menu-${key}`);
}

function childPaths(item: NavItem | undefined): string[] {
  return (item?.children ?? []).map((c) => c.path ?? c.href ?? '');
}

const MATRIX = ROLES.flatMap((role) => MODES.flatMap((mode) => EDITIONS.map((edition) => ({ role, mode, edition }))));

describe('buildNavigation: the postbid report', () => {
  it('is in the Reports menu of users granted post-bid pixels (showPostbidPix or showPostbidWh), never of SDK users', () => {
    const paths = (role: Role, extra: Partial<AuthUser>) =>
      childPaths(menuOf(nav(role, 'ssp', 'default', extra), 'reports'));
    expect(paths('demand', { showPostbidPix: true })).toEqual([
      '/report',
      '/reports',
      '/alerts',
      '/report?store=1',
      '/pbReport',
    ]);
    expect(paths('managedDemand', { showPostbidWh: true })).toContain('/pbReport');
    expect(paths('sub', { showPostbidPix: true })).toContain('/pbReport');
    expect(paths('demand', { showPostbidPix: false, showPostbidWh: false })).not.toContain('/pbReport');
    expect(menuOf(nav('sdk', 'ssp', 'default', { showPostbidPix: true }), 'reports')).toBeUndefined();
  });
});

describe('buildNavigation: exact bars', () => {
  it('admin, SSP, default edition', () => {
    const n = nav('admin', 'ssp', 'default');
    expect(n.main.map((i) => i.label)).toEqual(['Dashboard', 'Demands', 'Users', 'Tooltips', 'Targeting', 'Reports']);
    expect(navigationPaths(n.main)).toEqual([
      '/',
      '/demands',
      '/users',
      '/tooltips',
      '/applists',
      '/report',
      '/reports',
      '/pbReport',
      '/finance',
    ]);
    expect(n.userMenu.map((i) => i.label)).toEqual([
      'Sign-in and API keys',
      'Settings',
      'Config',
      'Force data reload',
      'Sign Out',
    ]);
    expect(n.modeSwitch).toEqual({ current: 'ssp' });
  });

  it('admin, DSP, CTVMediaV2V edition: no Targeting menu, User Activity in Reports', () => {
    const n = nav('admin', 'dsp', 'CTVMediaV2V');
    expect(n.main.map((i) => i.label)).toEqual(['Dashboard', 'Demands', 'Users', 'Tooltips', 'Reports']);
    expect(childPaths(menuOf(n, 'reports'))).toEqual([
      '/report',
      '/reports',
      '/report?store=1',
      '/pbReport',
      '/finance',
      '/log',
    ]);
    expect(n.modeSwitch).toEqual({ current: 'dsp' });
  });

  it('demand, SSP, default edition', () => {
    const n = nav('demand', 'ssp', 'default');
    expect(n.main.map((i) => i.label)).toEqual(['Dashboard', 'Demand', 'Supply', 'Targeting', 'Reports']);
    expect(navigationPaths(n.main)).toEqual([
      '/',
      '/tags',
      '/advertisers',
      '/channels',
      '/subpublishers',
      '/supply-deals',
      '/applists',
      '/iplists',
      '/targetings',
      '/ivts',
      '/report',
      '/reports',
      '/alerts',
    ]);
    expect(n.userMenu.map((i) => i.label)).toEqual(['Profile', 'Settings', 'Force data reload', 'Sign Out']);
  });

  it('demand with showDsp, DSP, V2V edition', () => {
    const n = nav('demand', 'dsp', 'V2V', { showDsp: true });
    expect(n.main.map((i) => i.label)).toEqual([
      'Dashboard',
      'Demand',
      'Supply',
      'Targeting',
      'Reports',
      'Insight Hub',
    ]);
    expect(childPaths(menuOf(n, 'demand'))).toEqual(['/creatives', '/campaigns', '/adexchanges', '/advertisers']);
    expect(childPaths(menuOf(n, 'supply'))).toEqual(['/suppliers']);
    expect(childPaths(menuOf(n, 'targeting'))).toEqual([
      '/applists',
      '/iplists',
      '/targetings',
      '/ivts',
      '/crelists',
      '/publists',
      '/deals',
    ]);
    expect(n.userMenu.map((i) => i.testId)).toEqual([
      'user-menu-profile',
      'user-menu-settings',
      'user-menu-reload',
      'user-menu-signout',
    ]);
    expect(n.modeSwitch).toEqual({ current: 'dsp' });
  });

  it('demand without a manager, CTVMediaV2V: Managers and User Activity', () => {
    const n = nav('demand', 'ssp', 'CTVMediaV2V');
    expect(n.main.map((i) => i.label)).toEqual(['Dashboard', 'Demand', 'Supply', 'Targeting', 'Reports', 'Managers']);
    expect(childPaths(menuOf(n, 'reports'))).toEqual(['/report', '/reports', '/alerts', '/report?store=1', '/log']);
  });

  it('managed demand, CTVMediaV2V: no Managers', () => {
    const n = nav('managedDemand', 'ssp', 'CTVMediaV2V');
    expect(navigationPaths(n.main)).not.toContain('/managers');
    expect(childPaths(menuOf(n, 'reports'))).toEqual(['/report', '/reports', '/alerts', '/report?store=1', '/log']);
  });

  it('sdk: Dashboard and SDK Admin only', () => {
    for (const edition of EDITIONS) {
      const n = nav('sdk', 'ssp', edition);
      const labels = n.main.map((i) => i.label);
      expect(labels.slice(0, 2)).toEqual(['Dashboard', 'SDK Admin']);
      expect(navigationPaths(n.main)).toEqual(['/', '/sdk']);
    }
    expect(nav('sdk', 'ssp', 'default').userMenu.map((i) => i.label)).toEqual([
      'Profile',
      'Settings',
      'Force data reload',
      'Sign Out',
    ]);
  });

  it('sub and adv: Dashboard and Reports', () => {
    for (const role of ['sub', 'adv'] as const) {
      const n = nav(role, 'ssp', 'CTVMediaV2V');
      expect(n.main.map((i) => i.label)).toEqual(['Dashboard', 'Reports']);
      // no Market Report: the marketplace revenue is the tenant's
      expect(childPaths(menuOf(n, 'reports'))).toEqual(['/report', '/reports']);
    }
  });
});

describe('buildNavigation: every rule of the bar over roles x modes x editions', () => {
  it.each(MATRIX)('$role / $mode / $edition', ({ role, mode, edition }) => {
    const n = nav(role, mode, edition);
    const paths = navigationPaths(n.main);
    const isAdmin = role === 'admin';
    const isDemand = role === 'demand' || role === 'managedDemand';
    const has = (path: string) => paths.includes(path);

    // All users: Dashboard first.
    expect(n.main[0]).toMatchObject({ path: '/', label: 'Dashboard', testId: 'nav-/' });
    // Admin: Demands and Tooltips; Targeting with App Lists in SSP mode only.
    expect(has('/demands')).toBe(isAdmin);
    expect(has('/tooltips')).toBe(isAdmin);
    expect(has('/users')).toBe(isAdmin);
    if (isAdmin) expect(childPaths(menuOf(n, 'targeting'))).toEqual(mode === 'ssp' ? ['/applists'] : []);
    // Demand menu.
    expect(!!menuOf(n, 'demand')).toBe(isDemand);
    expect(has('/tags')).toBe(isDemand && mode === 'ssp');
    for (const p of ['/creatives', '/campaigns', '/adexchanges']) expect(has(p)).toBe(isDemand && mode === 'dsp');
    expect(has('/advertisers')).toBe(isDemand);
    // Supply menu.
    expect(!!menuOf(n, 'supply')).toBe(isDemand);
    expect(has('/channels')).toBe(isDemand && mode === 'ssp');
    expect(has('/subpublishers')).toBe(isDemand && mode === 'ssp');
    expect(has('/supply-deals')).toBe(isDemand && mode === 'ssp');
    expect(has('/suppliers')).toBe(isDemand && mode === 'dsp');
    // Targeting menu.
    expect(has('/applists')).toBe(isDemand || (isAdmin && mode === 'ssp'));
    expect(has('/targetings')).toBe(isDemand);
    expect(has('/ivts')).toBe(isDemand);
    expect(has('/crelists')).toBe(isDemand && edition === 'V2V');
    expect(has('/publists')).toBe(isDemand && edition === 'V2V');
    expect(has('/deals')).toBe(isDemand && mode === 'dsp');
    // sdk.
    expect(has('/sdk')).toBe(role === 'sdk');
    // Reports menu.
    expect(has('/report')).toBe(role !== 'sdk');
    expect(has('/reports')).toBe(role !== 'sdk');
    expect(has('/finance')).toBe(isAdmin);
    // the postbid report: admins, and users granted post-bid (the fixtures' users are not)
    expect(has('/pbReport')).toBe(isAdmin);
    expect(has('/log')).toBe(edition === 'CTVMediaV2V' && (isAdmin || isDemand));
    // Managers.
    expect(has('/managers')).toBe(role === 'demand' && edition === 'CTVMediaV2V');
    // Insight Hub.
    const hub = n.main.find((i) => i.key === 'insight-hub');
    expect(!!hub).toBe(edition === 'V2V');
    if (hub) expect(hub).toMatchObject({ href: 'https://hub.example/', external: true, testId: 'nav-insight-hub' });
    // User menu: Profile (an admin's: Sign-in and API keys) and Settings for all, Config for admin; the mode switch in the bar for admin.
    const actions = n.userMenu.map((i) => i.action);
    expect(n.userMenu.find((i) => i.action === 'profile')?.label).toBe(isAdmin ? 'Sign-in and API keys' : 'Profile');
    expect(actions.includes('settings')).toBe(true);
    expect(actions.includes('config')).toBe(isAdmin);
    expect(actions.includes('reload')).toBe(true);
    expect(n.modeSwitch).toEqual(isAdmin ? { current: mode } : null);
    expect(n.userMenu.at(-1)).toMatchObject({ action: 'signOut', path: '/login', label: 'Sign Out' });
    // No impersonation, no back link; no landing, the logo goes home.
    expect(n.backToAdmin).toBeNull();
    expect(n.logoHref).toBe('/');
    // Every link is a console path with a stable, unique test id.
    const ids = [...n.main.flatMap((i) => [i, ...(i.children ?? [])]), ...n.userMenu].map((i) => i.testId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const item of n.main.flatMap((i) => i.children ?? [i])) {
      if (item.path) expect(item.testId).toBe(`nav-${item.path}`);
    }
    for (const menu of n.main.filter((i) => i.children)) {
      expect(menu.testId).toMatch(/^nav-menu-(demand|supply|targeting|reports)$/);
      expect(menu.children?.length).toBeGreaterThan(0);
    }
  });
});

describe('buildNavigation: user-specific parts', () => {
  it("takes the Insight Hub link from the server's config, and shows none without one", () => {
    const withHub = userFor('demand', 'V2V', {});
    const configured = buildNavigation({
      user: { ...withHub, config: { ...withHub.config, insightHub: 'https://insights.example/' } },
      mode: 'ssp',
      edition: 'V2V',
    });
    expect(configured.main.find((i) => i.key === 'insight-hub')?.href).toBe('https://insights.example/');
    const none = buildNavigation({
      user: { ...withHub, config: { ...withHub.config, insightHub: '' } },
      mode: 'ssp',
      edition: 'V2V',
    });
    expect(none.main.find((i) => i.key === 'insight-hub')).toBeUndefined();
  });

  it("offers the mode switch to the demand users of a DSP tenant, the team member's own flag aside", () => {
    expect(nav('demand', 'ssp', 'default', { showDsp: true }).modeSwitch).toEqual({ current: 'ssp' });
    // A team member's own showDsp is off; its tenant's DSP view is what counts.
    expect(nav('managedDemand', 'dsp', 'default', { showDsp: false, tenantShowDsp: true }).modeSwitch).toEqual({
      current: 'dsp',
    });
    expect(nav('managedDemand', 'ssp', 'default', { showDsp: true, tenantShowDsp: false }).modeSwitch).toBeNull();
  });

  it('shows no mode to sub, adv and sdk users, whatever their tenant or flags', () => {
    for (const role of ['sub', 'adv', 'sdk'] as const) {
      expect(nav(role, 'ssp', 'default', { showDsp: true, tenantShowDsp: true }).modeSwitch, role).toBeNull();
    }
  });

  it('links back to the admin while impersonating', () => {
    const n = nav('demand', 'ssp', 'default', { adminId: 42 });
    expect(n.backToAdmin).toEqual({
      key: 'back-to-admin',
      label: 'Back to admin',
      href: '/api/switch?type=admin&id=42',
      testId: 'nav-back-to-admin',
    });
  });

  it('points the logo at config.landing when set', () => {
    const user = makeUser('demand');
    user.config = { ...user.config, landing: 'https://www.example.com/' };
    expect(buildNavigation({ user, mode: 'ssp', edition: 'default' }).logoHref).toBe('https://www.example.com/');
  });
});

describe('selectedKeys', () => {
  const n = nav('demand', 'ssp', 'default');
  it('highlights the menu and the entry of the current page', () => {
    expect(selectedKeys(n.main, '/channels')).toEqual(['menu-supply', '/channels']);
    expect(selectedKeys(n.main, '/')).toEqual(['/']);
    expect(selectedKeys(n.main, '/report/12')).toEqual(['menu-reports', '/report']);
    expect(selectedKeys(n.main, '/nowhere')).toEqual([]);
  });
});
