import { EVENT_PATH, VAST_ROUTE, vastTagPath } from '@adplane/shared';
import { type FastifyInstance } from 'fastify';
import { type EdgeRequest, type EdgeResponse } from '../http/edgeHttp.js';
import { type RouteLatency } from '../ops/metrics.js';
import { debugAnswer } from './debug/debugEndpoint.js';
import { corsHeaders, preflight } from './doors/cors.js';
import { type EdgeEntry, type EdgeRoute } from './doors/edge.js';
import { answerEvent, type EventDeps } from './doors/trackingEvents.js';
import { handleVast, type VastRequestDeps } from './doors/vastRequest.js';

const VAST_PREFIX = vastTagPath('');

/** The edge's routing: what the listening server calls before Fastify, and where the doors register. */
export interface EdgeRouter {
  /** Answers an edge request; false when it is not one (or is `debug=1` on /vast, which Fastify answers). */
  serveRaw(req: EdgeRequest, res: EdgeResponse): boolean;
  /** Adds an entry point to the edge's route table (doors/edge.ts `Edge.addEntry`). */
  addEntry(entry: EdgeEntry): void;
  /** Every route of the table, in the order added. */
  routes(): EdgeRoute[];
}

/**
 * The edge's one route table: every route it serves, by method, an exact path or a prefix (a path
 * ending in '/', matched when something follows it; the longest prefix wins). A HEAD finds the GET
 * route of its path when there is no HEAD route (the answer's head alone goes out).
 */
class RouteTable {
  private readonly exact = new Map<string, EdgeEntry>();
  private readonly prefixes: EdgeEntry[] = [];
  readonly all: EdgeEntry[] = [];

  add(entry: EdgeEntry): void {
    const prefix = entry.path.endsWith('/');
    const key = `${entry.method} ${entry.path}`;
    if (this.exact.has(key) || this.prefixes.some((p) => p.method === entry.method && p.path === entry.path))
      throw new Error(`edge route ${key} is added twice`);
    this.all.push(entry);
    if (!prefix) this.exact.set(key, entry);
    else {
      this.prefixes.push(entry);
      this.prefixes.sort((a, b) => b.path.length - a.path.length);
    }
  }

  /** The route of a method and path, with the rest of a prefix path (URI-decoded). */
  find(method: string, path: string): { entry: EdgeEntry; rest: string } | null {
    return this.lookup(method, path) ?? (method === 'HEAD' ? this.lookup('GET', path) : null);
  }

  private lookup(method: string, path: string): { entry: EdgeEntry; rest: string } | null {
    const entry = this.exact.get(`${method} ${path}`);
    if (entry) return { entry, rest: '' };
    for (const p of this.prefixes) {
      if (p.method === method && path.length > p.path.length && path.startsWith(p.path))
        return { entry: p, rest: safeDecode(path.slice(p.path.length)) };
    }
    return null;
  }
}

/**
 * Routes the edge's paths from one table: the listening server calls `serveRaw` for every request
 * (the edge lane, http/edgeLane.ts, and node:http's handler for what the lane hands over, app.ts), so
 * an edge request is answered the same way whichever reads it. GET /ev and GET /vast/<uid>, the hot
 * paths, are checked ahead of the lookup and call their routes' handlers directly. Fastify routes one
 * edge request: `debug=1` on /vast, which needs the console's sign-in cookie and session. A failed
 * entry answers 204 and goes to `deps.onError`.
 */
export function edgeRouter(
  app: FastifyInstance,
  deps: VastRequestDeps,
  eventDeps: EventDeps,
  requestSeconds: RouteLatency,
): EdgeRouter {
  const vastTimer = requestSeconds.labels('vast');
  /** A VAST request's time, from `started` (no closure for one answered in its own turn). */
  const observeVast = (started: number): void => vastTimer.observe((performance.now() - started) / 1000);
  const eventTimer = requestSeconds.labels('ev');

  const serveEvent = (req: EdgeRequest, res: EdgeResponse): void => {
    const started = performance.now();
    answerEvent(eventDeps, req.url ?? '', 'GET', req.headers, res);
    eventTimer.observe((performance.now() - started) / 1000);
  };
  const serveVast = (req: EdgeRequest, res: EdgeResponse, uid: string, search: URLSearchParams): void => {
    const started = performance.now();
    const answering = handleVast(deps, req, res, uid, search);
    // an answer that failed after its decision (the socket's write) goes where a failed entry's does
    if (answering) void answering.catch((error: unknown) => deps.onError(error)).finally(() => observeVast(started));
    else observeVast(started);
  };

  const table = new RouteTable();
  const runEntry = (
    found: { entry: EdgeEntry; rest: string },
    req: EdgeRequest,
    res: EdgeResponse,
    search: URLSearchParams,
  ): Promise<void> =>
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
    addEntry: (entry) => table.add(entry),
    routes: () => table.all.map(({ method, path }) => ({ method, path })),
    serveRaw(req, res) {
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      if (req.method === 'GET') {
        if (path === EVENT_PATH) {
          serveEvent(req, res);
          return true;
        }
        if (path.startsWith(VAST_PREFIX)) {
          const search = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
          if (search.get('debug') === '1') return false;
          serveVast(req, res, safeDecode(path.slice(VAST_PREFIX.length)), search);
          return true;
        }
      }
      const found = table.find(req.method ?? '', path);
      if (!found) return false;
      void runEntry(found, req, res, new URLSearchParams(q < 0 ? '' : url.slice(q + 1)));
      return true;
    },
  };

  // the player's paths (GET is answered ahead of the lookup, above)
  router.addEntry({ method: 'GET', path: EVENT_PATH, handle: serveEvent });
  router.addEntry({
    method: 'HEAD',
    path: EVENT_PATH,
    handle: (req, res) => answerEvent(eventDeps, req.url ?? '', 'HEAD', req.headers, res),
  });
  router.addEntry({
    method: 'GET',
    path: VAST_PREFIX,
    handle: (req, res, uid, search) => serveVast(req, res, uid, search),
  });
  router.addEntry({ method: 'HEAD', path: VAST_PREFIX, handle: vastHeadersOnly });
  // a page's CORS preflight on the player's paths: allowed
  for (const path of [VAST_PREFIX, EVENT_PATH])
    router.addEntry({ method: 'OPTIONS', path, handle: (req, res) => preflight(req, res, 'GET, HEAD, OPTIONS') });

  // debug=1: the decision with its trace, for a signed-in user of the channel's tenant (serveRaw leaves
  // it to Fastify); any other request of this route is the table's, never answered here
  app.get<{ Params: { uid: string } }>(VAST_ROUTE, { exposeHeadRoute: false }, async (request, reply) => {
    const url = request.raw.url ?? '';
    const q = url.indexOf('?');
    const search = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    if (search.get('debug') !== '1') return reply.callNotFound();
    return debugAnswer(app, request, reply, deps, search);
  });
  return router;
}

/**
 * HEAD on /vast (a link checker, a chat app's preview, a prefetcher): the headers a GET would get,
 * without a decision or a count: no ad plays from it, so it must neither hold budget nor count a
 * request. (HEAD on /ev: answerEvent, counting nothing.)
 */
function vastHeadersOnly(req: EdgeRequest, res: EdgeResponse): void {
  res.writeHead(200, {
    'content-type': 'application/xml; charset=utf-8',
    'cache-control': 'no-store',
    ...corsHeaders(req),
  });
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
