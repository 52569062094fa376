import helmet from '@fastify/helmet';
import { type FastifyInstance } from 'fastify';
import { isHttpsHost, type Settings } from '../settings.js';

/**
 * Security headers of the control plane (the console and /api), by @fastify/helmet: a CSP the console
 * really runs under (e2e/specs/security.spec.ts loads it in Chromium and fails on any violation),
 * framing refused (frame-ancestors 'none' and X-Frame-Options DENY), nosniff, a strict
 * Referrer-Policy, HSTS when the public host is https.
 *
 * The edge (VAST, OpenRTB, tracking pixels, sellers.json) is left alone: players, SDKs and exchanges
 * of other origins load it, which Cross-Origin-Resource-Policy: same-origin would block.
 */
const EDGE_PATH = /^\/(vast|vast2|vpaid|rtb|openrtb2|ev|px|pixel|track|demo|sellers\.json|ads\.txt|app-ads\.txt)(\/|\?|$)/;

export const isEdgePath = (url: string) => EDGE_PATH.test(url);

/** The console's policy: its own scripts only; antd's CSS-in-JS needs inline styles. */
export function consoleCsp(settings: Pick<Settings, 'publicHost'>): Record<string, string[] | null> {
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

export async function installSecurityHeaders(app: FastifyInstance, settings: Pick<Settings, 'publicHost'>): Promise<void> {
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
    if (isEdgePath(request.url)) return;
    reply.helmet();
  });
}
