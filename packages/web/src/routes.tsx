import { type ComponentType } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { type Feature, FEATURE_ROUTES } from '@adplane/shared';
import { RequireGuard } from './auth/RequireGuard.js';
import { type Guard } from './auth/guards.js';
import { PageSpinner } from './components/PageSpinner.js';
import { importWithReload } from './errors/chunkReload.js';
import { RouteErrorPage } from './errors/RouteErrorPage.js';
import { AppLayout } from './layout/AppLayout.js';
import { RootShell } from './layout/RootShell.js';
import NotFoundPage from './pages/notFound/NotFoundPage.js';

type PageModule = { default: ComponentType };

export interface RouteSpec {
  /** react-router path; `:id?` marks an optional id segment. */
  path: string;
  guard: Guard;
  /** The page's own chunk. */
  page: () => Promise<PageModule>;
  /** Whether the page is inside the console frame (top bar); only the sign-in and password-reset pages are not. */
  framed: boolean;
}

/**
 * Every route has its page, loaded when first opened: `src/pages/<name>/<Name>Page.tsx` (or the
 * folder's index) with a default export. An address no route matches answers the not-found page.
 */

const login = (): Promise<PageModule> => import('./pages/login/LoginPage.js');
const dashboard = (): Promise<PageModule> => import('./pages/dashboard/DashboardPage.js');
const activityLog = (): Promise<PageModule> => import('./pages/log/index.js');

/**
 * Every route of the console (consoleRoutes.ts) with its guard. The guard of each route follows the
 * navigation bar (a route is open to every role whose bar links to it):
 * - admin: /demands, /users, /tooltips, /finance (admin links only);
 * - sdk: /sdk;
 * - demandOrAdmin: /applists (the demand Targeting menu and the admin one in SSP mode) and /log
 *   (User Activity: admin or demand, CTVMediaV2V; the server refuses everyone else);
 * - demand: the Demand, Supply and Targeting menus, /managers, /alerts (its Reports menu), and the entity pages reached from
 *   them (/applications, /publishers, /sites, /tcreatives);
 * - auth: the dashboard and reports (/report, /reports, /pbReport).
 */
export const ROUTES: readonly RouteSpec[] = [
  { path: '/login', guard: 'public', page: login, framed: false },
  {
    path: '/reset-password',
    guard: 'public',
    page: () => import('./pages/login/ResetPasswordPage.js'),
    framed: false,
  },
  { path: '/', guard: 'auth', page: dashboard, framed: true },
  { path: '/adexchanges', guard: 'demand', page: () => import('./pages/adexchanges/index.js'), framed: true },
  { path: '/advertisers', guard: 'demand', page: () => import('./pages/advertisers/index.js'), framed: true },
  { path: '/alerts', guard: 'demand', page: () => import('./pages/alerts/AlertsPage.js'), framed: true },
  { path: '/applists', guard: 'demandOrAdmin', page: () => import('./pages/applists/index.js'), framed: true },
  { path: '/campaigns', guard: 'demand', page: () => import('./pages/campaigns/index.js'), framed: true },
  { path: '/channels', guard: 'demand', page: () => import('./pages/channels/index.js'), framed: true },
  { path: '/creatives', guard: 'demand', page: () => import('./pages/creatives/index.js'), framed: true },
  { path: '/crelists', guard: 'demand', page: () => import('./pages/crelists/index.js'), framed: true },
  { path: '/deals', guard: 'demand', page: () => import('./pages/deals/index.js'), framed: true },
  { path: '/demands', guard: 'admin', page: () => import('./pages/demands/index.js'), framed: true },
  { path: '/finance', guard: 'admin', page: () => import('./pages/finance/FinancePage.js'), framed: true },
  { path: '/iplists', guard: 'demand', page: () => import('./pages/iplists/index.js'), framed: true },
  { path: '/ivts', guard: 'demand', page: () => import('./pages/ivts/index.js'), framed: true },
  { path: '/log', guard: 'demandOrAdmin', page: activityLog, framed: true },
  { path: '/managers', guard: 'demand', page: () => import('./pages/managers/index.js'), framed: true },
  { path: '/publists', guard: 'demand', page: () => import('./pages/publists/index.js'), framed: true },
  { path: '/reports', guard: 'auth', page: () => import('./pages/reports/SavedReportsPage.js'), framed: true },
  { path: '/sdk', guard: 'sdk', page: () => import('./pages/sdk/index.js'), framed: true },
  { path: '/subpublishers', guard: 'demand', page: () => import('./pages/subpublishers/index.js'), framed: true },
  { path: '/suppliers', guard: 'demand', page: () => import('./pages/suppliers/index.js'), framed: true },
  { path: '/supply-deals', guard: 'demand', page: () => import('./pages/supplyDeals/index.js'), framed: true },
  { path: '/tags', guard: 'demand', page: () => import('./pages/tags/index.js'), framed: true },
  { path: '/targetings', guard: 'demand', page: () => import('./pages/targetings/index.js'), framed: true },
  { path: '/tooltips', guard: 'admin', page: () => import('./pages/tooltips/index.js'), framed: true },
  { path: '/users', guard: 'admin', page: () => import('./pages/users/index.js'), framed: true },
  {
    path: '/applications/:id?',
    guard: 'demand',
    page: () => import('./pages/observed/applicationsPage.js'),
    framed: true,
  },
  { path: '/pbReport/:id?', guard: 'auth', page: () => import('./pages/pbReport/PbReportPage.js'), framed: true },
  { path: '/publishers/:id?', guard: 'demand', page: () => import('./pages/observed/publishersPage.js'), framed: true },
  { path: '/report/:id?', guard: 'auth', page: () => import('./pages/report/ReportPage.js'), framed: true },
  { path: '/sites/:id?', guard: 'demand', page: () => import('./pages/observed/sitesPage.js'), framed: true },
  { path: '/tcreatives/:id?', guard: 'demand', page: () => import('./pages/observed/tcreativesPage.js'), framed: true },
];

/**
 * The feature a route stands for, when its mode or edition rule applies (packages/shared
 * entitlements.ts): DSP kinds need a tenant with the DSP view, /crelists and /publists the V2V
 * edition, /managers and /log CTVMediaV2V; the server refuses their API likewise.
 */
export function featureOf(route: RouteSpec): Feature | undefined {
  return FEATURE_ROUTES[route.path];
}

/** The route table entry a path belongs to (`/report/12` -> `/report/:id?`). */
export function routeFor(pathname: string): RouteSpec | undefined {
  return ROUTES.find((route) => {
    const [base, param] = route.path.split('/:');
    if (!param) return pathname === route.path;
    return pathname === base || (pathname.startsWith(`${base}/`) && !pathname.slice(base.length + 1).includes('/'));
  });
}

function toRouteObject(route: RouteSpec): RouteObject {
  return {
    path: route.path,
    errorElement: <RouteErrorPage />,
    lazy: async () => {
      const { default: Page } = await importWithReload(route.page);
      return {
        Component: function GuardedPage() {
          return (
            <RequireGuard guard={route.guard} feature={featureOf(route)}>
              <Page />
            </RequireGuard>
          );
        },
      };
    },
  };
}

export function buildRouteObjects(): RouteObject[] {
  return [
    {
      id: 'root',
      element: <RootShell />,
      errorElement: <RouteErrorPage />,
      hydrateFallbackElement: <PageSpinner />,
      children: [
        ...ROUTES.filter((r) => !r.framed).map(toRouteObject),
        {
          element: <AppLayout />,
          children: [
            ...ROUTES.filter((r) => r.framed).map(toRouteObject),
            { path: '*', element: <NotFoundPage />, errorElement: <RouteErrorPage /> },
          ],
        },
      ],
    },
  ];
}

export function createAppRouter() {
  return createBrowserRouter(buildRouteObjects(), { basename: '/' });
}
