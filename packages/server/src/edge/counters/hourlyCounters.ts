import { DIMENSION_COLUMNS, type HourlyDimensions, type HourlyMetrics, type HourlyRow, METRIC_COLUMNS, type StatsSink } from '../../stats/hourlyRow.js';

/**
 * The edge's in-memory counters: sums per UTC hour and combination of report dimensions, flushed
 * to the stats store in batches every few seconds and on shutdown. A batch the store refuses is
 * merged back and retried at the next flush, so a hiccup of the stats store loses nothing.
 */
export type Dimensions = Partial<Omit<HourlyDimensions, 'hour'>>;
export type Metrics = Partial<HourlyMetrics>;

const EMPTY_DIMS: Omit<HourlyDimensions, 'hour'> = {
  tenant_id: 0, channel_id: 0, subpublisher_id: 0, tag_id: 0, partner: '', advertiser_id: 0, campaign_id: 0, creative_id: 0,
  supplier_id: 0, adexchange_id: 0, deal_id: '', marketplace_name: '', country: '', region: '', us_state: '', device: '', os: '',
  browser: '', app_bundle: '', domain: '', publisher_id: '', integration: '', vast_error: '', nofill_reason: '',
};

const zeroMetrics = (): HourlyMetrics => Object.fromEntries(METRIC_COLUMNS.map((m) => [m, 0])) as unknown as HourlyMetrics;

export function hourOf(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00:00`;
}

const BATCH = 5000;

export class HourlyCounters {
  private rows = new Map<string, HourlyRow>();
  private flushing: Promise<void> | null = null;
  /** Last hour string and the ms range it covers: most adds fall in the current hour. */
  private hourCache = { from: 0, to: 0, hour: '' };

  constructor(private readonly sink: () => StatsSink | null) {}

  private hour(now: number): string {
    const c = this.hourCache;
    if (now >= c.from && now < c.to) return c.hour;
    const from = now - (now % 3_600_000);
    this.hourCache = { from, to: from + 3_600_000, hour: hourOf(now) };
    return this.hourCache.hour;
  }

  add(dims: Dimensions, metrics: Metrics, now: number): void {
    const hour = this.hour(now);
    let key = hour;
    for (let i = 1; i < DIMENSION_COLUMNS.length; i++) {
      const col = DIMENSION_COLUMNS[i] as keyof Dimensions;
      key += '\u001f' + (dims[col] ?? '');
    }
    let row = this.rows.get(key);
    if (!row) {
      row = { ...EMPTY_DIMS, ...dims, hour, ...zeroMetrics() } as HourlyRow;
      this.rows.set(key, row);
    }
    for (const m in metrics) {
      const v = metrics[m as keyof Metrics];
      if (v) row[m as keyof HourlyMetrics] += v;
    }
  }

  /** Rows waiting for the next flush (tests and /metrics). */
  get pending(): number {
    return this.rows.size;
  }

  /** Hand every pending row to the stats store; concurrent calls share one flush. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    const sink = this.sink();
    if (!sink || this.rows.size === 0) return Promise.resolve();
    const taken = this.rows;
    this.rows = new Map();
    this.flushing = (async () => {
      const list = [...taken.entries()];
      try {
        for (let i = 0; i < list.length; i += BATCH) {
          const part = list.slice(i, i + BATCH);
          await sink.write(part.map(([, r]) => r));
          for (const [k] of part) taken.delete(k);
        }
      } finally {
        this.mergeBack(taken);
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  private mergeBack(left: Map<string, HourlyRow>): void {
    for (const [key, row] of left) {
      const now = this.rows.get(key);
      if (!now) {
        this.rows.set(key, row);
        continue;
      }
      for (const m of METRIC_COLUMNS) now[m] += row[m];
    }
  }
}
