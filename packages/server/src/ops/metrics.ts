/**
 * A tiny Prometheus registry (text exposition format 0.0.4): counters with labels and gauges read at
 * scrape time. Enough for operators' dashboards without another dependency.
 */
type Labels = Record<string, string | number>;

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return '';
  return `{${names.map((n, i) => `${n}="${escapeLabel(values[i])}"`).join(',')}}`;
}

interface Metric {
  render(): string;
}

export class Counter implements Metric {
  private readonly values = new Map<string, number>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[] = [],
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = JSON.stringify(this.labelNames.map((n) => String(labels[n] ?? '')));
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  /** Current value for these labels (tests and health checks). */
  get(labels: Labels = {}): number {
    return this.values.get(JSON.stringify(this.labelNames.map((n) => String(labels[n] ?? '')))) ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (this.values.size === 0 && this.labelNames.length === 0) lines.push(`${this.name} 0`);
    for (const [key, value] of this.values) {
      lines.push(`${this.name}${labelText(this.labelNames, JSON.parse(key) as string[])} ${value}`);
    }
    return lines.join('\n');
  }
}

export class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => number,
  ) {}

  render(): string {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, `${this.name} ${this.read()}`].join('\n');
  }
}

export class MetricsRegistry {
  private readonly metrics: Metric[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    const counter = new Counter(name, help, labelNames);
    this.metrics.push(counter);
    return counter;
  }

  gauge(name: string, help: string, read: () => number): Gauge {
    const gauge = new Gauge(name, help, read);
    this.metrics.push(gauge);
    return gauge;
  }

  render(): string {
    return `${this.metrics.map((m) => m.render()).join('\n')}\n`;
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The metrics every adplane process exposes; later planes add theirs to `registry`. */
export function createAppMetrics() {
  const registry = new MetricsRegistry();
  return {
    registry,
    uptime: registry.gauge('process_uptime_seconds', 'Seconds since the process started', () => Math.round(process.uptime())),
    memory: registry.gauge('process_resident_memory_bytes', 'Resident memory in bytes', () => process.memoryUsage().rss),
    httpRequests: registry.counter('adplane_http_requests_total', 'HTTP requests answered, by method, route and status', [
      'method',
      'route',
      'status',
    ]),
    loginFailures: registry.counter('adplane_login_failures_total', 'Failed sign-ins, by reason', ['reason']),
  };
}

export type AppMetrics = ReturnType<typeof createAppMetrics>;
