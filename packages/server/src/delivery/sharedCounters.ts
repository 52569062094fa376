import { randomBytes } from 'node:crypto';
import { allowedRate, DAY_MS, PACE_BURST_MS } from './pacing.js';

/**
 * The shared side of delivery control: what every process of a deployment agrees on (spend, leases,
 * pacing buckets, frequency counts, QPS shares). A process talks to it in one batched exchange, in
 * the background; the request path never waits for it. Two implementations with the same rules:
 * `MemoryCounterStore` (this process) and `RedisShared` (redisShared.ts, the Lua of
 * exchangeScript.ts): keep them in step (the same test suite runs on both).
 */

/** One budget (a campaign's day or total, a tag's daily requests or impressions). */
export interface BudgetAsk {
  key: string;
  /** The cap (micro-dollars or a count); -1 when unlimited: the spend is only counted. */
  limit: number;
  /** What this process wants to hold after the exchange (its reservations plus about a second of use). */
  want: number;
  /** The smallest useful grant (one impression's price). */
  min: number;
  /**
   * The reservations this process holds (decisions admitted under its lease whose impression has not
   * come): the lease granted is never less, whatever is free. Another process may have counted some
   * of their impressions already (their spend is in the shared spend, and this process drops them
   * when it hears the commit notice): cut below them, the lease would free budget those decisions
   * still hold, and another process could be leased it. 0 when the budget is unlimited or the process closes.
   */
  reserved: number;
  /** Spent here since the last exchange: added to the shared spend. */
  used: number;
  /**
   * The shared spend this process last saw, or the stats store's count (`raiseCounts`): a store that
   * holds less is raised to it. Seen in another generation of the store's data (`floorGen`; '' for
   * the stats store's), it was seen before the store lost its data (a Redis restarted without
   * persistence, or flushed): what was counted since adds to the most any process sends back. The
   * stats store's count and a count sent back are of the same spend from before the loss: the count
   * is the larger of them plus what was counted after the loss, never their sum (exchangeScript.ts).
   */
  floor: number;
  floorGen: string;
  /**
   * Even pacing: the even rate (per ms) over the pace window [paceStart, dayEnd) (pacing.ts
   * paceWindow: the day, or from the campaign's creation on its first day); 0 when not paced.
   * `paceStart` absent: the day's start (dayEnd - 24 h).
   */
  evenRate: number;
  paceStart?: number;
  dayEnd: number;
  /** The tenant-zone hour `used` is booked to (the day's spend per hour); -1: none. */
  hour: number;
  /** How long the shared keys live after their last use (ms); 0: kept (total budgets). */
  ttlMs: number;
  /**
   * The day's spend per hour this process saw before the store lost its data, sent back once it
   * finds the generation changed (absent otherwise): each hour is raised as the day's spend is, the
   * most any process sends back plus what was counted in that hour after the loss.
   */
  hours?: HoursSeen;
}

/** The start of an even budget's pace window, as sent (redisShared.ts sends the same). */
export const paceStartOf = (b: BudgetAsk): number => b.paceStart ?? b.dayEnd - DAY_MS;

/** A day's spend per tenant-zone hour as seen in one generation of the store's data: [hour, spend] of the hours seen spending (at most 24). */
export interface HoursSeen {
  gen: string;
  spend: [hour: number, spend: number][];
}

export interface BudgetGrant {
  /** What this process now holds (replaces its previous lease); 0 when nothing. */
  granted: number;
  /** The shared spend, `used` included. */
  spent: number;
  /** Other processes' live leases. */
  others: number;
  /** The grant was cut by the pacing bucket. */
  paced: boolean;
  /** The day's spend in the hour of the exchange and the hour before (pacing state). */
  hourNow: number;
  hourBefore: number;
}

/** A viewer's count for a campaign: `incr` impressions to add (0: just read). */
export interface FrequencyAsk {
  key: string;
  incr: number;
  periodMs: number;
  /**
   * The count and window end this process last saw (0, 0: none open), and the generation of the
   * store's data it saw them in: seen before the store lost its data, the window is restored while it
   * has not ended, and the count since adds to the most any process sends back.
   */
  floor: number;
  floorEnd: number;
  floorGen: string;
}

/** The count in the viewer's window and when the window ends (0: no window open). */
export interface FrequencyCount {
  count: number;
  windowEnd: number;
}

export interface QpsAsk {
  key: string;
  limit: number;
  /** This process's recent requests per second (attempts, refused ones included). */
  demand: number;
}

export interface QpsShare {
  /** Requests per second this process may let through. */
  share: number;
  /** Processes asking for this limit now. */
  processes: number;
}

export interface Exchange {
  now: number;
  budgets: BudgetAsk[];
  frequencies: FrequencyAsk[];
  qps: QpsAsk[];
}

export interface ExchangeReply {
  /** Live processes (those that exchanged within a lease lifetime). */
  processes: number;
  /**
   * The generation of the store's data: a new one when the store lost its data (a Redis restarted
   * without persistence, or flushed). A process that sees it change sends back what it last saw of
   * every count it knows (restore.ts).
   */
  generation: string;
  budgets: BudgetGrant[];
  frequencies: FrequencyCount[];
  qps: QpsShare[];
}

export interface SpendRead {
  spent: number;
  hourly: number[];
}

/**
 * What a process tells the others after counting impressions: the decisions it committed that it had
 * not made (their deciders let the reservations go), and the viewers it counted (`campaignId:viewer`:
 * the others add one to their cached counts at once rather than at their next fetch).
 */
export interface Notices {
  commits: string[];
  views: string[];
}

export interface SharedCounters {
  readonly engine: 'memory' | 'redis';
  /** True when an exchange answers at once (the in-process store): a short allowance is renewed inline. */
  readonly sync: boolean;
  exchange(x: Exchange): ExchangeReply | Promise<ExchangeReply>;
  /** The day's spend and spend per hour of budgets, for the console. */
  readSpend(keys: readonly string[]): Promise<SpendRead[]>;
  /** Tell every other process what was counted here (best effort). */
  publishNotices(notices: Notices): void;
  onNotices(listener: (notices: Notices) => void): void;
  /**
   * This process stops: it leaves the live processes at once, and its leases and QPS demand with it
   * (its leases were returned by a last exchange; a lease that was not goes now, not at its expiry).
   */
  leave(): Promise<void>;
  close(): Promise<void>;
}

/** How long a process's QPS demand counts for the others after its last exchange. */
export const QPS_DEMAND_TTL_MS = 1_000;

/**
 * The share of a QPS limit a process may use: its demand plus an equal part of the spare when the
 * processes ask for less than the limit, else the limit split in proportion to demand. The shares of
 * one moment add up to the limit, less their rounding: a share is in thousandths of a request per
 * second, rounded down, as the Redis script answers it (a script returns integers).
 */
export function qpsShare(limit: number, own: number, total: number, processes: number): number {
  let share = 0;
  if (total <= limit) share = own + (limit - total) / Math.max(processes, 1);
  else if (total > 0) share = (limit * own) / total;
  return Math.floor(share * 1000) / 1000;
}

interface Lease {
  amount: number;
  expires: number;
}

/** Entries per part of `MemoryCounterStore.savedParts`: a few ms of the event loop each. */
const SAVED_SLICE = 2_000;

/** `,"<name>":[...]` of a map's entries as JSON, SAVED_SLICE at a time (`entry` '' leaves one out). */
function* jsonArray<V>(
  name: string,
  map: ReadonlyMap<string, V>,
  entry: (key: string, value: V) => string,
): Generator<string, void, undefined> {
  let part = `,"${name}":[`;
  let first = true;
  let n = 0;
  for (const [key, value] of map) {
    const text = entry(key, value);
    if (!text) continue;
    part += first ? text : `,${text}`;
    first = false;
    if (++n % SAVED_SLICE === 0) {
      yield part;
      part = '';
    }
  }
  yield `${part}]`;
}

/** The form of `MemoryCounterStore.saved`; a file of another version is not read. */
export const SAVED_VERSION = 1;
export interface SavedCounters {
  version: number;
  savedAt: number;
  spent: [key: string, micros: number][];
  hourly: [key: string, micros: number[]][];
  expiry: [key: string, until: number][];
  frequency: [key: string, count: number, windowEnd: number][];
}

/** The in-process shared state. Several `MemoryShared` views (one per "process") may share one. */
export class MemoryCounterStore {
  readonly spent = new Map<string, number>();
  readonly hourly = new Map<string, number[]>();
  readonly leases = new Map<string, Map<string, Lease>>();
  readonly pace = new Map<string, { tokens: number; at: number }>();
  readonly frequency = new Map<string, { n: number; end: number; base?: number }>();
  /**
   * Per budget, the spend from before the data was lost that the count holds: the most a process saw
   * then and sent back, or what the stats store's counts raised the count by (exchangeScript.ts: the
   * restored base).
   */
  readonly base = new Map<string, number>();
  /** The same per hour of a budget's day (exchangeScript.ts: the restored base per hour). */
  readonly hourBase = new Map<string, number[]>();
  /** This store's data lives as long as the store (it is never lost while a process uses it): one generation. */
  readonly generation = randomBytes(6).toString('hex');
  readonly qps = new Map<string, Map<string, { demand: number; expires: number }>>();
  readonly processes = new Map<string, number>();
  readonly listeners = new Map<string, (notices: Notices) => void>();
  /** Keys of daily budgets and when they may go (a day without use), swept now and then. */
  private readonly expiry = new Map<string, number>();
  private sweptAt = 0;

  exchange(pid: string, leaseTtlMs: number, x: Exchange): ExchangeReply {
    const { now } = x;
    this.processes.set(pid, now);
    for (const [p, seen] of this.processes) if (seen < now - leaseTtlMs) this.processes.delete(p);
    this.sweep(now);
    return {
      processes: this.processes.size,
      generation: this.generation,
      budgets: x.budgets.map((b) => this.budget(pid, leaseTtlMs, now, b)),
      frequencies: x.frequencies.map((f) => this.count(now, f)),
      qps: x.qps.map((q) => this.share(pid, now, q)),
    };
  }

  private budget(pid: string, leaseTtlMs: number, now: number, b: BudgetAsk): BudgetGrant {
    let spent = this.spent.get(b.key) ?? 0;
    if (b.floorGen && b.floorGen !== this.generation) {
      // seen before the data was lost: adds only what it is beyond the spend from before the loss
      // the count already holds (the base)
      const base = this.base.get(b.key) ?? 0;
      if (b.floor > base) {
        spent += b.floor - base;
        this.base.set(b.key, b.floor);
      }
    } else if (b.floor > spent) {
      // the stats store's count: what it raises the count by is spend from before the loss, the same
      // spend a process sends back, so it joins the base (the two are never added up)
      this.base.set(b.key, (this.base.get(b.key) ?? 0) + b.floor - spent);
      spent = b.floor;
    }
    let hours = this.hourly.get(b.key);
    if (b.hours?.spend.length && b.hours.gen && b.hours.gen !== this.generation) {
      // the day's spend per hour seen before the data was lost: each hour as the day's spend above
      let base = this.hourBase.get(b.key);
      if (!base) this.hourBase.set(b.key, (base = new Array<number>(24).fill(0)));
      for (const [hour, seen] of b.hours.spend) {
        if (seen <= (base[hour] ?? 0)) continue;
        if (!hours) this.hourly.set(b.key, (hours = new Array<number>(24).fill(0)));
        hours[hour] = (hours[hour] ?? 0) + seen - (base[hour] ?? 0);
        base[hour] = seen;
      }
    }
    if (b.used !== 0) {
      spent += b.used;
      if (b.hour >= 0) {
        if (!hours) this.hourly.set(b.key, (hours = new Array<number>(24).fill(0)));
        hours[b.hour] = (hours[b.hour] ?? 0) + b.used;
      }
    }
    this.spent.set(b.key, spent);
    if (b.ttlMs > 0) this.expiry.set(b.key, now + b.ttlMs);
    let leases = this.leases.get(b.key);
    if (!leases) this.leases.set(b.key, (leases = new Map()));
    let mine = 0;
    let others = 0;
    let lapsed = 0;
    for (const [who, lease] of leases) {
      if (lease.expires <= now) {
        // what it did not spend (this process says what it spent now; another tells later)
        lapsed += who === pid ? Math.max(lease.amount - b.used, 0) : lease.amount;
        leases.delete(who);
      } else if (who === pid) mine = lease.amount;
      else others += lease.amount;
    }
    let granted = 0;
    let paced = false;
    if (b.limit >= 0) {
      const free = b.limit - spent - others;
      // less than one decision's price is no lease: a fragment of it would strand there, the rest in
      // another process's lease (two holding 6,666 and 3,334 of a last 10,000: neither can serve it)
      granted = free >= b.min ? Math.max(Math.min(b.want, free), 0) : 0;
      if (b.evenRate > 0) {
        const held = Math.min(Math.max(mine - b.used, 0), Math.max(free, 0));
        const rate = allowedRate(b.limit, spent, now, { start: paceStartOf(b), end: b.dayEnd });
        const cap = Math.max(rate * PACE_BURST_MS, b.min);
        const bucket = this.pace.get(b.key) ?? { tokens: cap, at: now };
        // a lease that lapsed unused gives its paced allowance back
        let tokens = bucket.tokens + (now > bucket.at ? rate * (now - bucket.at) : 0) + lapsed;
        if (tokens > cap) tokens = cap;
        if (granted - held > tokens) {
          granted = held + Math.max(Math.floor(tokens), 0);
          paced = true;
        }
        tokens = Math.min(tokens - (granted - held), cap);
        this.pace.set(b.key, { tokens, at: Math.max(now, bucket.at) });
      }
    }
    if (b.limit >= 0 && granted < b.reserved) granted = b.reserved;
    if (granted > 0) leases.set(pid, { amount: granted, expires: now + leaseTtlMs });
    else leases.delete(pid);
    return {
      granted,
      spent,
      others,
      paced,
      hourNow: b.hour >= 0 ? (hours?.[b.hour] ?? 0) : 0,
      hourBefore: b.hour > 0 ? (hours?.[b.hour - 1] ?? 0) : 0,
    };
  }

  private count(now: number, f: FrequencyAsk): FrequencyCount {
    let entry = this.frequency.get(f.key);
    if (entry && entry.end <= now) {
      this.frequency.delete(f.key);
      entry = undefined;
    }
    // a window seen before the data was lost: it opened then, and the count since adds to it
    if (f.floorGen && f.floorGen !== this.generation && f.floorEnd > now && f.floor > (entry?.base ?? 0)) {
      if (!entry) this.frequency.set(f.key, (entry = { n: 0, end: f.floorEnd }));
      entry.n += f.floor - (entry.base ?? 0);
      entry.base = f.floor;
      entry.end = Math.min(entry.end, f.floorEnd);
    }
    if (f.incr > 0) {
      if (!entry) this.frequency.set(f.key, (entry = { n: 0, end: now + f.periodMs }));
      entry.n += f.incr;
    }
    return entry ? { count: entry.n, windowEnd: entry.end } : { count: 0, windowEnd: 0 };
  }

  private share(pid: string, now: number, q: QpsAsk): QpsShare {
    let demands = this.qps.get(q.key);
    if (!demands) this.qps.set(q.key, (demands = new Map()));
    demands.set(pid, { demand: q.demand, expires: now + QPS_DEMAND_TTL_MS });
    let total = 0;
    for (const [who, d] of demands) {
      if (d.expires <= now) demands.delete(who);
      else total += d.demand;
    }
    return { share: qpsShare(q.limit, q.demand, total, demands.size), processes: demands.size };
  }

  /**
   * What the counters hold that outlives a restart (savedCounters.ts): spend and spend per hour by
   * budget key, when each key may go, and the frequency windows still open. Leases, QPS demand and
   * the processes are those of running processes, and the pacing buckets refill by themselves.
   */
  saved(now: number): SavedCounters {
    return {
      version: SAVED_VERSION,
      savedAt: now,
      spent: [...this.spent],
      hourly: [...this.hourly],
      expiry: [...this.expiry],
      frequency: [...this.frequency].filter(([, w]) => w.end > now).map(([key, w]) => [key, w.n, w.end]),
    };
  }

  /**
   * `saved` as JSON text in parts (ops/savedFile.ts StateParts), SAVED_SLICE entries at a time, each
   * made when the last is written: a million frequency windows make some 40 MB, which JSON.stringify
   * of the whole would take a second or more of the event loop to make. A map changed between two
   * slices is read as it is then (a new entry may be in or not; a deleted one is skipped).
   */
  *savedParts(now: number): Generator<string, void, undefined> {
    yield `{"version":${SAVED_VERSION},"savedAt":${now}`;
    yield* jsonArray('spent', this.spent, (key, micros) => JSON.stringify([key, micros]));
    yield* jsonArray('hourly', this.hourly, (key, hours) => JSON.stringify([key, hours]));
    yield* jsonArray('expiry', this.expiry, (key, until) => JSON.stringify([key, until]));
    yield* jsonArray('frequency', this.frequency, (key, w) => (w.end > now ? JSON.stringify([key, w.n, w.end]) : ''));
    yield '}';
  }

  /** Takes back what `saved` kept, into a store no process has used yet; what has expired since stays out. */
  restore(saved: SavedCounters, now: number): void {
    const expiry = new Map(saved.expiry);
    // a key without an expiry never goes (a total budget); a daily key whose day has passed is gone
    const gone = (key: string) => (expiry.get(key) ?? Infinity) <= now;
    for (const [key, until] of saved.expiry) if (until > now) this.expiry.set(key, until);
    for (const [key, micros] of saved.spent) if (!gone(key)) this.spent.set(key, micros);
    for (const [key, hours] of saved.hourly) if (!gone(key)) this.hourly.set(key, hours);
    for (const [key, count, end] of saved.frequency) if (end > now) this.frequency.set(key, { n: count, end });
  }

  /** Every 10 s: drop closed frequency windows and daily budgets a day past their last use. */
  private sweep(now: number): void {
    if (now - this.sweptAt < 10_000) return;
    this.sweptAt = now;
    for (const [key, entry] of this.frequency) if (entry.end <= now) this.frequency.delete(key);
    for (const [key, until] of this.expiry) {
      if (until > now) continue;
      for (const map of [this.spent, this.hourly, this.leases, this.pace, this.expiry, this.base, this.hourBase] as Map<
        string,
        unknown
      >[])
        map.delete(key);
    }
  }

  leave(pid: string): void {
    for (const leases of this.leases.values()) leases.delete(pid);
    for (const demands of this.qps.values()) demands.delete(pid);
    this.processes.delete(pid);
    this.listeners.delete(pid);
  }
}

/** One process's view of a `MemoryCounterStore`. */
export class MemoryShared implements SharedCounters {
  readonly engine = 'memory' as const;
  readonly sync = true;

  constructor(
    private readonly store: MemoryCounterStore,
    private readonly pid: string,
    private readonly leaseTtlMs: number,
    /** Called when this view closes (its last exchange made): the embedded edge saves the counters then (savedCounters.ts). */
    private readonly onClose?: () => void,
  ) {}

  exchange(x: Exchange): ExchangeReply {
    return this.store.exchange(this.pid, this.leaseTtlMs, x);
  }

  readSpend(keys: readonly string[]): Promise<SpendRead[]> {
    return Promise.resolve(
      keys.map((k) => ({
        spent: this.store.spent.get(k) ?? 0,
        hourly: [...(this.store.hourly.get(k) ?? new Array<number>(24).fill(0))],
      })),
    );
  }

  publishNotices(notices: Notices): void {
    for (const [pid, listener] of this.store.listeners) if (pid !== this.pid) listener(notices);
  }

  onNotices(listener: (notices: Notices) => void): void {
    this.store.listeners.set(this.pid, listener);
  }

  leave(): Promise<void> {
    this.store.leave(this.pid);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.onClose?.();
    return Promise.resolve();
  }
}
