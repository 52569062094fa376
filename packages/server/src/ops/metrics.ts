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
  function gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (this: Gauge<L>) => void,
  ): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [registry], ...(collect ? { collect } : {}) });
  }
  /** A latency histogram in seconds with the shared buckets (or your own). */
  function latencyHistogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets = LATENCY_BUCKETS,
  ): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [registry] });
  }

  /** A hot route's latency histogram: `routeLatency.labels(route).observe(seconds)` costs a few additions (RouteLatency). */
  function routeLatency(name: string, help: string, label: string): RouteLatency {
    const metric = new RouteLatency(name, help, label);
    registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
    return metric;
  }

  return {
    registry,
    counter,
    gauge,
    latencyHistogram,
    routeLatency,
    uptime: gauge('process_uptime_seconds', 'Seconds since the process started', [], function () {
      this.set(Math.round(process.uptime()));
    }),
    httpRequests: counter('adplane_http_requests_total', 'HTTP requests answered, by method, route and status', [
      'method',
      'route',
      'status',
    ]),
    httpDuration: latencyHistogram(
      'adplane_http_request_duration_seconds',
      'Time to answer an HTTP request, by method and route pattern',
      ['method', 'route'],
    ),
    loginFailures: counter('adplane_login_failures_total', 'Failed sign-ins, by reason', ['reason']),
    /** The text /metrics answers. */
    render: () => registry.metrics(),
  };
}

export type AppMetrics = ReturnType<typeof createAppMetrics>;

/** One route's observations: a count per bucket (the last is +Inf), the sum and the count. */
export class RouteTimer {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** Adds one observation in seconds (a bucket holds the values up to its bound, as Prometheus's `le`). */
  observe(seconds: number): void {
    if (!Number.isFinite(seconds)) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * A latency histogram of the edge's hot routes (a VAST request, a tracking event, a bid request),
 * read by prom-client's registry in the shape of its own Histogram: the same /metrics lines. An
 * observation adds to a typed array; prom-client's Histogram hashed the labels and made a closure
 * and two objects on each one, about 3 % of a VAST request's CPU.
 */
export class RouteLatency {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly routes = new Map<string, RouteTimer>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly label: string,
    private readonly buckets: readonly number[] = LATENCY_BUCKETS,
  ) {}

  /** The timer of one route (kept: take it once, observe on it per request). */
  labels(route: string): RouteTimer {
    let timer = this.routes.get(route);
    if (!timer) this.routes.set(route, (timer = new RouteTimer(this.buckets)));
    return timer;
  }

  get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const [route, t] of this.routes) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += t.counts[i]!;
        values.push({ labels: { le, [this.label]: route }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', [this.label]: route }, value: t.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { [this.label]: route }, value: t.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { [this.label]: route }, value: t.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.routes.clear();
  }
}
