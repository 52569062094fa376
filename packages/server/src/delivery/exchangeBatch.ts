import { type Account, type QpsBucket } from './allowances.js';
import { type ViewerCount } from './frequency.js';
import { allowedRate, HOUR_MS } from './pacing.js';
import { type BudgetAsk, type Exchange, type ExchangeReply } from './sharedCounters.js';

/**
 * One exchange of a process with the shared counters, on its local side: what goes out (spend
 * counted, leases wanted, viewer counts, QPS demand), what comes back, and what is put back when
 * Redis did not answer. The exchange (exchange.ts) decides what is due.
 */
export interface Batch {
  accounts: Account[];
  viewers: ViewerCount[];
  buckets: QpsBucket[];
}

/** The tenant-zone hour `now` falls in for a daily account (its last hour once its day is over); -1 for a total. */
const hourOf = (account: Account, now: number): number =>
  account.timezone === null
    ? -1
    : now >= account.dayEnd
      ? 23
      : Math.floor((now + account.timezone * HOUR_MS) / HOUR_MS) % 24;

/**
 * How long an exchange's round trip is provisioned for: a budget's claim (Account.claimed) holds its
 * reservations and about this long of its recent spend (at least two impressions), within its lease.
 */
const FLIGHT_MS = 50;

/**
 * The exchange to send; marks what it carries as in flight. A budget asked for lately wants its
 * reservations plus about `chunkMs` of its recent spend (at least two impressions); closing, nothing.
 * Its grant is floored at its claim: the reservations held now and room for the decisions admitted
 * before the answer comes (FLIGHT_MS of its spend, within what the lease has left; an evenly paced
 * budget claims no room, and admits nothing more until the answer).
 */
export function askOf(
  batch: Batch,
  now: number,
  timing: { idleMs: number; chunkMs: number },
  closing: boolean,
): Exchange {
  const budgets = batch.accounts.map((account): BudgetAsk => {
    const wanted = !closing && now - account.wantedAt < timing.idleMs;
    const want =
      account.unlimited || closing
        ? 0
        : Math.ceil(
            account.reserved + (wanted ? Math.max(2 * account.price, account.rate.get(now) * timing.chunkMs) : 0),
          );
    account.sending = account.used;
    account.used = 0;
    account.inFlight = true;
    // Room for whole decisions only: a claimed piece under one price would be kept, exchange after
    // exchange, from the process that could put it together with the rest of the budget. None for an
    // evenly paced budget: its grant is what pacing allows, which a floor must not raise.
    const left =
      account.evenRate > 0
        ? 0
        : Math.min(
            Math.max(2 * account.price, account.rate.get(now) * FLIGHT_MS),
            account.granted - account.sending - account.reserved,
          );
    const room = left >= account.price ? Math.floor(left) : 0;
    account.claimed = account.unlimited || closing ? 0 : account.reserved + room;
    // the shared spend last seen (and its generation), unless the stats store counted more
    const seen = account.known && account.spent >= account.floor;
    const ask: BudgetAsk = {
      key: account.key,
      limit: account.limit,
      want,
      min: account.price,
      used: account.sending,
      reserved: account.claimed,
      floor: seen ? account.spent : account.floor,
      floorGen: seen ? account.generation : account.floorGen,
      evenRate: account.evenRate,
      paceStart: account.evenRate ? account.paceStart : 0,
      dayEnd: account.evenRate ? account.dayEnd : 0,
      hour: hourOf(account, now),
      ttlMs: account.ttlMs,
    };
    // the day's spend per hour seen before the shared counters lost their data (the engine chose it: hoursSending)
    if (account.hoursSending) ask.hours = account.hoursSending;
    return ask;
  });
  const frequencies = batch.viewers.map((viewer) => {
    viewer.sending = viewer.unsent;
    viewer.unsent = 0;
    viewer.inFlight = true;
    // as last fetched (a notice's count may be of an impression sent after a loss)
    const open = viewer.seenEnd > now && viewer.seenCount > 0;
    return {
      key: viewer.key,
      incr: viewer.sending,
      periodMs: viewer.periodMs,
      floor: open ? viewer.seenCount : 0,
      floorEnd: open ? viewer.seenEnd : 0,
      floorGen: viewer.generation,
    };
  });
  const qps = batch.buckets.map((bucket) => {
    const elapsed = Math.max(now - bucket.lastSync, 100);
    bucket.demand = bucket.known ? (bucket.attempts * 1000) / elapsed : Math.max(bucket.attempts, 1);
    bucket.attempts = 0;
    bucket.inFlight = true;
    return { key: bucket.key, limit: bucket.limit, demand: Math.max(bucket.demand, 0.1) };
  });
  return { now, budgets, frequencies, qps };
}

/** The answer: new leases (less what commit notices gave back meanwhile), shared spend and counts, QPS shares. */
export function settleBatch(batch: Batch, reply: ExchangeReply, now: number, renewMs: number): void {
  batch.accounts.forEach((account, i) => {
    const g = reply.budgets[i]!;
    account.inFlight = false;
    account.claimed = 0;
    account.restore = false;
    account.sending = 0;
    account.granted = Math.max(g.granted - account.shrunk, 0);
    account.shrunk = 0;
    account.spent = g.spent;
    account.generation = reply.generation;
    account.others = g.others;
    account.paced = g.paced;
    account.hourNow = g.hourNow;
    account.hourBefore = g.hourBefore;
    account.hourAt = hourOf(account, now);
    if (account.hoursSending) {
      if (account.hoursBack === account.hoursSending) account.hoursBack = null;
      account.hoursSending = null;
    }
    if (account.hourAt >= 0) {
      // the hours as seen now, in this generation (hoursIn keeps those seen in another to send back)
      const hours = account.hoursIn(reply.generation);
      hours[account.hourAt] = g.hourNow;
      if (account.hourAt > 0) hours[account.hourAt - 1] = g.hourBefore;
    }
    account.known = true;
    account.lastSync = now;
    // a spent or paced budget asks again later, not on every tick
    const short = !account.unlimited && g.granted - account.used - account.reserved < account.price;
    if (!short) account.retryAt = 0;
    else if (g.paced) {
      const rate = allowedRate(account.limit, account.spentSoFar, now, account.paceWindow);
      account.retryAt = now + Math.min(Math.max(rate > 0 ? account.price / rate : renewMs, 100), renewMs);
    } else account.retryAt = now + renewMs;
  });
  batch.viewers.forEach((viewer, i) => {
    const f = reply.frequencies[i]!;
    viewer.inFlight = false;
    viewer.restore = false;
    viewer.sending = 0;
    viewer.count = f.count;
    viewer.seenCount = f.count;
    viewer.seenEnd = f.windowEnd;
    viewer.generation = reply.generation;
    viewer.windowEnd = f.windowEnd;
    viewer.fetchedAt = now;
  });
  batch.buckets.forEach((bucket, i) => {
    const q = reply.qps[i]!;
    bucket.inFlight = false;
    bucket.known = true;
    bucket.lastSync = now;
    bucket.share = Math.min(q.share, bucket.limit);
    bucket.tokens = Math.min(bucket.tokens, bucket.capacity);
  });
}

/** No answer: what was being sent is counted again locally, to go with the next exchange (the reconcile). */
export function putBack(batch: Batch): void {
  for (const account of batch.accounts) {
    account.shrunk = 0;
    account.hoursSending = null;
    account.used += account.sending;
    account.sending = 0;
    account.inFlight = false;
    account.claimed = 0;
    account.retryAt = 0;
  }
  for (const viewer of batch.viewers) {
    viewer.unsent += viewer.sending;
    viewer.sending = 0;
    viewer.inFlight = false;
  }
  for (const bucket of batch.buckets) bucket.inFlight = false;
}
