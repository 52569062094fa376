import {
  counterTableRows,
  HOUR_MS,
  IS_TEXT,
  KEY_WIDTH as WIDTH,
  METRICS,
  REQUEST_COLUMNS,
  SOURCE_COLUMNS,
} from '../../stats/counterTable.js';
import { type HourlyDimensions, type HourlyMetrics, METRIC_COLUMNS, type StatsSink } from '../../stats/hourlyRow.js';
import { RowTable, TextIds } from './rowTable.js';

export { hourOf } from '../../stats/counterTable.js';

/**
 * The edge's in-memory counters: sums per UTC hour and combination of report dimensions, flushed
 * to the stats store in batches every few seconds and on shutdown. A batch the store refuses is
 * merged back and retried at the next flush, so a hiccup of the stats store loses nothing.
 *
 * The rows wait for their flush in flat typed arrays (rowTable.ts), their text as small ids: a
 * request adds to them without allocating, so they do not fill V8's old generation between flushes.
 * A store that takes those arrays (`writeTable`: the DuckDB store, whose thread makes and encodes
 * the rows) gets the flush whole; any other gets it as rows, a thousand at a time.
 */
export type Dimensions = Partial<Omit<HourlyDimensions, 'hour'>>;
export type Metrics = Partial<HourlyMetrics>;

export type RequestDimensions = Partial<Pick<HourlyDimensions, (typeof REQUEST_COLUMNS)[number]>>;
export type SourceDimensions = Partial<Pick<HourlyDimensions, (typeof SOURCE_COLUMNS)[number]>>;

const REQUEST_FROM = 1;
const SOURCE_FROM = 1 + REQUEST_COLUMNS.length;
const METRIC_INDEX: Readonly<Record<string, number>> = Object.fromEntries(METRIC_COLUMNS.map((m, i) => [m, i]));

/** The counters of one request: its columns read once, each source's fate added beside them. */
export interface CounterScope {
  add(source: SourceDimensions, metrics: Metrics, now: number): void;
}

/**
 * Rows a stats-store write takes from a store that takes rows, not the flush's arrays (ClickHouse):
 * small enough that making one (its rows, checked and encoded by
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
        if (sink.writeTable) {
          // the store takes the arrays and makes the rows where it runs (the DuckDB store's thread):
          // whole or not at all, so a refusal takes every row back
          try {
            await sink.writeTable({ rows: taken.rows, keys: taken.keys, sums: taken.sums, text });
          } catch (error) {
            for (let row = 0; row < taken.rows; row++) this.addFrom(taken, text, row);
            throw error;
          }
          return;
        }
        const writes: Promise<void>[] = [];
        for (let at = 0; at < taken.rows; at += BATCH) {
          if (at) await new Promise((resolve) => setImmediate(resolve));
          const batch = counterTableRows(
            { rows: taken.rows, keys: taken.keys, sums: taken.sums, text },
            at,
            Math.min(taken.rows, at + BATCH),
          );
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
