import { systemClock } from '../clock.js';
import { AccountBook } from './accountBook.js';
import { type Account, downAllowance, type QpsBucket } from './allowances.js';
import { ViewerCounts } from './frequency.js';
import { Reservations } from './reservations.js';
import { type SharedCounters } from './sharedCounters.js';
import { type DeliveryLog, type DeliveryStats, type Refusal } from './types.js';

/** The engine's timings and limits (docs/delivery.md, "Settings and options"). */
export interface DeliveryOptions {
  log: DeliveryLog;
  /** The background exchanges' clock (tests pass a simulated one); request-path calls take `now`. */
  clock?: () => number;
  /** A reservation not committed within this is returned (ms). */
  holdMs?: number;
  /** A lease not renewed within this frees itself (ms). */
  leaseTtlMs?: number;
  /** A lease in use is renewed, and spend is sent, at least this often (ms). */
  renewMs?: number;
  tickMs?: number;
  /** A budget not asked for this long returns its lease (ms). */
  idleMs?: number;
  /** A lease covers about this much of this process's recent spend (ms), at least two impressions. */
  chunkMs?: number;
  /** While Redis is down, a process spends at most this share of a budget beyond its lease. */
  downMargin?: number;
  maxViewers?: number;
  /** Run the periodic exchange (default true); tests with a simulated clock may drive it with flush(). */
  timers?: boolean;
}

/** A viewer's count is fetched again after this long while it is asked about (ms). */
export const FRESH_MS = 1_000;
/** At most this many commit and viewer notices wait for the next exchange. */
export const MAX_NOTICES = 10_000;

const noRefusals = (): Record<Refusal, number> => ({
  daily_budget: 0,
  total_budget: 0,
  pacing: 0,
  budget_lease: 0,
  frequency_cap: 0,
  daily_imp_cap: 0,
  daily_request_cap: 0,
  qps_limit: 0,
  postbid_cap: 0,
  deal_imp_cap: 0,
  deal_daily_imp_cap: 0,
});

/**
 * What a process's delivery control keeps, shared by its parts: the admission (admission.ts, the
 * request path), the exchange with the shared counters (exchange.ts) and the restore after the
 * shared counters lost their data (restore.ts). Also the measures of what the process may still spend,
 * which the admission decides on and the exchange renews by.
 */
export class DeliveryCore {
  readonly engine: 'memory' | 'redis';
  readonly accounts = new AccountBook();
  readonly reservations = new Reservations();
  readonly buckets = new Map<string, QpsBucket>();
  readonly viewers: ViewerCounts;
  /** Commits of decisions made elsewhere, and viewers counted here: told the other processes after the next exchange. */
  notices: string[] = [];
  views: string[] = [];
  /** Whether the shared counters answered the last exchange, and since when it is so. */
  state: 'ok' | 'down' = 'ok';
  since: number;
  /** Live processes, as of the last exchange. */
  processes = 1;
  lastExchange = -Infinity;
  closed = false;
  readonly counts: Omit<DeliveryStats, 'held' | 'overspend'> = {
    admitted: 0,
    refused: noRefusals(),
    expired: 0,
    committed: 0,
    committedUnreserved: 0,
    overAllowance: 0,
    committedElsewhere: 0,
    exchanges: 0,
    exchangeFailures: 0,
  };
  readonly clock: () => number;
  readonly holdMs: number;
  readonly leaseTtlMs: number;
  readonly renewMs: number;
  readonly idleMs: number;
  readonly timing: { idleMs: number; chunkMs: number };
  readonly downMargin: number;
  readonly log: DeliveryLog;

  constructor(
    readonly shared: SharedCounters,
    options: DeliveryOptions,
  ) {
    this.engine = shared.engine;
    this.log = options.log;
    this.clock = options.clock ?? systemClock.now;
    this.holdMs = options.holdMs ?? 60_000;
    this.leaseTtlMs = options.leaseTtlMs ?? 5_000;
    this.renewMs = options.renewMs ?? 1_000;
    this.idleMs = options.idleMs ?? 5_000;
    this.timing = { idleMs: this.idleMs, chunkMs: options.chunkMs ?? 1_000 };
    this.downMargin = options.downMargin ?? 0.01;
    this.viewers = new ViewerCounts(options.maxViewers ?? 100_000);
    this.since = this.clock();
  }

  refuse(refusal: Refusal): Refusal {
    this.counts.refused[refusal]++;
    return refusal;
  }

  /** Reservations past the hold time go back. */
  sweep(now: number): void {
    this.counts.expired += this.reservations.expire(now);
  }

  /** What this process may still reserve on the account now. */
  available(account: Account, now: number): number {
    if (account.unlimited) return Infinity;
    let left = account.granted - account.used - account.sending - account.reserved;
    if (this.state === 'down')
      left += downAllowance(account, { since: this.since, processes: this.processes, margin: this.downMargin }, now);
    // a lease older than its lifetime may be someone else's by now: renew before using it
    else if (account.known && now - account.lastSync >= this.leaseTtlMs) left -= account.granted;
    return left;
  }

  /**
   * What a decision may take of the account now: what is available, and while an exchange is in
   * flight no more than its claim (Account.claimed), which its answer cannot cut below.
   */
  admissible(account: Account, now: number): number {
    const left = this.available(account, now);
    if (!account.inFlight || account.unlimited || this.state === 'down') return left;
    return Math.min(left, account.claimed - account.reserved - account.used - account.shrunk);
  }

  /** Below this available, the account's lease is renewed. */
  lowWater(account: Account, now: number): number {
    return Math.max(account.price, (account.rate.get(now) * this.timing.chunkMs) / 2);
  }
}
