import { FRESH_MS, MAX_NOTICES, type DeliveryCore } from './deliveryCore.js';
import { askOf, type Batch, putBack, settleBatch } from './exchangeBatch.js';
import { Restore, RESTORE_HOURS, RESTORE_SLICE } from './restore.js';
import { type ExchangeReply } from './sharedCounters.js';

/** The fewest routine renewals a tick sends (Exchanger.routineShare): a small book is renewed whole. */
const ROUTINE_MIN = 256;

/**
 * The process's side of the exchange with the shared counters, in the background: every `tickMs`,
 * or soon after an allowance runs low (`wake`), it sends what is due (spend, leases to renew or
 * return, viewers to fetch, QPS demand) in one batch and settles the answer; with the in-process
 * store a short allowance is renewed inline (`exchangeInline`). A failed exchange puts the batch
 * back and serves within the down margin until the shared counters answer again. What exchangeBatch.ts
 * does with one batch, this decides: when, and what goes in it.
 */
export class Exchanger {
  readonly restore: Restore;
  private ticking: Promise<void> | null = null;
  private again = false;
  private woken = false;
  private readonly timer: NodeJS.Timeout | null = null;
  private readonly tickMs: number;

  constructor(
    private readonly core: DeliveryCore,
    options: { tickMs?: number; timers?: boolean },
  ) {
    this.restore = new Restore(core, this);
    this.tickMs = options.tickMs ?? 100;
    if (options.timers ?? true) {
      this.timer = setInterval(() => void this.tick(), this.tickMs);
      this.timer.unref();
    }
  }

  /** Soon (not on this request): an allowance is running low. */
  wake(): void {
    if (this.woken || this.core.closed) return;
    this.woken = true;
    setImmediate(() => {
      this.woken = false;
      void this.tick();
    });
  }

  private tick(all = false): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      try {
        do {
          this.again = false;
          await this.exchangeDue(this.core.clock(), all);
        } while (this.again && !all);
      } catch (error) {
        this.core.log.error({ err: error }, 'delivery counters: exchange failed');
      } finally {
        this.ticking = null;
      }
    })();
    return this.ticking;
  }

  async flush(): Promise<void> {
    while (this.ticking) await this.ticking;
    await this.tick(true);
  }

  /**
   * How many accounts one tick sends for a routine renewal alone (a second since the last, nothing
   * urgent): twice an even share of the book over the ticks of one renewal period, and at least
   * ROUTINE_MIN. Accounts that a burst of traffic opened together come due together, renewal after
   * renewal; in one batch, at 100,000 campaigns, building and settling it held the serving thread for
   * tens of milliseconds once a second. Capped, they spread over the ticks of the period and stay
   * spread (each is renewed a period after it was sent). One left over goes at the next tick, the
   * book being walked in the same order: a renewal is late by a tick or two, where a lease lives for
   * five periods (leaseTtlMs). What is urgent (spend that commit notices wait on, a low or raised
   * allowance, a restore, a flush) is never held back.
   */
  private routineShare(accounts: number): number {
    return Math.max(ROUTINE_MIN, Math.ceil((2 * accounts * this.tickMs) / this.core.renewMs));
  }

  /**
   * What is due: spend to send, leases to renew or return, viewers to fetch, QPS shares to renew.
   * `spendNow`: commit notices are waiting, so every account with unsent spend goes now (see exchangeDue).
   */
  private collect(now: number, all: boolean, spendNow = false): Batch {
    const { core, restore } = this;
    const batch: Batch = { accounts: [], viewers: [], buckets: [] };
    core.accounts.sweepSeen(now);
    let routine = this.routineShare(core.accounts.size);
    for (const account of core.accounts.values()) {
      if (account.inFlight) continue;
      // (hours of a day that is over are not sent back)
      if (account.hoursBack && now >= account.dayEnd) account.hoursBack = null;
      // (one with a count to send back goes first: AccountBook keeps its spend when it leaves)
      if (account.idle && !account.restore && !account.hoursBack && now - account.usedAt > core.idleMs) {
        core.accounts.delete(account.key);
        continue;
      }
      const wanted = now - account.wantedAt < core.idleMs;
      const renewal = now - account.lastSync >= core.renewMs && (account.used > 0 || account.granted > 0 || wanted);
      // (an unlimited count asked about is read once: a post-bid month's count for the trace)
      const low =
        wanted &&
        now >= account.retryAt &&
        (!account.known || (!account.unlimited && core.available(account, now) < core.lowWater(account, now)));
      const raised = account.floor > account.spent;
      // the day's spend per hour seen before a loss: sent back RESTORE_HOURS hours at a time
      const hours = account.hoursBack && account.hoursBack.spend.length <= restore.hoursLeft ? account.hoursBack : null;
      // (a count only read, as a post-bid month's for the trace on a process that takes none, is read again each renewal while asked about)
      const urgent = all || low || raised || account.restore || hours || (spendNow && account.used > 0);
      if (urgent || (renewal && routine-- > 0)) {
        batch.accounts.push(account);
        if (hours) {
          account.hoursSending = hours;
          restore.hoursLeft -= hours.spend.length;
        }
      }
    }
    let restored = 0;
    for (const viewer of core.viewers.touched) {
      if (viewer.inFlight) continue;
      // asked about since the last fetch: fetched again after a second, or at the next tick when one
      // more impression would reach the cap (there a stale count would matter)
      const asked = viewer.usedAt >= viewer.fetchedAt;
      const restoreNow = viewer.restore && restored < RESTORE_SLICE;
      if (
        viewer.unsent > 0 ||
        restoreNow ||
        (asked && (all || now - viewer.fetchedAt >= FRESH_MS || viewer.total(now) >= viewer.cap - 1))
      ) {
        if (viewer.restore) restored++;
        batch.viewers.push(viewer);
        core.viewers.touched.delete(viewer);
      } else if (!asked && !viewer.restore) core.viewers.touched.delete(viewer);
    }
    for (const bucket of core.buckets.values()) {
      if (bucket.inFlight) continue;
      if (now - bucket.usedAt > core.idleMs) core.buckets.delete(bucket.key);
      else batch.buckets.push(bucket);
    }
    return batch;
  }

  private async exchangeDue(now: number, all: boolean, closing = false): Promise<void> {
    const { core, restore } = this;
    core.sweep(now);
    // A commit notice lets the deciding process drop its reservation and shrink its lease; were the
    // spend of that impression not yet in the shared store, the freed amount could be leased and
    // spent again (an overspend measured under load: bench/workers.bench.ts). So the spend goes in
    // this exchange and the notices after it.
    // (notices of commits made while the exchange is on its way wait for the next one, with their spend)
    const notices = { commits: core.notices, views: core.views };
    core.notices = [];
    core.views = [];
    restore.hoursLeft = RESTORE_HOURS;
    const batch = this.collect(now, all, notices.commits.length > 0);
    const restoring = restore.take();
    const empty = !batch.accounts.length && !batch.viewers.length && !batch.buckets.length && !restoring.length;
    if (!(empty && now - core.lastExchange < core.renewMs && !(all && core.state === 'down'))) {
      const x = askOf(batch, now, core.timing, closing);
      // (after the batch's own: settle reads the replies of the batch's accounts by their place)
      x.budgets.push(...restoring);
      try {
        this.settle(now, batch, await core.shared.exchange(x));
      } catch (error) {
        restore.putBack(restoring);
        this.fail(now, batch, error);
      }
    } else restore.putBack(restoring);
    if (!notices.commits.length && !notices.views.length) return;
    if (core.state === 'ok') core.shared.publishNotices(notices);
    else {
      // kept for when the shared counters answer again
      core.notices = [...notices.commits, ...core.notices].slice(0, MAX_NOTICES);
      core.views = [...notices.views, ...core.views].slice(0, MAX_NOTICES);
    }
  }

  /**
   * An exchange answered at once (the in-process store), for accounts not in an exchange already: the
   * answer of one in flight, coming after, would settle the account again with its older grant.
   */
  exchangeInline(now: number, batch: Batch): void {
    const due: Batch = { ...batch, accounts: batch.accounts.filter((a) => !a.inFlight) };
    if (!due.accounts.length && !due.viewers.length && !due.buckets.length) return;
    const reply = this.core.shared.exchange(askOf(due, now, this.core.timing, false)) as ExchangeReply;
    this.settle(now, due, reply);
  }

  private settle(now: number, batch: Batch, reply: ExchangeReply): void {
    const { core } = this;
    core.processes = Math.max(reply.processes, 1);
    core.lastExchange = now;
    core.counts.exchanges++;
    settleBatch(batch, reply, now, core.renewMs);
    this.restore.generationSeen(now, batch, reply.generation);
    if (core.state === 'down') {
      core.log.info(
        { engine: core.engine, downMs: now - core.since, reconciled: batch.accounts.length },
        'delivery counters: Redis is back, the spend counted meanwhile is reconciled',
      );
      core.state = 'ok';
      core.since = now;
    }
  }

  private fail(now: number, batch: Batch, error: unknown): void {
    const { core } = this;
    core.counts.exchangeFailures++;
    putBack(batch);
    for (const viewer of batch.viewers) core.viewers.touched.add(viewer);
    if (core.state === 'down') return;
    core.state = 'down';
    core.since = now;
    core.log.warn(
      {
        engine: core.engine,
        err: error instanceof Error ? error.message : String(error),
        processes: core.processes,
        downMargin: core.downMargin,
      },
      'delivery counters: Redis unreachable, serving on local allowances (leases plus at most the down margin of each budget) until it is back',
    );
  }

  /** The last exchange (spend sent, leases returned), then the shared counters are left and closed. */
  async close(): Promise<void> {
    const { core } = this;
    if (core.closed) return;
    core.closed = true;
    if (this.timer) clearInterval(this.timer);
    while (this.ticking) await this.ticking;
    const now = core.clock();
    try {
      await this.exchangeDue(now, true, true);
      if (core.state === 'ok') await core.shared.leave();
    } finally {
      const unsent = [...core.accounts.values()].reduce((sum, a) => sum + (a.unlimited ? 0 : a.used), 0);
      if (core.state === 'down' && unsent)
        core.log.warn({ unsent }, 'delivery counters: closed while Redis is down; spend not sent');
      await core.shared.close();
    }
  }
}
