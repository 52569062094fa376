import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isConsolePath } from '@adplane/shared';
import { isEdgePath } from '../http/securityHeaders.js';

const NOT_SPA = /^\/(api|healthz|metrics)(\/|\?|$)/;
/** A path whose last segment has an extension names a file; a missing one is a 404, not the app. */
const LOOKS_LIKE_FILE = /\/[^/?]+\.[A-Za-z0-9]+(\?|$)/;

function consoleIsBuilt(webDist: string): boolean {
  return existsSync(join(webDist, 'index.html'));
}

/**
 * The React console: files of the built bundle, and index.html for every other GET so that history
 * mode routes (/campaigns, /report/12) load the app. Hashed assets are cached for a year, index.html
 * never (a deploy must reach every browser). A file's Brotli or gzip copy, written beside it by the
 * console's build, goes to a browser that accepts it.
 */
export async function registerConsole(app: FastifyInstance, webDist: string): Promise<boolean> {
  if (!consoleIsBuilt(webDist)) {
    app.log.warn({ webDist }, 'console bundle not found: serving the API only (run npm run build)');
    return false;
  }
  await app.register(fastifyStatic, {
    root: webDist,
    prefix: '/',
    preCompressed: true,
    cacheControl: false,
    setHeaders(res, path) {
      res.setHeader('cache-control', path.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
    },
  });
  return true;
}

/**
 * Whether a request that matched no route should get the console's index.html: never under the
 * edge's paths, which answer without the console's headers (a console there could be framed).
 */
export function wantsConsole(request: FastifyRequest): boolean {
  return (
    (request.method === 'GET' || request.method === 'HEAD') &&
    !NOT_SPA.test(request.url) &&
    !LOOKS_LIKE_FILE.test(request.url) &&
    !isEdgePath(request.url)
  );
}

/**
 * index.html, with 200 for a page of the console's route table and 404 for any other path (the
 * console then shows its not-found page): a wrong link is a 404 to crawlers, monitors and people.
 */
export function sendConsole(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = (request.url.split('?')[0] ?? '/').split('#')[0]!;
  return reply
    .code(isConsolePath(path) ? 200 : 404)
    .header('cache-control', 'no-cache')
    .sendFile('index.html');
}
