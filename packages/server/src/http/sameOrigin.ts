import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

/**
 * Cross-site request forgery defence of the control plane (OWASP CSRF cheat sheet: "verifying origin
 * with standard headers" and "Fetch Metadata"). The session cookie is SameSite=Lax, which still rides
 * along on a top-level cross-site GET and on any request from a sibling origin of the same site, so:
 *
 * - every state-changing /api request (any method but GET/HEAD/OPTIONS, and the GET routes that
 *   declare `config.changesState`, i.e. /api/switch and /api/auth/logout) must come from the
 *   console's own origin: `Sec-Fetch-Site` same-origin or none (typed or bookmarked), else an `Origin`
 *   or `Referer` naming this host. A request with none of these headers is not from a browser (curl,
 *   scripts, tests) and carries no victim's cookie, so it passes;
 * - every POST, PUT and PATCH under /api must be JSON (`Content-Type: application/json`): a page of
 *   another origin cannot send that without a CORS preflight, which this server never grants.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** A GET route that changes state (a plain link in the console): same-origin only. */
    changesState?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const isApi = (url: string) => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');

function hostOf(value: string): string | null {
  try {
    return new URL(value).host.toLowerCase();
  } catch {
    return null;
  }
}

/** Whether the browser headers of a request say it comes from this origin (or from no page at all). */
export function isSameOrigin(
  request: Pick<FastifyRequest, 'headers' | 'host' | 'protocol'>,
  publicHost: string,
): boolean {
  return sameOriginHeaders(request.headers, [`${request.protocol}://${request.host}`, publicHost]);
}

/**
 * The check itself, on the headers alone: Fetch Metadata's `Sec-Fetch-Site`, else an `Origin`, else
 * a `Referer`, whose host must be one of `ownOrigins`' (URLs: through URL, a default port, :80 or
 * :443, is dropped the same way on both sides); a request with none of them is from no page.
 */
export function sameOriginHeaders(
  headers: { 'sec-fetch-site'?: string | string[]; origin?: string | string[]; referer?: string | string[] },
  ownOrigins: readonly string[],
): boolean {
  const own = new Set(ownOrigins.map(hostOf).filter((h): h is string => h !== null));
  const fetchSite = headers['sec-fetch-site'];
  if (typeof fetchSite === 'string') return fetchSite === 'same-origin' || fetchSite === 'none';
  const origin = headers.origin;
  if (typeof origin === 'string') return origin !== 'null' && own.has(hostOf(origin) ?? '');
  const referer = headers.referer;
  if (typeof referer === 'string') return own.has(hostOf(referer) ?? '');
  return true;
}

function isJsonRequest(request: Pick<FastifyRequest, 'headers'>): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/json\s*(;|$)/i.test(type.trim());
}

export function installSameOriginChecks(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (!isApi(request.url)) return;
    const changesState = !SAFE_METHODS.has(request.method) || request.routeOptions.config?.changesState === true;
    if (!changesState) return;
    if (!isSameOrigin(request, app.settings.publicHost)) {
      request.log.warn(
        { origin: request.headers.origin, fetchSite: request.headers['sec-fetch-site'] },
        'cross-site request refused',
      );
      throw new HttpError(403, 'Cross-site request refused: this action must come from the adplane console itself');
    }
    if (BODY_METHODS.has(request.method) && !isJsonRequest(request)) {
      throw new HttpError(415, 'Send JSON: this request needs Content-Type: application/json (an empty body is {})');
    }
  });
}
