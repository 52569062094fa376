import { EVENT_PATH, VAST_ROUTE, vastTagPath } from '@adplane/shared';
import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { type EdgeRequest, type EdgeResponse } from '../http/edgeHttp.js';
import { type RouteLatency } from '../ops/metrics.js';
import { debugAnswer } from './debug/debugEndpoint.js';
import { corsHeaders, preflight } from './doors/cors.js';
import { type EdgeEntry } from './doors/edge.js';
import { answerEvent, type EventDeps } from './doors/trackingEvents.js';
import { handleVast, type VastRequestDeps } from './doors/vastRequest.js';

const VAST_PREFIX = vastTagPath('');

/** The edge's routing: what the raw server calls before Fastify, and where the doors register. */
export interface EdgeRouter {
  /** Answers an edge request from the raw server; false when it is not one (or needs Fastify). */
  serveRaw(req: EdgeRequest, res: EdgeResponse): boolean;
  /** Adds an entry point answered from the raw server, and through Fastify for `inject` (doors/edge.ts `Edge.addEntry`). */
  addEntry(entry: EdgeEntry): void;
}

/**
 * Routes the edge's paths. `serveRaw` answers /vast/<uid> and /ev straight from node's request (the
 * listening server calls it before Fastify, http/edgeLane.ts) and every entry a door added; Fastify
 * routes the same handlers for `inject` and for debug=1 (which needs the sign-in cookie). A failed
 * entry answers 204 and goes to `deps.onError`.
 */
export function edgeRouter(app: FastifyInstance, deps: VastRequestDeps, eventDeps: EventDeps, requestSeconds: RouteLatency): EdgeRouter {
  const vastTimer = requestSeconds.labels('vast');
  /** A VAST request's time, from `started` (no closure for one answered in its own turn). */
  const observeVast = (started: number): void => vastTimer.observe((performance.now() - started) / 1000);
  const eventTimer = requestSeconds.labels('ev');

  const entries: EdgeEntry[] = [];
  /** The registered entry for a method and path, with the rest of a prefix path. */
  const entryFor = (method: string, path: string): { entry: EdgeEntry; rest: string } | null => {
    for (const entry of entries) {
      if (entry.method !== method) continue;
      if (entry.path.endsWith('/') ? path.startsWith(entry.path) && path.length > entry.path.length : path === entry.path) {
        return { entry, rest: entry.path.endsWith('/') ? safeDecode(path.slice(entry.path.length)) : '' };
      }
    }
    return null;
  };
  const runEntry = (found: { entry: EdgeEntry; rest: string }, req: EdgeRequest, res: EdgeResponse, search: URLSearchParams): Promise<void> =>
    Promise.resolve()
      .then(() => found.entry.handle(req, res, found.rest, search))
      .catch((error: unknown) => {
        deps.onError(error);
        if (!res.headersSent) {
          res.writeHead(204, { 'cache-control': 'no-store' });
          res.end();
        }
      });

  const router: EdgeRouter = {
    addEntry(entry) {
      entries.push(entry);
      const route = entry.path.endsWith('/') ? `${entry.path}*` : entry.path;
      void app.register(async (scope) => {
        // The entry reads the raw body itself, once: Fastify must leave the stream unread.
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
        scope.route({
          method: entry.method,
          url: route,
          handler: async (request, reply) => {
            reply.hijack();
            const path = (request.raw.url ?? '').split('?')[0]!;
            const found = entryFor(entry.method, path);
            if (found) await runEntry(found, request.raw, reply.raw, searchOf(request));
            else {
              reply.raw.writeHead(404);
              reply.raw.end();
            }
          },
        });
      });
    },
    serveRaw(req, res) {
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      if (req.method !== 'GET') {
        if (req.method === 'HEAD' && path === EVENT_PATH) {
          answerEvent(eventDeps, url, 'HEAD', req.headers, res);
          return true;
        }
        if (req.method === 'HEAD' && path.startsWith(VAST_PREFIX)) {
          vastHeadersOnly(req, res);
          return true;
        }
        const found = entries.length ? entryFor(req.method ?? '', path) : null;
        if (!found) return false;
        void runEntry(found, req, res, new URLSearchParams(q < 0 ? '' : url.slice(q + 1)));
        return true;
      }
      if (path === EVENT_PATH) {
        const started = performance.now();
        answerEvent(eventDeps, url, 'GET', req.headers, res);
        eventTimer.observe((performance.now() - started) / 1000);
        return true;
      }
      const search = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
      if (path.startsWith(VAST_PREFIX) && search.get('debug') !== '1') {
        const uid = safeDecode(path.slice(VAST_PREFIX.length));
        const started = performance.now();
        const answering = handleVast(deps, req, res, uid, search);
        if (answering) void answering.finally(() => observeVast(started));
        else observeVast(started);
        return true;
      }
      const found = entries.length ? entryFor('GET', path) : null;
      if (!found) return false;
      void runEntry(found, req, res, search);
      return true;
    },
  };

  // (Fastify answers HEAD with a GET route's handler: both handlers check)
  app.get(EVENT_PATH, (request, reply) => {
    reply.hijack();
    answerEvent(eventDeps, request.raw.url ?? '', request.method, request.headers, reply.raw);
  });
  app.get<{ Params: { uid: string } }>(VAST_ROUTE, async (request, reply) => {
    if (request.method !== 'GET') {
      reply.hijack();
      return vastHeadersOnly(request.raw, reply.raw);
    }
    const search = searchOf(request);
    if (search.get('debug') === '1') return debugAnswer(app, request, reply, deps, search);
    reply.hijack();
    await handleVast(deps, request.raw, reply.raw, request.params.uid, search);
  });
  // a page's CORS preflight on the player's paths: allowed
  for (const path of [VAST_PREFIX, EVENT_PATH]) router.addEntry({ method: 'OPTIONS', path, handle: (req, res) => preflight(req, res, 'GET, HEAD, OPTIONS') });
  return router;
}

/**
 * HEAD on /vast (a link checker, a chat app's preview, a prefetcher): the headers a GET would get,
 * without a decision or a count: no ad plays from it, so it must neither hold budget nor count a
 * request. (HEAD on /ev: handleEvent, counting nothing.)
 */
function vastHeadersOnly(req: EdgeRequest, res: EdgeResponse): void {
  res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'no-store', ...corsHeaders(req) });
  res.end();
}

function safeDecode(s: string): string {
  // (a channel uid is plain ASCII: nothing to decode)
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function searchOf(request: FastifyRequest): URLSearchParams {
  const url = request.raw.url ?? '';
  const q = url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
}
