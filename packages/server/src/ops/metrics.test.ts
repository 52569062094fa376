import { describe, expect, it } from 'vitest';
import { Histogram, Registry } from 'prom-client';
import { createAppMetrics, LATENCY_BUCKETS } from './metrics.js';

describe('createAppMetrics', () => {
  it('keeps each app its own prom-client registry, with labelled counters, gauges and latency histograms', async () => {
    const a = createAppMetrics();
    const b = createAppMetrics();
    a.loginFailures.inc({ reason: 'bad_password' });
    a.loginFailures.inc({ reason: 'bad_password' });
    a.httpDuration.observe({ method: 'GET', route: '/api/demand/tags' }, 0.004);
    const text = await a.render();
    expect(text).toContain('adplane_login_failures_total{reason="bad_password"} 2');
    expect(text).toContain(
      'adplane_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/demand/tags"} 1',
    );
    expect(text).toMatch(/^process_uptime_seconds \d+$/m);
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(await b.render()).not.toContain('reason="bad_password"');
  });

  it('lets a plane add its own histograms, e.g. per demand source', async () => {
    const metrics = createAppMetrics();
    const perSource = metrics.latencyHistogram(
      'adplane_demand_source_seconds',
      'Time to an answer from a demand source',
      ['source', 'outcome'],
    );
    const end = perSource.startTimer({ source: 'openrtb:42' });
    end({ outcome: 'bid' });
    expect(await metrics.render()).toMatch(
      /adplane_demand_source_seconds_count\{source="openrtb:42",outcome="bid"\} 1/,
    );
    expect(() => metrics.latencyHistogram('adplane_demand_source_seconds', 'again')).toThrow(/already been registered/);
  });

  it("answers a hot route's latency exactly as prom-client's Histogram would, bucket by bucket", async () => {
    const metrics = createAppMetrics();
    const hot = metrics.routeLatency('adplane_hot_seconds', 'Hot routes', 'route');
    const reference = new Registry();
    const plain = new Histogram({
      name: 'adplane_hot_seconds',
      help: 'Hot routes',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
      registers: [reference],
    });
    const seen = [0.0004, 0.001, 0.0011, 0.003, 0.2, 7, 11, 0.001];
    for (const s of seen) {
      hot.labels('vast').observe(s);
      plain.labels('vast').observe(s);
    }
    hot.labels('ev').observe(0.02);
    plain.labels('ev').observe(0.02);
    hot.labels('vast').observe(Number.NaN);
    const ours = (await metrics.render())
      .split('\n')
      .filter((l) => l.startsWith('adplane_hot_seconds') || l.includes(' adplane_hot_seconds '));
    const theirs = (await reference.metrics())
      .split('\n')
      .filter((l) => l.startsWith('adplane_hot_seconds') || l.includes(' adplane_hot_seconds '));
    expect(ours.length).toBe(2 + 2 * (LATENCY_BUCKETS.length + 3));
    expect(ours).toEqual(theirs);
    expect(ours).toContain('adplane_hot_seconds_bucket{le="0.001",route="vast"} 3');
    expect(ours).toContain('adplane_hot_seconds_count{route="ev"} 1');
    expect(() => metrics.routeLatency('adplane_hot_seconds', 'again', 'route')).toThrow(/already been registered/);
  });
});
