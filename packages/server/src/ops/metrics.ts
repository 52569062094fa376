import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Operational metrics of one adplane process, in prom-client's registry (one per app, so that tests
 * building many apps never share counters). Served at /metrics (ops/routes.ts), restricted by
 * ops/metricsAccess.ts. A plane adds its own through the helpers:
 *
 *   const bidLatency = app.metrics.latencyHistogram('adplane_demand_source_seconds',
 *     'Time to an answer from a demand source, by source and outcome', ['source', 'outcome']);
 *   const end = bidLatency.startTimer({ source: 'openrtb:42' }); ... end({ outcome: 'bid' });
 *
 * Label values must come from a bounded set (route patterns, source ids), never raw URLs or input.
 */
export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Seconds: from a 1 ms edge answer to a 10 s report query. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createAppMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [registry] });
  }
  function gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = [], collect?: (this: Gauge<L>) => void): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [registry], ...(collect ? { collect } : {}) });
  }
  /** A latency histogram in seconds with the shared buckets (or your own). */
  function latencyHistogram<L extends string>(name: string, help: string, labelNames: readonly L[] = [], buckets = LATENCY_BUCKETS): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [registry] });
  }

  return {
    registry,
    counter,
    gauge,
    latencyHistogram,
    uptime: gauge('process_uptime_seconds', 'Seconds since the process started', [], function () {
      this.set(Math.round(process.uptime()));
    }),
    httpRequests: counter('adplane_http_requests_total', 'HTTP requests answered, by method, route and status', ['method', 'route', 'status']),
    httpDuration: latencyHistogram('adplane_http_request_duration_seconds', 'Time to answer an HTTP request, by method and route pattern', ['method', 'route']),
    loginFailures: counter('adplane_login_failures_total', 'Failed sign-ins, by reason', ['reason']),
    /** The text /metrics answers. */
    render: () => registry.metrics(),
  };
}

export type AppMetrics = ReturnType<typeof createAppMetrics>;
