import { readFile } from 'node:fs/promises';
import { cpmToMicros, microsToCpm } from './bidRequestReader.js';

/**
 * Exchange rates between currencies, so that adplane, which keeps its money in US dollars, can
 * trade with demand and supply that bid and pay in other currencies (OpenRTB `cur`, 2.6 section
 * 3.2.1 and 4.2.1: ISO-4217 codes, USD by default). The rates are what Prebid Server reads: a file
 * in Prebid's currency-file format (`{"dataAsOf": "...", "conversions": {"USD": {"EUR": 0.92, ...},
 * "GBP": {...}}}`: one unit of the outer currency is worth that many of the inner one), from a path
 * or a URL the operator sets (ADPLANE_CURRENCY_RATES; a URL is read again every
 * ADPLANE_CURRENCY_REFRESH_MINUTES, the last good rates kept when it fails). Without it, only USD.
 *
 * A rate is taken as given (EUR to USD), else as the reciprocal of its reverse (USD to EUR), else
 * through a third currency both are listed against, as Prebid Server converts.
 */
export class CurrencyRates implements RateSource {
  private readonly direct: ReadonlyMap<string, ReadonlyMap<string, number>>;

  constructor(
    conversions: Record<string, Record<string, number>>,
    readonly asOf: string = '',
  ) {
    const direct = new Map<string, Map<string, number>>();
    for (const [from, row] of Object.entries(conversions)) {
      const out = new Map<string, number>();
      for (const [to, rate] of Object.entries(row)) out.set(to, rate);
      direct.set(from, out);
    }
    this.direct = direct;
  }

  /** Only US dollars: every other currency has no rate. */
  static readonly USD_ONLY = new CurrencyRates({});

  /** The currencies some rate names (USD always). */
  get currencies(): string[] {
    const all = new Set<string>(['USD']);
    for (const [from, row] of this.direct) {
      all.add(from);
      for (const to of row.keys()) all.add(to);
    }
    return [...all].sort();
  }

  private one(from: string, to: string): number | null {
    const given = this.direct.get(from)?.get(to);
    if (given !== undefined) return given;
    const reverse = this.direct.get(to)?.get(from);
    return reverse !== undefined ? 1 / reverse : null;
  }

  private readonly found = new Map<string, number | null>();

  /** How many units of `to` one unit of `from` is worth, or null when no rate links them. */
  rate(from: string, to: string): number | null {
    const f = from.toUpperCase();
    const t = to.toUpperCase();
    if (f === t) return 1;
    const key = `${f}>${t}`;
    let r = this.found.get(key);
    if (r === undefined) this.found.set(key, (r = this.lookUp(f, t)));
    return r;
  }

  private lookUp(f: string, t: string): number | null {
    const one = this.one(f, t);
    if (one !== null) return one;
    for (const via of this.currencies) {
      if (via === f || via === t) continue;
      const a = this.one(f, via);
      const b = a === null ? null : this.one(via, t);
      if (a !== null && b !== null) return a * b;
    }
    return null;
  }
}

/** What converts one currency to another: a rates file, or several tried in turn (RatesInTurn). */
export interface RateSource {
  rate(from: string, to: string): number | null;
}

/** Rates tried in order, the first that knows a pair answering (a Prebid request's own rates, then the operator's). */
export class RatesInTurn implements RateSource {
  constructor(private readonly sources: readonly RateSource[]) {}
  rate(from: string, to: string): number | null {
    for (const s of this.sources) {
      const r = s.rate(from, to);
      if (r !== null) return r;
    }
    return null;
  }
}

const CODE = /^[A-Z]{3}$/;

/** A currency code as OpenRTB writes it (ISO-4217, upper case), or null. */
export function currencyCode(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const c = v.trim().toUpperCase();
  return CODE.test(c) ? c : null;
}

/** Rates from a currency file's JSON (Prebid's format); throws naming what is wrong. */
export function parseCurrencyFile(json: unknown): CurrencyRates {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error('a currency file is a JSON object');
  const { conversions, dataAsOf } = json as { conversions?: unknown; dataAsOf?: unknown };
  if (typeof conversions !== 'object' || conversions === null || Array.isArray(conversions))
    throw new Error('"conversions" must be an object of currencies');
  const out: Record<string, Record<string, number>> = {};
  for (const [from, row] of Object.entries(conversions)) {
    if (!CODE.test(from)) throw new Error(`conversions: "${from}" is not a currency code (three capital letters)`);
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      throw new Error(`conversions.${from} must be an object of rates`);
    out[from] = {};
    for (const [to, rate] of Object.entries(row as Record<string, unknown>)) {
      if (!CODE.test(to)) throw new Error(`conversions.${from}: "${to}" is not a currency code`);
      if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0)
        throw new Error(`conversions.${from}.${to} must be a positive number`);
      out[from][to] = rate;
    }
  }
  return new CurrencyRates(out, typeof dataAsOf === 'string' ? dataAsOf : '');
}

/**
 * What a price of a bid request (a floor, in `cur` or else USD) is in micro-dollars, or null when
 * the currency has no rate (ortb/currency.ts).
 */
export function floorMicros(price: unknown, cur: unknown, rates: RateSource | undefined): number | null {
  const code = cur === undefined ? 'USD' : currencyCode(cur);
  const usdPerUnit = code === 'USD' ? 1 : code ? (rates?.rate(code, 'USD') ?? null) : null;
  if (usdPerUnit === null) return null;
  return typeof price === 'number' ? Math.ceil(cpmToMicros(price) * usdPerUnit) : 0;
}

/** Micro-dollars CPM as the CPM a bid states in a currency worth `usdPerUnit` dollars a unit (USD by default), to the millionth. */
export const cpmIn = (micros: number, usdPerUnit = 1): number => microsToCpm(micros / usdPerUnit);

export interface CurrencyFeedLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** How long a rates URL may take to answer. */
const FETCH_TIMEOUT_MS = 10_000;

/**
 * The rates the edge reads (`current`: never waits), loaded from `source` (a path or an http(s)
 * URL) at start and, for a URL, again every `refreshMinutes`; a load that fails keeps the last good
 * rates and says so in the log.
 */
export class CurrencyFeed {
  current: CurrencyRates = CurrencyRates.USD_ONLY;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly source: string | null,
    private readonly log: CurrencyFeedLog,
    private readonly refreshMinutes = 60,
  ) {}

  /** Loads the rates once (never throws), then keeps them fresh when the source is a URL. */
  async start(): Promise<void> {
    if (!this.source) return;
    await this.load();
    if (/^https?:\/\//i.test(this.source) && this.refreshMinutes > 0) {
      this.timer = setInterval(() => void this.load(), this.refreshMinutes * 60_000);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async load(): Promise<void> {
    const source = this.source!;
    try {
      const text = /^https?:\/\//i.test(source) ? await fetchText(source) : await readFile(source, 'utf8');
      this.current = parseCurrencyFile(JSON.parse(text));
      this.log.info(
        { source, asOf: this.current.asOf, currencies: this.current.currencies.length },
        'currency rates loaded',
      );
    } catch (error) {
      this.log.warn(
        { source, err: error instanceof Error ? error.message : String(error) },
        'currency rates could not be loaded; keeping the rates before',
      );
    }
  }
}

async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, {
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    headers: { accept: 'application/json' },
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return await res.text();
}

/**
 * The currency an answer bids in: USD when the request's `cur` is absent, empty or lists it; else
 * the first currency it lists that `rates` convert USD to; null: none.
 */
export function answerCurrency(cur: unknown, rates: RateSource): { currency: string; usdPerUnit: number } | null {
  if (!Array.isArray(cur) || !cur.length || cur.some((c) => currencyCode(c) === 'USD'))
    return { currency: 'USD', usdPerUnit: 1 };
  for (const c of cur) {
    const code = currencyCode(c);
    const usdPerUnit = code ? rates.rate(code, 'USD') : null;
    if (code && usdPerUnit) return { currency: code, usdPerUnit };
  }
  return null;
}
