import {
  DIMENSION_COLUMNS,
  type HourlyDimensions,
  type HourlyMetrics,
  type HourlyRow,
  type HourlyRows,
  isIdDimension,
  METRIC_COLUMNS,
  type StatsSink,
} from '../../stats/hourlyRow.js';
import { RowTable, TextIds } from './rowTable.js';

/**
 * The edge's in-memory counters: sums per UTC hour and combination of report dimensions, flushed
 * to the stats store in batches every few seconds and on shutdown. A batch the store refuses is
 * merged back and retried at the next flush, so a hiccup of the stats store loses nothing.
 *
 * The rows wait for their flush in flat typed arrays (rowTable.ts), their text as small ids: a
 * request adds to them without allocating, so they do not fill V8's old generation between flushes.
 */
export type Dimensions = Partial<Omit<HourlyDimensions, 'hour'>>;
export type Metrics = Partial<HourlyMetrics>;

/**
 * A row's key is its hour, then the request's columns, then the demand source's: one decision adds
 * several rows (the request, and each source's fate) that share the request part, so a `scope`
 * reads that part once per request instead of once per row.
 */
const REQUEST_COLUMNS = [
  'tenant_id',
  'channel_id',
  'subpublisher_id',
  'country',
  'region',
  'us_state',
  'device',
  'os',
  'browser',
  'app_bundle',
  'domain',
  'publisher_id',
  'integration',
  'supplier_id',
] as const satisfies readonly (keyof Dimensions)[];
const SOURCE_COLUMNS = [
  'tag_id',
  'partner',
  'advertiser_id',
  'campaign_id',
  'creative_id',
  'adexchange_id',
  'deal_id',
  'marketplace_name',
  'vast_error',
  'nofill_reason',
] as const satisfies readonly (keyof Dimensions)[];
export type RequestDimensions = Partial<Pick<HourlyDimensions, (typeof REQUEST_COLUMNS)[number]>>;
export type SourceDimensions = Partial<Pick<HourlyDimensions, (typeof SOURCE_COLUMNS)[number]>>;

// every report column is in exactly one part of the key
if (
  [...REQUEST_COLUMNS, ...SOURCE_COLUMNS].sort().join() !==
  DIMENSION_COLUMNS.filter((c) => c !== 'hour')
    .sort()
    .join()
) {
  throw new Error('hourlyCounters: the key columns are out of step with DIMENSION_COLUMNS');
}

/** A row's key: its hour, the request's columns, then the source's (see REQUEST_COLUMNS). */
const KEY_COLUMNS = ['hour', ...REQUEST_COLUMNS, ...SOURCE_COLUMNS] as const;
type KeyColumn = (typeof KEY_COLUMNS)[number];
const WIDTH = KEY_COLUMNS.length;
const REQUEST_FROM = 1;
const SOURCE_FROM = 1 + REQUEST_COLUMNS.length;
/** Each key column's place in the key. */
const AT = Object.fromEntries(KEY_COLUMNS.map((c, i) => [c, i])) as Readonly<Record<KeyColumn, number>>;
/** Per key column, whether it holds text (kept as a TextIds id in the key). */
const IS_TEXT: readonly boolean[] = KEY_COLUMNS.map((c) => c !== 'hour' && !isIdDimension(c));
const METRICS = METRIC_COLUMNS.length;
const METRIC_INDEX: Readonly<Record<string, number>> = Object.fromEntries(METRIC_COLUMNS.map((m, i) => [m, i]));
const HOUR_MS = 3_600_000;

/** The counters of one request: its columns read once, each source's fate added beside them. */
export interface CounterScope {
  add(source: SourceDimensions, metrics: Metrics, now: number): void;
}

/**
 * Row `row` of a table as the HourlyRow handed to the stats store, built as one literal (a fixed
 * shape is several times faster than spreads); `text` is the list its text ids were taken from.
 */
function hourlyRowOf(table: RowTable, text: readonly string[], row: number, hour: string): HourlyRow {
  const k = table.keys;
  const o = row * WIDTH;
  const m = table.sums;
  const s = row * METRICS;
  return {
    hour,
    tenant_id: k[o + AT.tenant_id]!,
    channel_id: k[o + AT.channel_id]!,
    subpublisher_id: k[o + AT.subpublisher_id]!,
    tag_id: k[o + AT.tag_id]!,
    partner: text[k[o + AT.partner]!]!,
    advertiser_id: k[o + AT.advertiser_id]!,
    campaign_id: k[o + AT.campaign_id]!,
    creative_id: k[o + AT.creative_id]!,
    supplier_id: k[o + AT.supplier_id]!,
    adexchange_id: k[o + AT.adexchange_id]!,
    deal_id: text[k[o + AT.deal_id]!]!,
    marketplace_name: text[k[o + AT.marketplace_name]!]!,
    country: text[k[o + AT.country]!]!,
    region: text[k[o + AT.region]!]!,
    us_state: text[k[o + AT.us_state]!]!,
    device: text[k[o + AT.device]!]!,
    os: text[k[o + AT.os]!]!,
    browser: text[k[o + AT.browser]!]!,
    app_bundle: text[k[o + AT.app_bundle]!]!,
    domain: text[k[o + AT.domain]!]!,
    publisher_id: text[k[o + AT.publisher_id]!]!,
    integration: text[k[o + AT.integration]!]!,
    vast_error: text[k[o + AT.vast_error]!]!,
    nofill_reason: text[k[o + AT.nofill_reason]!]!,
    reqs: m[s]!,
    opps: m[s + 1]!,
    demand_calls: m[s + 2]!,
    responses: m[s + 3]!,
    timeouts: m[s + 4]!,
    bids: m[s + 5]!,
    wins: m[s + 6]!,
    imps: m[s + 7]!,
    starts: m[s + 8]!,
    first_quartiles: m[s + 9]!,
    midpoints: m[s + 10]!,
    third_quartiles: m[s + 11]!,
    completes: m[s + 12]!,
    clicks: m[s + 13]!,
    errors: m[s + 14]!,
    ivt: m[s + 15]!,
    postbid_imps: m[s + 16]!,
    revenue: m[s + 17]!,
    cost: m[s + 18]!,
    rev_m: m[s + 19]!,
    rev_md: m[s + 20]!,
    source_reqs: m[s + 21]!,
    source_opps: m[s + 22]!,
    postbid_ivt: m[s + 23]!,
  };
}

// hourlyRowOf names each column by its place: a row whose key and sums are 1, 2, 3... must read
// back in order, or a column added to the report lands in another's.
{
  const probe = new RowTable(WIDTH, METRICS, 1);
  const key = Float64Array.from(KEY_COLUMNS, (_, i) => i);
  const row = probe.rowOf(key);
  METRIC_COLUMNS.forEach((_, i) => probe.add(row, i, i + 1));
  const read = hourlyRowOf(
    probe,
    KEY_COLUMNS.map((_, i) => `#${i}`),
    row,
    'hour',
  ) as unknown as Record<string, unknown>;
  const wrong =
    KEY_COLUMNS.some((c, i) => c !== 'hour' && read[c] !== (IS_TEXT[i] ? `#${i}` : i)) ||
    METRIC_COLUMNS.some((c, i) => read[c] !== i + 1);
  if (wrong || Object.keys(read).length !== KEY_COLUMNS.length + METRICS)
    throw new Error('hourlyCounters: hourlyRowOf is out of step with the key or METRIC_COLUMNS');
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

/** Text ids past which a flush starts a new list (TextIds.renew): bounds what varied traffic (domains, bundles) keeps. */
const TEXT_RENEW_AT = 200_000;

export class HourlyCounters {
  private table = new RowTable(WIDTH, METRICS);
  private readonly texts = new TextIds();
  /** The key being made: every add is synchronous, so one is enough. */
  private readonly key = new Float64Array(WIDTH);
  private flushing: Promise<void> | null = null;
  /** The current hour (hours since the epoch) and the ms range it covers: most adds fall in it. */
  private hourCache = { from: 0, to: 0, hour: 0 };

  constructor(
    private readonly sink: () => StatsSink | null,
    private readonly options: {
      renewTextAt?: number;
      /**
       * Resolves once what the rows count may be written (the replay guard's memory of the events
       * counted is durable: ImpressionReplayGuard.persist); a rejection keeps the rows for the next flush.
       */
      beforeWrite?: () => Promise<void>;
      /** Where a flush a full table started fails (its rows are kept for the next flush); the timer's flush reports its own. */
      onFlushError?: (error: unknown) => void;
    } = {},
  ) {}

  private hour(now: number): number {
    const c = this.hourCache;
    if (now >= c.from && now < c.to) return c.hour;
    const hour = Math.floor(now / HOUR_MS);
    this.hourCache = { from: hour * HOUR_MS, to: (hour + 1) * HOUR_MS, hour };
    return hour;
  }

  /** Puts `dims`' values of `columns` in the key from `at` on: ids as they are, text as its id. */
  private put(dims: Dimensions, columns: readonly (keyof Dimensions)[], at: number): void {
    const key = this.key;
    for (let i = 0; i < columns.length; i++) {
      const v = dims[columns[i]!];
      if (IS_TEXT[at + i])
        key[at + i] = typeof v === 'string' ? this.texts.idOf(v) : v == null ? 0 : this.texts.idOf(String(v));
      else key[at + i] = typeof v === 'number' ? v : 0;
    }
  }

  /** Adds `metrics` to the row of the key being made; a table grown to FLUSH_AT_ROWS flushes before the timer's. */
  private count(metrics: Metrics): void {
    const table = this.table;
    const row = table.rowOf(this.key);
    for (const m in metrics) {
      const v = metrics[m as keyof Metrics];
      if (v) table.add(row, METRIC_INDEX[m]!, v);
    }
    if (table.rows >= FLUSH_AT_ROWS && !this.flushing)
      void this.flush().catch((error: unknown) => this.options.onFlushError?.(error));
  }

  add(dims: Dimensions, metrics: Metrics, now: number): void {
    this.put(dims, REQUEST_COLUMNS, REQUEST_FROM);
    this.put(dims, SOURCE_COLUMNS, SOURCE_FROM);
    this.key[0] = this.hour(now);
    this.count(metrics);
  }

  /** A request's counters: its columns are read once, each source adds only its own. */
  scope(request: RequestDimensions): CounterScope {
    return new RequestScope(this, request);
  }

  /** Adds a source's row of a request scope (RequestScope; not for callers: `scope` is). */
  addScoped(scope: RequestScope, source: SourceDimensions, metrics: Metrics, now: number): void {
    const key = this.key;
    if (scope.generation !== this.texts.generation) {
      // the text ids were renewed since the scope read its columns (a flush while it waited on demand)
      scope.values = this.requestValues(scope.request);
      scope.generation = this.texts.generation;
    }
    const values = scope.values;
    for (let i = 0; i < values.length; i++) key[REQUEST_FROM + i] = values[i]!;
    this.put(source, SOURCE_COLUMNS, SOURCE_FROM);
    key[0] = this.hour(now);
    this.count(metrics);
  }

  /** The request columns' key values of a new scope. */
  requestValues(request: RequestDimensions): number[] {
    this.put(request, REQUEST_COLUMNS, REQUEST_FROM);
    const values = new Array<number>(REQUEST_COLUMNS.length);
    for (let i = 0; i < values.length; i++) values[i] = this.key[REQUEST_FROM + i]!;
    return values;
  }

  get textGeneration(): number {
    return this.texts.generation;
  }

  /** Rows waiting for the next flush (tests and /metrics). */
  get pending(): number {
    return this.table.rows;
  }

  /** Adds row `row` of an earlier table (whose text ids are in `text`) back, summed into what came in since. */
  private addFrom(table: RowTable, text: readonly string[], row: number): void {
    const key = this.key;
    const o = row * WIDTH;
    for (let i = 0; i < WIDTH; i++)
      key[i] = IS_TEXT[i] ? this.texts.idOf(text[table.keys[o + i]!]!) : table.keys[o + i]!;
    const to = this.table.rowOf(key);
    for (let m = 0; m < METRICS; m++) {
      const v = table.sums[row * METRICS + m]!;
      if (v) this.table.add(to, m, v);
    }
  }

  /** Hand every pending row to the stats store; concurrent calls share one flush. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    const sink = this.sink();
    if (!sink || this.table.rows === 0) return Promise.resolve();
    const taken = this.table;
    const text = this.texts.text;
    // the next table is sized for the traffic just seen, so it rarely grows
    this.table = new RowTable(WIDTH, METRICS, Math.min(taken.rows, FLUSH_AT_ROWS));
    if (this.texts.size > (this.options.renewTextAt ?? TEXT_RENEW_AT)) this.texts.renew();
    this.flushing = (async () => {
      try {
        try {
          await this.options.beforeWrite?.();
        } catch (error) {
          for (let row = 0; row < taken.rows; row++) this.addFrom(taken, text, row);
          throw error;
        }
        const writes: Promise<void>[] = [];
        const hours = new Map<number, string>();
        const hourText = (h: number): string => hours.get(h) ?? (hours.set(h, hourOf(h * HOUR_MS)), hours.get(h)!);
        for (let at = 0; at < taken.rows; at += BATCH) {
          if (at) await new Promise((resolve) => setImmediate(resolve));
          const batch = tableRows(taken, text, at, Math.min(taken.rows, at + BATCH), hourText);
          // in a promise: a batch the store refuses at once (its check) settles like one it refuses later
          writes.push(Promise.resolve().then(() => sink.write(batch)));
        }
        const results = await Promise.allSettled(writes);
        // a batch the store refused goes back, summed into what came in meanwhile
        let refused: PromiseRejectedResult | undefined;
        for (let i = 0; i < results.length; i++) {
          const result = results[i]!;
          if (result.status === 'fulfilled') continue;
          refused ??= result;
          for (let row = i * BATCH; row < Math.min(taken.rows, (i + 1) * BATCH); row++) this.addFrom(taken, text, row);
        }
        if (refused) throw refused.reason;
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }
}

/**
 * Rows `from` to `to` of a table as a batch for the stats store, each row object made as the store
 * reads it: a store that encodes row by row (DuckDB) holds one at a time, so they die young instead
 * of a thousand of them at once outliving a scavenge and being promoted with the whole batch.
 */
function tableRows(
  table: RowTable,
  text: readonly string[],
  from: number,
  to: number,
  hourText: (hour: number) => string,
): HourlyRows {
  return {
    length: to - from,
    *[Symbol.iterator]() {
      for (let row = from; row < to; row++) yield hourlyRowOf(table, text, row, hourText(table.keys[row * WIDTH]!));
    },
  };
}

/** A request's counters: an object with its columns' key values, not a closure per request. */
class RequestScope implements CounterScope {
  values: number[];
  generation: number;
  constructor(
    private readonly counters: HourlyCounters,
    readonly request: RequestDimensions,
  ) {
    this.generation = counters.textGeneration;
    this.values = counters.requestValues(request);
  }

  add(source: SourceDimensions, metrics: Metrics, now: number): void {
    this.counters.addScoped(this, source, metrics, now);
  }
}
