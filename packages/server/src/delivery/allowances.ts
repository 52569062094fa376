import { allowedRate, DAY_MS, type PaceWindow } from './pacing.js';
import { type HoursSeen } from './sharedCounters.js';

/**
 * The local side of delivery control: what this process may spend without asking anyone. A budget's
 * `Account` holds the lease this process got from the shared counters and what it did with it; a
 * QPS limit's `QpsBucket` is a token bucket refilled at this process's share of the limit.
 */

/** A rate estimate (units per ms) decaying with a time constant of `tauMs`. */
class DecayingRate {
  private value = 0;
  private at = -Infinity;

  constructor(private readonly tauMs: number) {}

  add(amount: number, now: number): void {
    this.value = this.get(now) + amount / this.tauMs;
    this.at = now;
  }

  get(now: number): number {
    return now > this.at ? this.value * Math.exp(-(now - this.at) / this.tauMs) : this.value;
  }
}

export type AccountKind =
  | 'daily_budget'
  | 'total_budget'
  | 'daily_imp_cap'
  | 'daily_request_cap'
  | 'postbid_cap'
  | 'deal_imp_cap'
  | 'deal_daily_imp_cap';

export class Account {
  /** The cap; -1 when unlimited (the spend is counted for the pacing state, nothing is leased). */
  limit = -1;
  /** Even pacing: the daily budget's even rate over its pace window (per ms); 0 when not paced. */
  evenRate = 0;
  /**
   * Even pacing: the start of the pace window, [paceStart, dayEnd) (pacing.ts paceWindow): the day's
   * start, or the campaign's creation on its first day.
   */
  paceStart: number;
  /** The lease held: what the shared counters count as this process's. */
  granted = 0;
  /** Committed here and not yet sent; being sent in the exchange in flight. */
  used = 0;
  sending = 0;
  /** Held for decisions whose impression has not come yet. */
  reserved = 0;
  /** Given back while an exchange was in flight (commit notices): taken off the grant it brings. */
  shrunk = 0;
  /**
   * What the exchange in flight asked the shared counters to keep for this process whatever else they
   * decide (its `reserved`: the reservations held when it left, and a little room for the decisions
   * of its round trip). Its grant comes back at least this much, so while it is in flight this
   * process admits only within it: a decision admitted then cannot find its lease cut below it and
   * that part leased to another process. 0 when none is in flight.
   */
  claimed = 0;
  /** The shared spend and the other processes' leases, as of the last exchange. */
  spent = 0;
  /** The generation of the shared counters' data `spent` was seen in (sharedCounters.ts BudgetAsk.floorGen). */
  generation = '';
  /**
   * The stats store counted this much (`raiseCounts` while the account is in use; `floorGen` ''), or
   * the spend last seen of the key before the account was made again (AccountBook; its generation):
   * the next exchange raises the shared spend to it.
   */
  floor = 0;
  floorGen = '';
  others = 0;
  hourNow = 0;
  hourBefore = 0;
  /** The last grant was cut by pacing. */
  paced = false;
  /** An exchange answered for it at least once. */
  known = false;
  /** The shared counters lost their data (a Redis restarted empty): the next exchange sends `spent` back as the floor, whatever else is due. */
  restore = false;
  inFlight = false;
  lastSync = -Infinity;
  /** Last time a decision asked for it, and last time anything touched it. */
  wantedAt = -Infinity;
  usedAt: number;
  /** Not before this time does a short account ask again (a spent or paced budget waits its turn). */
  retryAt = 0;
  /** The price of the last decision: a lease smaller than this is of no use. */
  price = 1;
  /** The tenant-zone hour of the last exchange (hourNow, hourBefore are of it and the hour before). */
  hourAt = -1;
  /**
   * The day's spend per hour as last seen (hourNow and hourBefore of each exchange), in the
   * generation `hoursGen`: what this process sends back, for the hours it saw, when the shared
   * counters lose their data (a daily account; null until seen).
   */
  hours: number[] | null = null;
  hoursGen = '';
  /** Hours seen in a generation before the current one, to send back (the next exchanges carry them); null: none. */
  hoursBack: HoursSeen | null = null;
  /** The hours the exchange in flight sends back. */
  hoursSending: HoursSeen | null = null;
  /** While Redis is down: what this process may spend beyond its lease, worked out for the outage that began at `downSince`. */
  downShare = 0;
  downSince = -1;
  readonly rate = new DecayingRate(5_000);

  constructor(
    readonly key: string,
    readonly kind: AccountKind,
    /** Shared keys' lifetime after last use; 0 for total budgets (kept). */
    readonly ttlMs: number,
    /** The tenant's offset (hour of the day the spend is booked to); null: no spend per hour. */
    readonly timezone: number | null,
    /** The end of the account's day (Infinity for a total budget; a post-bid count's: its month). */
    readonly dayEnd: number,
    now: number,
  ) {
    this.usedAt = now;
    this.paceStart = dayEnd - DAY_MS;
  }

  /** The pace window of an even daily budget. */
  get paceWindow(): PaceWindow {
    return { start: this.paceStart, end: this.dayEnd };
  }

  get unlimited(): boolean {
    return this.limit < 0;
  }

  /** The shared spend including what this process has not sent yet. */
  get spentSoFar(): number {
    return this.spent + this.used + this.sending;
  }

  get idle(): boolean {
    return !this.reserved && !this.used && !this.sending && !this.granted && !this.inFlight;
  }

  /** The hours seen with spend, as sent back. */
  hoursSeen(): HoursSeen | null {
    const spend = spendByHour(this.hours);
    return spend.length ? { gen: this.hoursGen, spend } : null;
  }

  /**
   * The day's spend per hour now seen in `generation`: hours seen in another (before the shared
   * counters lost their data) are kept to send back, and seeing starts again.
   */
  hoursIn(generation: string): number[] {
    if (this.hoursGen !== generation || !this.hours) {
      if (this.hoursGen) this.hoursBack = this.hoursSeen() ?? this.hoursBack;
      this.hours = new Array<number>(24).fill(0);
      this.hoursGen = generation;
    }
    return this.hours;
  }
}

/** [hour, spend] of the hours with spend. */
function spendByHour(hours: readonly number[] | null): [hour: number, spend: number][] {
  const spend: [number, number][] = [];
  if (hours) for (let h = 0; h < hours.length; h++) if (hours[h]! > 0) spend.push([h, hours[h]!]);
  return spend;
}

/** The outage under way: since when, how many processes were live, the down margin. */
export interface Outage {
  since: number;
  processes: number;
  margin: number;
}

/**
 * While Redis is down, beyond its lease a process may spend its share of what no process held when
 * the outage began (split among the live processes), at most `margin` of the budget; an account it
 * had never synced gets the margin. Even pacing still holds: the extra comes at the process's part of
 * the allowed rate.
 */
export function downAllowance(account: Account, outage: Outage, now: number): number {
  if (account.downSince !== outage.since) {
    account.downSince = outage.since;
    const margin = Math.floor(account.limit * outage.margin);
    const unleased = account.limit - account.spent - account.others - account.granted;
    account.downShare = account.known
      ? Math.min(Math.max(Math.floor(unleased / Math.max(outage.processes, 1)), 0), margin)
      : margin;
  }
  if (!account.evenRate) return account.downShare;
  const rate = allowedRate(account.limit, account.spentSoFar, now, account.paceWindow) / Math.max(outage.processes, 1);
  return Math.min(account.downShare, Math.floor(rate * Math.max(now - outage.since, 0)));
}

/** A local token bucket at this process's share (requests per second) of a QPS limit. */
export class QpsBucket {
  limit = 0;
  share: number;
  tokens: number;
  at: number;
  /** Requests asked for since the last exchange, and the demand (requests per second) sent. */
  attempts = 0;
  demand = 0;
  lastSync: number;
  usedAt: number;
  inFlight = false;
  known = false;

  constructor(
    readonly key: string,
    limit: number,
    processes: number,
    now: number,
  ) {
    this.limit = limit;
    // before the first answer: an equal part of the limit among the processes last seen
    this.share = limit / Math.max(processes, 1);
    this.tokens = this.capacity;
    this.at = now;
    this.lastSync = now;
    this.usedAt = now;
  }

  /** The bucket's depth: 200 ms at the share, at least one request. */
  get capacity(): number {
    return Math.max(1, this.share * 0.2);
  }

  refill(now: number): void {
    if (now > this.at) this.tokens = Math.min(this.capacity, this.tokens + (this.share * (now - this.at)) / 1000);
    this.at = Math.max(this.at, now);
  }
}
