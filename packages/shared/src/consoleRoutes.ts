/**
 * The console's routes, one list for the React router and the server: the server
 * answers a path outside it with HTTP 404 (and the console's not-found page), not 200.
 * `:id?` marks an optional numeric or text id segment.
 */
export const CONSOLE_ROUTE_PATHS = [
  '/login',
  '/reset-password',
  '/',
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
  '/applications/:id?',
  '/pbReport/:id?',
  '/publishers/:id?',
  '/report/:id?',
  '/sites/:id?',
  '/tcreatives/:id?',
] as const;

const EXACT = new Set<string>(CONSOLE_ROUTE_PATHS.filter((p) => !p.endsWith('/:id?')));
const WITH_ID = new Set<string>(
  CONSOLE_ROUTE_PATHS.filter((p) => p.endsWith('/:id?')).map((p) => p.slice(0, -'/:id?'.length)),
);

/** Whether a URL path (no query) is one of the console's pages: `/report/12` is, `/report/12/x` and `/nowhere` are not. */
export function isConsolePath(pathname: string): boolean {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  if (EXACT.has(path)) return true;
  const slash = path.indexOf('/', 1);
  if (slash < 0) return WITH_ID.has(path);
  return WITH_ID.has(path.slice(0, slash)) && path.indexOf('/', slash + 1) < 0 && slash + 1 < path.length;
}
