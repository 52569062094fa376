import { type RouteLatency } from '../../ops/metrics.js';
import { type EdgeRequest, type EdgeResponse } from '../../http/edgeHttp.js';
import { type DeliveryGate } from '../auction/deliveryGate.js';
import { type HourlyCounters } from '../counters/hourlyCounters.js';
import { type CurrencyFeed } from '../ortb/currency.js';
import { type SnapshotHolder } from '../snapshot/snapshotHolder.js';
import { type VastRequestDeps } from './vastRequest.js';

/**
 * The edge plane inside the adplane app, as its doors and the rest of the app see it: the snapshot
 * (built before the app is ready, then kept fresh), the counters (flushed every few seconds and before
 * the app closes, so SIGTERM loses nothing), delivery control, and the entry points. It is composed in
 * edgePlugin.ts `installEdge` and decorated onto the app as `app.edge`.
 */
export interface Edge {
  snapshots: SnapshotHolder;
  counters: HourlyCounters;
  pacing: DeliveryGate;
  deps: VastRequestDeps | null;
  /** Exchange rates for demand and supply in other currencies than USD (ortb/currency.ts; `current` never waits). */
  currency: CurrencyFeed;
  /** Time to answer an edge request, by route (`adplane_edge_request_seconds`): an entry point observes on its own route's timer. */
  requestSeconds: RouteLatency;
  /**
   * Answers an edge request from the listening server (the edge lane, and node:http for what the lane
   * hands over); false when it is not one (or is `debug=1` on /vast, which Fastify answers).
   */
  serveRaw(req: EdgeRequest, res: EdgeResponse): boolean;
  /**
   * Adds an entry point to the edge's one route table (edgeRouter.ts), which `serveRaw` reads: the
   * OpenRTB and Prebid Server endpoints register here from their own modules. `path` is exact, or a
   * prefix when it ends with '/' (the rest of the path is handed to the handler, URI-decoded; the
   * longest prefix wins). A HEAD is answered by the path's GET entry unless it has its own.
   */
  addEntry(entry: EdgeEntry): void;
  /** Every route of the edge's table, in the order added. */
  routes(): EdgeRoute[];
  flush(): Promise<void>;
}

/** A route of the edge's table: a method and an exact path, or a prefix ending in '/'. */
export interface EdgeRoute {
  method: 'GET' | 'HEAD' | 'POST' | 'OPTIONS';
  path: string;
}

export interface EdgeEntry extends EdgeRoute {
  handle(req: EdgeRequest, res: EdgeResponse, rest: string, search: URLSearchParams): void | Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    edge: Edge;
  }
}
