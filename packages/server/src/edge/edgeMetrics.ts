import { type FastifyInstance } from 'fastify';
import { type DeliveryCounters, type Refusal } from '../delivery/index.js';

/**
 * The edge's metrics on `/metrics` (ops/metrics.ts): the latencies its parts observe, the pre-bid IVT
 * check's flags, the demand loops refused, and gauges read from delivery control when scraped. Labels
 * come from bounded sets only: the source kind and its fate, the edge route, the IVT reason, the loop's
 * stage and kind, the delivery engine, stat and refusal.
 */
export function edgeMetrics(app: FastifyInstance, delivery: DeliveryCounters) {
  const m = app.metrics;
  const sourceSeconds = m.latencyHistogram(
    'adplane_demand_source_seconds',
    'Time to an answer from an external demand source, by source kind and fate',
    ['source', 'outcome'],
  );
  const requestSeconds = m.routeLatency(
    'adplane_edge_request_seconds',
    'Time to answer an ad request or tracking event on the edge, by route',
    'route',
  );
  const ivtFlagged = m.counter(
    'adplane_ivt_flagged_total',
    'Ad requests the pre-bid IVT check flagged, by reason and whether they were blocked (answered empty)',
    ['reason', 'blocked'],
  );
  const loopsRefused = m.counter(
    'adplane_demand_loops_refused_total',
    "Demand loops refused: requests of the edge's own demand calls beyond the hops allowed (stage entry), and demand URLs at its own entry points not called (stage call), by entry point or call",
    ['stage', 'kind'],
  );

  m.gauge(
    'adplane_delivery_redis_up',
    'Whether the delivery counters reach Redis (1 up, 0 down); the in-process engine reports 1',
    ['engine'],
    function () {
      const h = delivery.health();
      this.reset();
      this.set({ engine: h.engine }, h.redis === 'down' ? 0 : 1);
    },
  );
  m.gauge(
    'adplane_delivery',
    'Delivery control counts since start (held and overspend are current values; money in micro-dollars)',
    ['stat'],
    function () {
      const s = delivery.stats();
      for (const stat of [
        'admitted',
        'held',
        'expired',
        'committed',
        'committedUnreserved',
        'overAllowance',
        'overspend',
        'committedElsewhere',
        'exchanges',
        'exchangeFailures',
      ] as const)
        this.set({ stat }, s[stat]);
    },
  );
  m.gauge('adplane_delivery_refused', 'Delivery control refusals since start, by reason', ['reason'], function () {
    const refused = delivery.stats().refused;
    for (const reason of Object.keys(refused) as Refusal[]) this.set({ reason }, refused[reason]);
  });

  return {
    /** Time to a demand source's answer, by source kind and fate. */
    observeCall: (source: string, outcome: string, ms: number): void =>
      sourceSeconds.observe({ source, outcome }, ms / 1000),
    /** Time to answer an edge request, by route: each entry point observes on its own route's timer. */
    requestSeconds,
    /** The pre-bid IVT check's flag, by reason and whether it blocked. */
    ivtFlag: (reason: string, blocked: boolean) => ivtFlagged.labels(reason, blocked ? 'true' : 'false'),
    /** A demand loop refused, by stage and entry point or call. */
    loopRefused: (stage: string, kind: string): void => loopsRefused.inc({ stage, kind: kind.toLowerCase() }),
  };
}

export type EdgeMetrics = ReturnType<typeof edgeMetrics>;
