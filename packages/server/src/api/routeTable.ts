import { type GuardedRoute } from '../auth/guards.js';
import { serverPath } from '../serverRoot.js';

/** docs/routes.md at the repository root; rewritten by `npm run docs:routes -w @adplane/server`. */
export const ROUTES_DOC_PATH = serverPath('../../docs/routes.md');

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

const GUARD_MEANING = [
  ['public', 'anyone, signed in or not'],
  ['auth', 'any signed-in user (the handler may refine: e.g. /api/switch needs an admin behind the session)'],
  ['admin', 'user type admin'],
  ['demand', 'user type demand'],
  ['sdk', 'user type sdk'],
] as const;

/** The route table of docs/routes.md, from the registry the guard hook fills at start. */
export function renderRouteTable(registry: readonly GuardedRoute[]): string {
  const rows = [...registry].sort(
    (a, b) => a.url.localeCompare(b.url) || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
  );
  return [
    '# API routes and their guards',
    '',
    '<!-- Generated from the running route registry by packages/server/src/api/routeTable.ts.',
    '     Do not edit: run `npm run docs:routes -w @adplane/server`. A test fails when this file drifts. -->',
    '',
    'Every route under `/api` declares a guard; the server refuses to start otherwise. A caller that',
    'does not pass the guard gets `403 {"message":"Forbidden"}` (the console then goes to /login).',
    '',
    '| Guard | Who passes |',
    '|---|---|',
    ...GUARD_MEANING.map(([guard, meaning]) => `| \`${guard}\` | ${meaning} |`),
    '',
    '| Method | Path | Guard |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r.method} | \`${r.url}\` | ${r.guard} |`),
    '',
  ].join('\n');
}
