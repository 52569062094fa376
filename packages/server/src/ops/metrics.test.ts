import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from './metrics.js';

describe('MetricsRegistry', () => {
  it('renders counters with escaped labels and gauges in the Prometheus text format', () => {
    const registry = new MetricsRegistry();
    const hits = registry.counter('hits_total', 'Hits', ['route', 'status']);
    registry.gauge('up_seconds', 'Up', () => 42);
    registry.counter('plain_total', 'No labels');
    hits.inc({ route: '/a', status: 200 });
    hits.inc({ route: '/a', status: 200 }, 2);
    hits.inc({ route: 'say "hi"\\\n', status: 500 });
    expect(hits.get({ route: '/a', status: 200 })).toBe(3);
    expect(registry.render()).toBe(
      [
        '# HELP hits_total Hits',
        '# TYPE hits_total counter',
        'hits_total{route="/a",status="200"} 3',
        'hits_total{route="say \\"hi\\"\\\\\\n",status="500"} 1',
        '# HELP up_seconds Up',
        '# TYPE up_seconds gauge',
        'up_seconds 42',
        '# HELP plain_total No labels',
        '# TYPE plain_total counter',
        'plain_total 0',
        '',
      ].join('\n'),
    );
  });
});
