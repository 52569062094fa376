import { DIMENSION_COLUMNS, type HourlyDimensions, type HourlyMetrics, type HourlyRow, METRIC_COLUMNS, type StatsSink } from '../../stats/hourlyRow.js';

/**
 * The edge's in-memory counters: sums per UTC hour and combination of report dimensions, flushed
 * to the stats store in batches every few seconds and on shutdown. A batch the store refuses is
 * merged back and retried at the next flush, so a hiccup of the stats store loses nothing.
 */
export type Dimensions = Partial<Omit<HourlyDimensions, 'hour'>>;
export type Metrics = Partial<HourlyMetrics>;

/**
 * A row's key is its hour, then the request's columns, then the demand source's: one decision adds
 * several rows (the request, and each source's fate) that share the request part, so a `scope`
 * builds that part once per request instead of once per row.
 */
const REQUEST_COLUMNS = [
  'tenant_id', 'channel_id', 'subpublisher_id', 'country', 'region', 'us_state', 'device', 'os', 'browser',
  'app_bundle', 'domain', 'publisher_id', 'integration',
] as const satisfies readonly (keyof Dimensions)[];
const SOURCE_COLUMNS = [
  'tag_id', 'partner', 'advertiser_id', 'campaign_id', 'creative_id', 'supplier_id', 'adexchange_id', 'deal_id',
  'marketplace_name', 'vast_error', 'nofill_reason',
] as const satisfies readonly (keyof Dimensions)[];
export type RequestDimensions = Partial<Pick<HourlyDimensions, (typeof REQUEST_COLUMNS)[number]>>;
export type SourceDimensions = Partial<Pick<HourlyDimensions, (typeof SOURCE_COLUMNS)[number]>>;

// every report column is in exactly one part of the key
if ([...REQUEST_COLUMNS, ...SOURCE_COLUMNS].sort().join() !== DIMENSION_COLUMNS.filter((c) => c !== 'hour').sort().join()) {
  throw new Error('hourlyCounters: the key columns are out of step with DIMENSION_COLUMNS');
}

function keyOf(dims: Dimensions, columns: readonly (keyof Dimensions)[]): string {
  let key = '';
  for (const col of columns) key += '\u001f' + (dims[col] ?? '');
  return key;
}

/** The counters of one request: its columns keyed once, each source's fate added beside them. */
export interface CounterScope {
  add(source: SourceDimensions, metrics: Metrics, now: number): void;
}


const METRIC_INDEX: Readonly<Record<string, number>> = Object.fromEntries(METRIC_COLUMNS.map((m, i) => [m, i]));
if (METRIC_COLUMNS.join() !== 'reqs,opps,demand_calls,responses,timeouts,bids,wins,imps,starts,first_quartiles,midpoints,third_quartiles,completes,clicks,errors,ivt,postbid_imps,revenue,cost,rev_m,rev_md') {
  throw new Error('hourlyCounters: toHourlyRow is out of step with METRIC_COLUMNS');
}

/**
 * A row while it counts: the request's and the source's dimension objects as handed over (callers
 * do not change them afterwards) and the sums in a typed array; it becomes an HourlyRow at flush.
 */
interface PendingRow {
  hour: string;
  request: Dimensions;
  source: Dimensions;
  sums: Float64Array;
}

/** The row handed to the stats store, built as one literal (a fixed shape is several times faster than spreads). */
function toHourlyRow(p: PendingRow): HourlyRow {
  const r = p.request;
  const s = p.source;
  const m = p.sums;
  return {
    hour: p.hour,
    tenant_id: s.tenant_id ?? r.tenant_id ?? 0,
    channel_id: s.channel_id ?? r.channel_id ?? 0,
    subpublisher_id: s.subpublisher_id ?? r.subpublisher_id ?? 0,
    tag_id: s.tag_id ?? r.tag_id ?? 0,
    partner: s.partner ?? r.partner ?? '',
    advertiser_id: s.advertiser_id ?? r.advertiser_id ?? 0,
    campaign_id: s.campaign_id ?? r.campaign_id ?? 0,
    creative_id: s.creative_id ?? r.creative_id ?? 0,
    supplier_id: s.supplier_id ?? r.supplier_id ?? 0,
    adexchange_id: s.adexchange_id ?? r.adexchange_id ?? 0,
    deal_id: s.deal_id ?? r.deal_id ?? '',
    marketplace_name: s.marketplace_name ?? r.marketplace_name ?? '',
    country: s.country ?? r.country ?? '',
    region: s.region ?? r.region ?? '',
    us_state: s.us_state ?? r.us_state ?? '',
    device: s.device ?? r.device ?? '',
    os: s.os ?? r.os ?? '',
    browser: s.browser ?? r.browser ?? '',
    app_bundle: s.app_bundle ?? r.app_bundle ?? '',
    domain: s.domain ?? r.domain ?? '',
    publisher_id: s.publisher_id ?? r.publisher_id ?? '',
    integration: s.integration ?? r.integration ?? '',
    vast_error: s.vast_error ?? r.vast_error ?? '',
    nofill_reason: s.nofill_reason ?? r.nofill_reason ?? '',
    reqs: m[0]!,
    opps: m[1]!,
    demand_calls: m[2]!,
    responses: m[3]!,
    timeouts: m[4]!,
    bids: m[5]!,
    wins: m[6]!,
    imps: m[7]!,
    starts: m[8]!,
    first_quartiles: m[9]!,
    midpoints: m[10]!,
    third_quartiles: m[11]!,
    completes: m[12]!,
    clicks: m[13]!,
    errors: m[14]!,
    ivt: m[15]!,
    postbid_imps: m[16]!,
    revenue: m[17]!,
    cost: m[18]!,
    rev_m: m[19]!,
    rev_md: m[20]!,
  };
}

export function hourOf(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00:00`;
}

const BATCH = 5000;
/** Rows that trigger a flush before the timer's: bounds memory when traffic is high and varied. */
const FLUSH_AT_ROWS = 50_000;

export class HourlyCounters {
  private rows = new Map<string, PendingRow>();
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
    this.addRow(keyOf(dims, REQUEST_COLUMNS), dims, dims, metrics, now);
  }

  scope(request: RequestDimensions): CounterScope {
    const key = keyOf(request, REQUEST_COLUMNS);
    return { add: (source, metrics, now) => this.addRow(key, request, source, metrics, now) };
  }

  private addRow(requestKey: string, request: Dimensions, source: Dimensions, metrics: Metrics, now: number): void {
    const hour = this.hour(now);
    const key = hour + '\u001e' + requestKey + '\u001e' + keyOf(source, SOURCE_COLUMNS);
    let row = this.rows.get(key);
    if (!row) {
      row = { hour, request, source, sums: new Float64Array(METRIC_COLUMNS.length) };
      this.rows.set(key, row);
      if (this.rows.size >= FLUSH_AT_ROWS && !this.flushing) void this.flush().catch(() => undefined);
    }
    for (const m in metrics) {
      const v = metrics[m as keyof Metrics];
      if (v) row.sums[METRIC_INDEX[m]!]! += v;
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
          await sink.write(part.map(([, r]) => toHourlyRow(r)));
          for (const [k] of part) taken.delete(k);
        }
      } finally {
        this.mergeBack(taken);
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  private mergeBack(left: Map<string, PendingRow>): void {
    for (const [key, row] of left) {
      const now = this.rows.get(key);
      if (!now) {
        this.rows.set(key, row);
        continue;
      }
      for (let i = 0; i < row.sums.length; i++) now.sums[i]! += row.sums[i]!;
    }
  }
}
