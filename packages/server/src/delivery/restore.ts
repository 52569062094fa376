import { DAILY_KEY_TTL_MS, MONTH_KEY_TTL_MS } from './accountBook.js';
import { type Account } from './allowances.js';
import { type DeliveryCore } from './deliveryCore.js';
import { type Batch } from './exchangeBatch.js';
import { type BudgetAsk, type SharedCounters } from './sharedCounters.js';
import { type CountFloors } from './types.js';

/** After the shared counters lost their data: at most this many counts sent back per exchange. */
export const RESTORE_SLICE = 2_000;
/** ... and at most this many hours of days' spend per hour, all budgets together (1,000 whole days). */
export const RESTORE_HOURS = 24_000;

/** What the restore asks of the exchange (exchange.ts). */
export interface RestoreExchange {
  /** Soon (not on this call): something is due. */
  wake(): void;
  /** An exchange answered at once (the in-process store) of these accounts. */
  exchangeInline(now: number, batch: Batch): void;
}

/**
 * Counts raised back after they were lost or never counted by the shared counters: to what this
 * process last saw when the shared counters lost their data (a Redis restarted without persistence,
 * or flushed: `generationSeen`), and to what the stats store counted before this process started
 * (`raiseCounts`). docs/delivery.md, "Redis down" and "Restarts".
 */
export class Restore {
  /** Spend last seen of accounts no longer held, to send back after the shared counters lost their data. */
  restoring: BudgetAsk[] = [];
  /** Of the exchange being made: how many more hours of days' spend per hour it may send back. */
  hoursLeft = RESTORE_HOURS;
  /** The generation of the shared counters' data, as of the last exchange (null: none yet). */
  private generation: string | null = null;

  constructor(
    private readonly core: DeliveryCore,
    private readonly exchange: RestoreExchange,
  ) {}

  private get shared(): SharedCounters {
    return this.core.shared;
  }

  /** The counts to send back in this exchange, taken off the list (`putBack` returns them when it fails). */
  take(): BudgetAsk[] {
    return this.restoring.splice(0, this.slice());
  }

  putBack(asks: BudgetAsk[]): void {
    this.restoring.unshift(...asks);
  }

  /** How many of the counts to send back go in this exchange: RESTORE_SLICE, and their hours within what is left of RESTORE_HOURS. */
  private slice(): number {
    let n = 0;
    for (; n < this.restoring.length && n < RESTORE_SLICE; n++) {
      const hours = this.restoring[n]!.hours?.spend.length ?? 0;
      if (hours > this.hoursLeft) break;
      this.hoursLeft -= hours;
    }
    return n;
  }

  /**
   * The generation of the shared counters' data changed: they lost it (a Redis restarted without
   * persistence, or flushed). The exchange that found it sent back only the counts it carried; the
   * next ones send back what this process last saw of every other count it knows: the spend of every
   * account it holds and of those it dropped since (AccountBook.lastSeen), with a day's spend per
   * hour as it saw it (the hours it knows: Account.hours), and its viewers' open windows. So a count
   * seen by a process that spends nothing on it after the loss is not lost, and what is counted after
   * the loss adds to the most any process saw before, or the stats store counted (exchangeScript.ts:
   * the larger of the two, never their sum), hour by hour for the spend per hour (RESTORE_HOURS
   * hours an exchange, of days not over).
   */
  generationSeen(now: number, batch: Batch | null, generation: string): void {
    const before = this.generation;
    this.generation = generation;
    if (before === null || before === generation) return;
    const { accounts: book, viewers: cached } = this.core;
    const sent = new Set<unknown>([...(batch?.accounts ?? []), ...(batch?.viewers ?? [])]);
    let accounts = 0;
    let viewers = 0;
    let hours = 0;
    for (const account of book.values()) {
      // the day's spend per hour seen in the generation before: kept to send back (the accounts of
      // this exchange's batch were turned over as it settled; one in flight is as it settles)
      if (account.hours && !account.inFlight && account.hoursGen !== generation) account.hoursIn(generation);
      if (account.hoursBack) hours++;
      if (sent.has(account) || account.restore || !((account.known && account.spent > 0) || account.floor > 0))
        continue;
      account.restore = true;
      accounts++;
    }
    for (const viewer of cached.values()) {
      if (sent.has(viewer) || viewer.restore || !(viewer.seenEnd > now && viewer.seenCount > 0)) continue;
      viewer.restore = true;
      cached.touched.add(viewer);
      viewers++;
    }
    this.restoring = book.lastSeen(now);
    this.core.log.warn(
      { engine: this.core.engine, accounts, hours, dropped: this.restoring.length, viewers },
      'delivery counters: Redis lost its data (restarted without persistence, or flushed); sending back the counts last seen',
    );
    this.exchange.wake();
  }

  /**
   * Raises the shared counts to what the stats store counted before this process started: today's
   * and the total spend of campaigns, today's impressions and calls of demand tags. The in-process
   * engine starts empty at every start, and a Redis without persistence may have lost its data: a
   * restart must not hand a campaign its budget again. Never lowers a count (a store that counted
   * more, impressions not yet flushed to the stats, keeps it). After a loss of the shared counters,
   * what it raises a count by is spend from before the loss, which the counts other processes send
   * back of it are measured against (exchangeScript.ts): the two are not added up. One exchange,
   * before serving; the post-bid counts are raised again every minute while serving (postbidCapSeed.ts),
   * so a count this process holds an account of is raised by that account's own exchange: an ask of
   * the count alone would drop its lease in the shared counters.
   */
  async raiseCounts(floors: CountFloors, now: number): Promise<void> {
    const { accounts } = this.core;
    const budgets: BudgetAsk[] = [];
    const inUse: Account[] = [];
    const raise = (key: string, floor: number, ttlMs: number) => {
      if (floor <= 0) return;
      const account = accounts.get(key);
      if (!account)
        budgets.push({
          key,
          limit: -1,
          want: 0,
          min: 1,
          used: 0,
          reserved: 0,
          floor,
          floorGen: '',
          evenRate: 0,
          paceStart: 0,
          dayEnd: 0,
          hour: -1,
          ttlMs,
        });
      else if (floor > Math.max(account.floor, account.spent)) {
        account.floor = floor;
        account.floorGen = '';
        if (!account.inFlight) inUse.push(account);
      }
    };
    for (const c of floors.campaigns) {
      raise(accounts.dailyKey(c.campaign, now), c.today, DAILY_KEY_TTL_MS);
      raise(`c${c.campaign.id}:t`, c.total, 0);
    }
    for (const t of floors.tags) {
      raise(accounts.tagKey(t.tag, 'ti', now), t.imps, DAILY_KEY_TTL_MS);
      raise(accounts.tagKey(t.tag, 'tr', now), t.calls, DAILY_KEY_TTL_MS);
    }
    for (const p of floors.postbid ?? []) raise(accounts.postbidKey(p.tenantId, now), p.count, MONTH_KEY_TTL_MS);
    for (const d of floors.deals ?? []) {
      raise(accounts.dealDayKey(d.deal, now), d.today, DAILY_KEY_TTL_MS);
      raise(accounts.dealTotalKey(d.deal), d.total, 0);
    }
    // (an account on its way in an exchange keeps its floor for the next: collect sends it)
    if (inUse.length && this.shared.sync)
      this.exchange.exchangeInline(now, { accounts: inUse, viewers: [], buckets: [] });
    else if (inUse.length) this.exchange.wake();
    if (budgets.length)
      this.generationSeen(
        now,
        null,
        (await this.shared.exchange({ now, budgets, frequencies: [], qps: [] })).generation,
      );
  }
}
