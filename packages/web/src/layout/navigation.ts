import {
  type AuthUser,
  type Edition,
  editionHas,
  isMetricVisible,
  type Mode,
  postbidReportRefusal,
} from '@adplane/shared';
import { canSwitchMode } from '../prefs/mode.js';

/**
 * The navigation bar by role as data: the bar, the dashboard and the tests all read
 * this one model, so they cannot disagree.
 *
 * Test ids (end-to-end tests rely on them):
 * - a link to a console route: `nav-<path>` (`nav-/`, `nav-/tags`, `nav-/finance`);
 * - a menu: `nav-menu-<key>` (`nav-menu-demand`, `nav-menu-supply`, `nav-menu-targeting`, `nav-menu-reports`);
 * - the Insight Hub link: `nav-insight-hub`; the back-to-admin link: `nav-back-to-admin`; the logo: `nav-logo`;
 * - the user menu: `user-menu`, its items `user-menu-profile`, `user-menu-settings`, `user-menu-config`,
 *   `user-menu-reload`, `user-menu-signout`;
 * - the SSP | DSP switch in the bar (only for those who may switch): `mode-switch`.
 */
export type NavAction = 'profile' | 'settings' | 'config' | 'reload' | 'signOut';

export interface NavItem {
  key: string;
  label: string;
  testId: string;
  /** A console route, opened by the router. */
  path?: string;
  /** A full-page link: a server route (impersonation switch) or an external site. */
  href?: string;
  /** External sites always open in a new tab. */
  external?: boolean;
  /** A user-menu command instead of a link. */
  action?: NavAction;
  /** A menu: its entries. */
  children?: NavItem[];
}

export interface NavigationInput {
  user: AuthUser;
  mode: Mode;
  edition: Edition;
  /** Where the Insight Hub link of the V2V edition goes. */
  insightHubUrl?: string;
}

export interface Navigation {
  /** The bar, left to right. */
  main: NavItem[];
  /** The user menu at the right of the bar, top to bottom. */
  userMenu: NavItem[];
  /** The link back to the admin while an admin is impersonating this user. */
  backToAdmin: NavItem | null;
  /** Where the logo links: config.landing when set, else the dashboard. */
  logoHref: string;
  /**
   * The SSP | DSP switch in the bar, with the view that is on; null for those who may not switch
   * (the shared rule the server applies to PUT /api/ui/mode), who are shown no mode at all.
   */
  modeSwitch: { current: Mode } | null;
}

/** Where the Market report helper opens: the prefilled marketplace report. */
const MARKET_REPORT_HREF = '/report?store=1';

function link(path: string, label: string): NavItem {
  return { key: path, label, path, testId: `nav-${path}` };
}

function menu(key: string, label: string, children: NavItem[]): NavItem {
  return { key: `menu-${key}`, label, testId: `nav-menu-${key}`, children };
}

function command(action: NavAction, label: string, testId: string, path?: string): NavItem {
  return { key: `action-${action}`, label, action, testId, ...(path ? { path } : {}) };
}

function backToAdminHref(adminId: number): string {
  return `/api/switch?type=admin&id=${adminId}`;
}

function demandMenu(mode: Mode): NavItem {
  const items =
    mode === 'ssp'
      ? [link('/tags', 'Tags')]
      : [link('/creatives', 'Creatives'), link('/campaigns', 'Campaigns'), link('/adexchanges', 'Ad Exchanges')];
  return menu('demand', 'Demand', [...items, link('/advertisers', 'Advertisers')]);
}

function supplyMenu(mode: Mode): NavItem {
  const items =
    mode === 'ssp'
      ? [link('/channels', 'Channels'), link('/subpublishers', 'Subpublishers'), link('/supply-deals', 'Supply Deals')]
      : [link('/suppliers', 'Suppliers')];
  return menu('supply', 'Supply', items);
}

function targetingMenu(user: AuthUser, mode: Mode, edition: Edition): NavItem | null {
  if (user.type === 'admin')
    return mode === 'ssp' ? menu('targeting', 'Targeting', [link('/applists', 'App Lists')]) : null;
  if (user.type !== 'demand') return null;
  const items = [
    link('/applists', 'App Lists'),
    link('/iplists', 'IP Lists'),
    link('/targetings', 'Targetings'),
    link('/ivts', '3rd Party Pixels'),
  ];
  // Edition-only pages follow the shared rule the server and the route guards apply (entitlements.ts).
  if (editionHas('crelists', edition)) items.push(link('/crelists', 'Creative Lists'));
  if (editionHas('publists', edition)) items.push(link('/publists', 'Publisher Lists'));
  if (mode === 'dsp') items.push(link('/deals', 'Deals'));
  return menu('targeting', 'Targeting', items);
}

function reportsMenu(user: AuthUser, edition: Edition): NavItem | null {
  if (user.type === 'sdk') return null;
  const items = [link('/report', 'Create Report'), link('/reports', 'Saved Reports')];
  // The tenant's alert rules and their history, beside the reports whose numbers they watch.
  if (user.type === 'demand') items.push(link('/alerts', 'Alerts'));
  // The Market report helper: the prefilled marketplace report, in a new tab, for
  // whom the marketplace revenue is theirs to see (visibility.ts).
  if (isMetricVisible(user, 'rev_m'))
    items.push({ key: 'market-report', label: 'Market Report', href: MARKET_REPORT_HREF, testId: 'nav-market-report' });
  // The postbid report: admins and users the admin granted post-bid (showPostbidPix or showPostbidWh).
  if (!postbidReportRefusal(user)) items.push(link('/pbReport', 'Postbid Report'));
  if (user.type === 'admin') items.push(link('/finance', 'Financial Report'));
  if (editionHas('activity', edition) && (user.type === 'admin' || user.type === 'demand'))
    items.push(link('/log', 'User Activity'));
  return menu('reports', 'Reports', items);
}

export function buildNavigation({
  user,
  mode,
  edition,
  insightHubUrl = user.config.insightHub ?? '',
}: NavigationInput): Navigation {
  const main: NavItem[] = [link('/', 'Dashboard')];
  if (user.type === 'admin')
    main.push(link('/demands', 'Demands'), link('/users', 'Users'), link('/tooltips', 'Tooltips'));
  if (user.type === 'demand') main.push(demandMenu(mode), supplyMenu(mode));
  const targeting = targetingMenu(user, mode, edition);
  if (targeting) main.push(targeting);
  if (user.type === 'sdk') main.push(link('/sdk', 'SDK Admin'));
  const reports = reportsMenu(user, edition);
  if (reports) main.push(reports);
  if (user.type === 'demand' && user.managerId == null && editionHas('managers', edition))
    main.push(link('/managers', 'Managers'));
  // The V2V edition's analytics site, where the deployment has one (ADPLANE_INSIGHT_HUB_URL).
  if (edition === 'V2V' && insightHubUrl) {
    main.push({
      key: 'insight-hub',
      label: 'Insight Hub',
      href: insightHubUrl,
      external: true,
      testId: 'nav-insight-hub',
    });
  }

  const userMenu: NavItem[] = [];
  // An admin has no profile; the same modal holds its API keys, password and two-factor sign-in.
  userMenu.push(command('profile', user.type === 'admin' ? 'Sign-in and API keys' : 'Profile', 'user-menu-profile'));
  userMenu.push(command('settings', 'Settings', 'user-menu-settings'));
  if (user.type === 'admin') userMenu.push(command('config', 'Config', 'user-menu-config'));
  userMenu.push(command('reload', 'Force data reload', 'user-menu-reload'));
  userMenu.push(command('signOut', 'Sign Out', 'user-menu-signout', '/login'));

  const backToAdmin: NavItem | null =
    user.adminId != null
      ? {
          key: 'back-to-admin',
          label: 'Back to admin',
          href: backToAdminHref(user.adminId),
          testId: 'nav-back-to-admin',
        }
      : null;

  return {
    main,
    userMenu,
    backToAdmin,
    logoHref: user.config?.landing || '/',
    modeSwitch: canSwitchMode(user) ? { current: mode } : null,
  };
}

/** Every console route the navigation links to, menus flattened, in bar order. */
export function navigationPaths(items: readonly NavItem[]): string[] {
  return items.flatMap((item) => (item.children ? navigationPaths(item.children) : item.path ? [item.path] : []));
}

/** The key of the bar entry that holds the current location (for highlighting). */
export function selectedKeys(items: readonly NavItem[], pathname: string): string[] {
  const first = `/${pathname.split('/')[1] ?? ''}`;
  const keys: string[] = [];
  for (const item of items) {
    if (item.children) {
      const child = item.children.find((c) => c.path === first);
      if (child) keys.push(item.key, child.key);
    } else if (item.path === first) keys.push(item.key);
  }
  return keys;
}
