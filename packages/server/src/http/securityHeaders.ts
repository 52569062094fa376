import { type ServerResponse } from 'node:http';
import helmet from '@fastify/helmet';
import { type FastifyInstance } from 'fastify';
import { isHttpsHost, type Settings } from '../settings.js';

/**
 * Security headers. The control plane (the console and /api) gets @fastify/helmet's: a CSP the
 * console really runs under (e2e/specs/security.spec.ts loads it in Chromium and fails on any
 * violation), framing refused (frame-ancestors 'none' and X-Frame-Options DENY), nosniff, a strict
 * Referrer-Policy, Cross-Origin-Opener- and -Resource-Policy same-origin, HSTS when the public host
 * is https.
 *
 * The edge is loaded by other origins: players (VAST, the media files adplane hosts, tracking
 * pixels, click redirects), Prebid.js and AMP pages (auction, Prebid Cache, user sync, events),
 * exchanges and suppliers, crawlers. None of the console's headers apply there (a player's <video>
 * or <img> of another origin is refused a resource of Cross-Origin-Resource-Policy same-origin);
 * every edge answer says `Cross-Origin-Resource-Policy: cross-origin` instead, which a publisher's
 * page under `Cross-Origin-Embedder-Policy: require-corp` needs to load it without CORS. CORS
 * itself is each entry point's (edge/doors/cors.ts).
 *
 * EDGE_PATHS is the one list of the edge's paths, read on each way a request is answered: by
 * Fastify (the hook below), by node:http before Fastify, and by the edge lane, whose answers are
 * all the edge's (app.ts). An entry ending in '/' is a prefix; any other is a path and what lies
 * under it (`/info/bidders` and `/info/bidders/adplane`, not `/info/biddersx`).
 * test/security/edgeHeaders.test.ts checks it against the routes the app registers.
 */
export const EDGE_PATHS = [
  // players: VAST tags, tracking events and click redirects, the media files adplane hosts, the demo's demand partner
  '/vast/',
  '/ev',
  '/media/',
  '/demo/',
  // Prebid Server's endpoints, which Prebid.js and AMP pages call (and /optout, a page a person opens)
  '/openrtb2/',
  '/cache',
  '/vtrack',
  '/event',
  '/status',
  '/cookie_sync',
  '/setuid',
  '/getuids',
  '/optout',
  '/info/bidders',
  '/bidders/params',
  // exchanges and suppliers (bids, win notices, sync pixels), postbacks, crawlers
  '/rtb/',
  '/pb/',
  '/sellers.json',
] as const;

const escaped = (path: string) => path.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
const EDGE_PATH = new RegExp(
  `^(?:${EDGE_PATHS.map((p) => (p.endsWith('/') ? escaped(p) : `${escaped(p)}(?:[/?#]|$)`)).join('|')})`,
);

/** Whether a request's URL (path and query) is the edge's. */
export const isEdgePath = (url: string): boolean => EDGE_PATH.test(url);

/** The headers every answer of the edge carries. */
export const EDGE_HEADERS: Readonly<Record<string, string>> = { 'cross-origin-resource-policy': 'cross-origin' };

/** Sets EDGE_HEADERS on a response before its handler writes the head. */
export function setEdgeHeaders(res: Pick<ServerResponse, 'setHeader'>): void {
  for (const name in EDGE_HEADERS) res.setHeader(name, EDGE_HEADERS[name]!);
}

/** The console's policy: its own scripts only; antd's CSS-in-JS needs inline styles. */
function consoleCsp(settings: Pick<Settings, 'publicHost'>): Record<string, string[] | null> {
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    // Creative previews show images and videos from the advertisers' CDNs.
    'img-src': ["'self'", 'data:', 'blob:', 'https:', 'http:'],
    'media-src': ["'self'", 'blob:', 'https:', 'http:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
    // HTML creatives run in the sandboxed preview document of this origin (web/creativePreview.ts).
    'frame-src': ["'self'"],
    'worker-src': ["'self'", 'blob:'],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    // Only when served over https: on a plain-http install it would break every request.
    'upgrade-insecure-requests': isHttpsHost(settings) ? [] : null,
  };
}

export async function installSecurityHeaders(
  app: FastifyInstance,
  settings: Pick<Settings, 'publicHost'>,
): Promise<void> {
  await app.register(helmet, {
    global: false,
    contentSecurityPolicy: { useDefaults: false, directives: consoleCsp(settings) },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: isHttpsHost(settings) ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });
  app.addHook('onRequest', async (request, reply) => {
    // (on the raw response: the edge's handlers write their heads there themselves)
    if (isEdgePath(request.url)) setEdgeHeaders(reply.raw);
    else reply.helmet();
  });
}
