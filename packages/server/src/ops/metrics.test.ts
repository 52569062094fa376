import { describe, expect, it } from 'vitest';
import { createAppMetrics } from './metrics.js';

describe('createAppMetrics', () => {
  it('keeps each app its own prom-client registry, with labelled counters, gauges and latency histograms', async () => {
    const a = createAppMetrics();
    const b = createAppMetrics();
    a.loginFailures.inc({ reason: 'bad_password' });
    a.loginFailures.inc({ reason: 'bad_password' });
    a.httpDuration.observe({ method: 'GET', route: '/api/demand/tags' }, 0.004);
    const text = await a.render();
    expect(text).toContain('adplane_login_failures_total{reason="bad_password"} 2');
    expect(text).toContain('adplane_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/demand/tags"} 1');
    expect(text).toMatch(/^process_uptime_seconds \d+$/m);
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(await b.render()).not.toContain('reason="bad_password"');
  });

  it('lets a plane add its own histograms, e.g. per demand source', async () => {
    const metrics = createAppMetrics();
    const perSource = metrics.latencyHistogram('adplane_demand_source_seconds', 'Time to an answer from a demand source', ['source', 'outcome']);
    const end = perSource.startTimer({ source: 'openrtb:42' });
    end({ outcome: 'bid' });
    expect(await metrics.render()).toMatch(/adplane_demand_source_seconds_count\{source="openrtb:42",outcome="bid"\} 1/);
    expect(() => metrics.latencyHistogram('adplane_demand_source_seconds', 'again')).toThrow(/already been registered/);
  });
});
