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
  'app_bundle', 'domain', 'publisher_id', 'integration', 'supplier_id',
] as const satisfies readonly (keyof Dimensions)[];
const SOURCE_COLUMNS = [
  'tag_id', 'partner', 'advertiser_id', 'campaign_id', 'creative_id', 'adexchange_id', 'deal_id',
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

/** The request part of a row's key (see REQUEST_COLUMNS). */
export const requestKeyOf = (dims: Dimensions): string => keyOf(dims, REQUEST_COLUMNS);
/** The source part of a row's key (see SOURCE_COLUMNS). */
export const sourceKeyOf = (dims: Dimensions): string => keyOf(dims, SOURCE_COLUMNS);
/** The separator of a key's columns, for callers that build a key themselves (HourlyCounters.addKeyed). */
export const KEY_SEPARATOR = '\u001f';

/** The counters of one request: its columns keyed once, each source's fate added beside them. */
export interface CounterScope {
  add(source: SourceDimensions, metrics: Metrics, now: number): void;
}

const METRIC_INDEX: Readonly<Record<string, number>> = Object.fromEntries(METRIC_COLUMNS.map((m, i) => [m, i]));

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
    source_reqs: m[21]!,
    source_opps: m[22]!,
    postbid_ivt: m[23]!,
  };
}

// toHourlyRow names each metric by its index: a row whose sums are 0, 1, 2... must read back in
// METRIC_COLUMNS order, or a metric added to the catalogue lands in another's column.
{
  const probe = toHourlyRow({ hour: '', request: {}, source: {}, sums: Float64Array.from(METRIC_COLUMNS, (_, i) => i) });
  if (METRIC_COLUMNS.some((m, i) => probe[m] !== i)) throw new Error('hourlyCounters: toHourlyRow is out of step with METRIC_COLUMNS');
}

export function hourOf(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00:00`;
}

/**
 * Rows a stats-store write takes: small enough that making one (its rows, checked and encoded by
 * the store) holds the event loop for a few ms only. A flush hands its batches over one turn of the
 * event loop apart, without waiting for each to be stored: the store joins those that arrive while
 * it writes (stats/coalescedWrites.ts), so a flush costs the engine two or three writes, not one
 * per thousand rows.
 */
const BATCH = 1000;
/** Rows that trigger a flush before the timer's: bounds memory when traffic is high and varied. */
const FLUSH_AT_ROWS = 50_000;

/** Rows by hour, then by the request's key, then by the source's key (see REQUEST_COLUMNS). */
type Rows = Map<string, Map<string, Map<string, PendingRow>>>;

export class HourlyCounters {
  private rows: Rows = new Map();
  private size = 0;
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

  /**
   * `add` with the row's two keys already made by the caller from its own fixed-shape object (a
   * tracking event's decision: trackingEvents.ts), instead of read column by column from `dims`.
   * They must be `requestKeyOf(dims)` and `sourceKeyOf(dims)`, or the row splits in two.
   */
  addKeyed(requestKey: string, sourceKey: string, dims: Dimensions, metrics: Metrics, now: number): void {
    this.addRow(requestKey, dims, dims, metrics, now, undefined, sourceKey);
  }

  /**
   * The request's key is built once and kept (a string caches its hash, so every row of the request
   * finds its group without hashing the long key again); each source adds only its short key.
   */
  scope(request: RequestDimensions): CounterScope {
    return new RequestScope(this, keyOf(request, REQUEST_COLUMNS), request);
  }

  /** Adds to a row (RequestScope and flush; not for callers: `add` and `scope` are). */
  addRow(requestKey: string, request: Dimensions, source: Dimensions, metrics: Metrics, now: number, hourText?: string, sourceKeyText?: string): void {
    const hour = hourText ?? this.hour(now);
    let byRequest = this.rows.get(hour);
    if (!byRequest) this.rows.set(hour, (byRequest = new Map()));
    let bySource = byRequest.get(requestKey);
    if (!bySource) byRequest.set(requestKey, (bySource = new Map()));
    const sourceKey = sourceKeyText ?? keyOf(source, SOURCE_COLUMNS);
    let row = bySource.get(sourceKey);
    if (!row) {
      row = { hour, request, source, sums: new Float64Array(METRIC_COLUMNS.length) };
      bySource.set(sourceKey, row);
      if (++this.size >= FLUSH_AT_ROWS && !this.flushing) void this.flush().catch(() => undefined);
    }
    for (const m in metrics) {
      const v = metrics[m as keyof Metrics];
      if (v) row.sums[METRIC_INDEX[m]!]! += v;
    }
  }

  /** Rows waiting for the next flush (tests and /metrics). */
  get pending(): number {
    return this.size;
  }

  /** Hand every pending row to the stats store; concurrent calls share one flush. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    const sink = this.sink();
    if (!sink || this.size === 0) return Promise.resolve();
    const taken: PendingRow[] = [];
    for (const byRequest of this.rows.values()) for (const bySource of byRequest.values()) for (const row of bySource.values()) taken.push(row);
    this.rows = new Map();
    this.size = 0;
    this.flushing = (async () => {
      try {
        const writes: Promise<void>[] = [];
        for (let at = 0; at < taken.length; at += BATCH) {
          if (at) await new Promise((resolve) => setImmediate(resolve));
          const batch = taken.slice(at, at + BATCH);
          // in a promise: a batch the store refuses at once (its check) settles like one it refuses later
          writes.push(Promise.resolve().then(() => sink.write(batch.map(toHourlyRow))));
        }
        const results = await Promise.allSettled(writes);
        // a batch the store refused goes back, summed into what came in meanwhile
        let refused: PromiseRejectedResult | undefined;
        for (let i = 0; i < results.length; i++) {
          const result = results[i]!;
          if (result.status === 'fulfilled') continue;
          refused ??= result;
          for (const row of taken.slice(i * BATCH, (i + 1) * BATCH)) this.addRow(keyOf(row.request, REQUEST_COLUMNS), row.request, row.source, sumsOf(row.sums), 0, row.hour);
        }
        if (refused) throw refused.reason;
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }
}

/** A request's counters: an object, not a closure per request. */
class RequestScope implements CounterScope {
  constructor(
    private readonly counters: HourlyCounters,
    private readonly key: string,
    private readonly request: RequestDimensions,
  ) {}

  add(source: SourceDimensions, metrics: Metrics, now: number): void {
    this.counters.addRow(this.key, this.request, source, metrics, now);
  }
}

function sumsOf(sums: Float64Array): Metrics {
  const out: Record<string, number> = {};
  for (let i = 0; i < METRIC_COLUMNS.length; i++) if (sums[i]) out[METRIC_COLUMNS[i]!] = sums[i]!;
  return out as Metrics;
}
