import { type Limit } from '@adplane/shared';
import { AccountBook, DAILY_KEY_TTL_MS, dayIndex, MONTH_KEY_TTL_MS } from './accountBook.js';
import { type Account, downAllowance, QpsBucket } from './allowances.js';
import { type ViewerCount, ViewerCounts } from './frequency.js';
import { DAY_MS, HOUR_MS, pacingState, type PacingState } from './pacing.js';
import { askOf, type Batch, putBack, settleBatch } from './exchangeBatch.js';
import { Reservations } from './reservations.js';
import { type BudgetAsk, type ExchangeReply, type SharedCounters, type SpendRead } from './sharedCounters.js';
import {
  type Admission, type CampaignLimits, type CampaignSpend, type CountFloors, type DeliveryCounters, type DeliveryHealth, type DeliveryLog, type DeliveryStats, type QpsScope, type Refusal,
  type TagLimits,
} from './types.js';

/**
 * Delivery control over one `SharedCounters` (in this process, or Redis): the request path decides
 * on local allowances only; a background exchange (every `tickMs`, or at once when an allowance runs
 * low) sends what was spent and renews the leases. With the in-process store an exchange answers at
 * once, so a short allowance is renewed inline and the engine is exact. docs/delivery.md has the
 * scheme and its bounds.
 */
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

const FRESH_MS = 1_000;
const MAX_NOTICES = 10_000;
/** After the shared counters lost their data: at most this many counts sent back per exchange. */
const RESTORE_SLICE = 2_000;
/** ... and at most this many hours of days' spend per hour, all budgets together (1,000 whole days). */
const RESTORE_HOURS = 24_000;

const noRefusals = (): Record<Refusal, number> => ({
  daily_budget: 0, total_budget: 0, pacing: 0, budget_lease: 0, frequency_cap: 0, daily_imp_cap: 0, daily_request_cap: 0, qps_limit: 0, postbid_cap: 0,
});


export class DeliveryEngine implements DeliveryCounters {
  readonly engine: 'memory' | 'redis';
  private readonly accounts = new AccountBook();
  private readonly reservations = new Reservations();
  private readonly buckets = new Map<string, QpsBucket>();
  private readonly viewers: ViewerCounts;
  private notices: string[] = [];
  private views: string[] = [];
  /** Spend last seen of accounts no longer held, to send back after the shared counters lost their data. */
  private restoring: BudgetAsk[] = [];
  /** Of the exchange being made: how many more hours of days' spend per hour it may send back. */
  private hoursLeft = RESTORE_HOURS;
  /** The generation of the shared counters' data, as of the last exchange (null: none yet). */
  private generation: string | null = null;
  private state: 'ok' | 'down' = 'ok';
  private since: number;
  private processes = 1;
  private lastExchange = -Infinity;
  private ticking: Promise<void> | null = null;
  private again = false;
  private woken = false;
  private closed = false;
  private readonly timer: NodeJS.Timeout | null = null;
  private readonly counts: Omit<DeliveryStats, 'held' | 'overspend'> = {
    admitted: 0, refused: noRefusals(), expired: 0, committed: 0, committedUnreserved: 0, overAllowance: 0, committedElsewhere: 0, exchanges: 0, exchangeFailures: 0,
  };
  private readonly clock: () => number;
  private readonly holdMs: number;
  private readonly leaseTtlMs: number;
  private readonly renewMs: number;
  private readonly idleMs: number;
  private readonly timing: { idleMs: number; chunkMs: number };
  private readonly downMargin: number;
  private readonly log: DeliveryLog;

  constructor(
    private readonly shared: SharedCounters,
    options: DeliveryOptions,
  ) {
    this.engine = shared.engine;
    this.log = options.log;
    this.clock = options.clock ?? Date.now;
    this.holdMs = options.holdMs ?? 60_000;
    this.leaseTtlMs = options.leaseTtlMs ?? 5_000;
    this.renewMs = options.renewMs ?? 1_000;
    this.idleMs = options.idleMs ?? 5_000;
    this.timing = { idleMs: this.idleMs, chunkMs: options.chunkMs ?? 1_000 };
    this.downMargin = options.downMargin ?? 0.01;
    this.viewers = new ViewerCounts(options.maxViewers ?? 100_000);
    this.since = this.clock();
    shared.onNotices((n) => {
      this.counts.committedElsewhere += this.reservations.committedElsewhere(n.commits);
      this.viewedElsewhere(n.views);
    });
    if (options.timers ?? true) {
      this.timer = setInterval(() => void this.tick(), options.tickMs ?? 100);
      this.timer.unref();
    }
  }

  // ---- the request path -------------------------------------------------------------------

  campaignRefusal(campaign: CampaignLimits, priceMicros: number, viewer: string | null, now: number): Refusal | null {
    this.sweep(now);
    const amount = Math.round(priceMicros);
    const daily = this.accounts.daily(campaign, now);
    const refusal = (daily.unlimited ? null : this.short(daily, amount, now)) ?? this.totalShort(campaign, amount, now) ?? this.frequencyShort(campaign, viewer, now);
    return refusal ? this.refuse(refusal) : null;
  }

  admit(decisionId: string, admission: Admission, now: number): Refusal | null {
    this.sweep(now);
    this.release(decisionId);
    const amount = Math.round(admission.priceMicros);
    const accounts: Account[] = [];
    const amounts: number[] = [];
    let viewer: ViewerCount | null = null;
    const { campaign, tag } = admission;
    if (campaign) {
      const daily = this.accounts.daily(campaign, now);
      const refusal = (daily.unlimited ? null : this.short(daily, amount, now)) ?? this.totalShort(campaign, amount, now) ?? this.frequencyShort(campaign, admission.viewer ?? null, now);
      if (refusal) return this.refuse(refusal);
      accounts.push(daily);
      amounts.push(amount);
      if (campaign.totalBudget !== 'unlimited') {
        accounts.push(this.accounts.total(campaign, now));
        amounts.push(amount);
      }
      if (campaign.frequencyCap && admission.viewer) viewer = this.viewer(campaign, admission.viewer, now);
    }
    if (tag && tag.dailyImpCap !== 'unlimited') {
      const imps = this.accounts.tag(tag, 'ti', now);
      const refusal = this.short(imps, 1, now);
      if (refusal) return this.refuse(refusal);
      accounts.push(imps);
      amounts.push(1);
    }
    this.counts.admitted++;
    // Nothing limited to hold (an unlimited daily budget only counts spend, at the commit): no
    // reservation, so that unbudgeted traffic keeps no per-decision state for the hold time.
    if (!viewer && accounts.every((a) => a.unlimited)) return null;
    for (let i = 0; i < accounts.length; i++) {
      const account = accounts[i]!;
      account.reserved += amounts[i]!;
      account.rate.add(amounts[i]!, now);
      if (!account.unlimited && this.available(account, now) < this.lowWater(account, now)) this.wake();
    }
    if (viewer) viewer.pending++;
    this.reservations.add(decisionId, { expires: now + this.holdMs, accounts, amounts, viewer });
    return null;
  }

  commit(decisionId: string, admission: Admission, now: number): void {
    this.sweep(now);
    const held = this.reservations.take(decisionId);
    if (held) {
      for (let i = 0; i < held.accounts.length; i++) {
        let account = held.accounts[i]!;
        const amount = held.amounts[i]!;
        account.reserved -= amount;
        // decided on a day that has ended since (a decision just before the tenant's midnight): the
        // impression is booked to its own day, as the reports book it and as another process would
        if (now >= account.dayEnd) {
          account = this.accounts.sameOn(account, now);
          if (!account.unlimited) this.counts.overAllowance += Math.max(amount - Math.max(this.available(account, now), 0), 0);
        }
        account.used += amount;
        account.usedAt = now;
      }
      if (held.viewer) {
        held.viewer.pending--;
        held.viewer.unsent++;
        this.viewers.touched.add(held.viewer);
        if (this.views.length < MAX_NOTICES) this.views.push(held.viewer.key);
      }
      this.counts.committed++;
      return;
    }
    // decided elsewhere (another process, or here before the hold time ran out), or nothing limited
    // was held: counted all the same
    this.counts.committed++;
    const amount = Math.round(admission.priceMicros);
    let tracked = false;
    const { campaign, tag } = admission;
    if (campaign) {
      const daily = this.accounts.daily(campaign, now);
      const total = campaign.totalBudget !== 'unlimited' ? this.accounts.total(campaign, now) : null;
      let over = 0;
      for (const account of total ? [daily, total] : [daily]) {
        if (!account.unlimited) {
          over = Math.max(over, amount - Math.max(this.available(account, now), 0));
          tracked = true;
        }
        account.used += amount;
        account.usedAt = now;
      }
      this.counts.overAllowance += Math.max(over, 0);
      if (campaign.frequencyCap && admission.viewer) {
        const viewer = this.viewer(campaign, admission.viewer, now);
        viewer.unsent++;
        if (this.views.length < MAX_NOTICES) this.views.push(viewer.key);
        tracked = true;
      }
    }
    if (tag && tag.dailyImpCap !== 'unlimited') {
      const imps = this.accounts.tag(tag, 'ti', now);
      imps.used++;
      imps.usedAt = now;
      tracked = true;
    }
    if (!tracked) return;
    this.counts.committedUnreserved++;
    if (this.notices.length < MAX_NOTICES) this.notices.push(decisionId);
  }

  release(decisionId: string): void {
    const held = this.reservations.take(decisionId);
    if (held) Reservations.unreserve(held);
  }

  takeTagRequest(tag: TagLimits, now: number): Refusal | null {
    let bucket: QpsBucket | null = null;
    if (tag.qpsLimit !== 'unlimited') {
      if (tag.qpsLimit <= 0) return this.refuse('qps_limit');
      bucket = this.bucket('tag', tag.id, tag.qpsLimit, now);
      bucket.refill(now);
      bucket.attempts++;
      if (bucket.tokens < 1) return this.refuse('qps_limit');
    }
    let requests: Account | null = null;
    if (tag.dailyRequestCap !== 'unlimited') {
      requests = this.accounts.tag(tag, 'tr', now);
      const refusal = this.short(requests, 1, now);
      if (refusal) return this.refuse(refusal);
    }
    if (tag.dailyImpCap !== 'unlimited') {
      const refusal = this.short(this.accounts.tag(tag, 'ti', now), 1, now);
      if (refusal) return this.refuse(refusal);
    }
    if (bucket) bucket.tokens -= 1;
    if (requests) {
      requests.used++;
      requests.rate.add(1, now);
      if (this.available(requests, now) < this.lowWater(requests, now)) this.wake();
    }
    return null;
  }

  takePostbid(tenantId: number, maxImps: number, now: number): Refusal | null {
    const account = this.accounts.postbid(tenantId, maxImps, now);
    if (!account.unlimited) {
      const refusal = this.short(account, 1, now);
      if (refusal) return this.refuse(refusal);
    }
    account.used++;
    account.usedAt = now;
    account.rate.add(1, now);
    if (!account.unlimited && this.available(account, now) < this.lowWater(account, now)) this.wake();
    return null;
  }

  postbidCount(tenantId: number, now: number): number {
    const account = this.accounts.postbid(tenantId, undefined, now);
    // read from the shared counters (at once in process, else in the background), then again each renewal while asked about
    account.wantedAt = now;
    account.usedAt = now;
    if (!account.known && !account.inFlight) {
      if (this.shared.sync) this.exchangeInline(now, { accounts: [account], viewers: [], buckets: [] });
      else this.wake();
    }
    return account.spentSoFar;
  }

  takeQps(scope: QpsScope, id: number, limit: Limit, now: number): boolean {
    if (limit === 'unlimited') return true;
    if (limit <= 0) return this.refuse('qps_limit') === null;
    const bucket = this.bucket(scope, id, limit, now);
    bucket.refill(now);
    bucket.attempts++;
    if (bucket.tokens < 1) return this.refuse('qps_limit') === null;
    bucket.tokens -= 1;
    return true;
  }

  // ---- pacing state -----------------------------------------------------------------------

  pacingState(campaign: CampaignLimits, now: number): PacingState {
    const account = this.accounts.get(this.accounts.dailyKey(campaign, now));
    const hourly = new Array<number>(24).fill(0);
    let spent = 0;
    if (account) {
      spent = account.spentSoFar;
      const hour = Math.floor((now + campaign.timezone * HOUR_MS - dayIndex(now, campaign.timezone) * DAY_MS) / HOUR_MS);
      if (account.hourAt >= 0) {
        hourly[account.hourAt] = account.hourNow;
        if (account.hourAt > 0) hourly[account.hourAt - 1] = account.hourBefore;
      }
      hourly[hour] = (hourly[hour] ?? 0) + account.used + account.sending;
    }
    return pacingState({
      campaignId: campaign.id, pacing: campaign.pacing, dailyBudget: campaign.dailyBudget, timezone: campaign.timezone, spentToday: spent, hourly, now, createdAtMinute: campaign.createdAtMinute,
    });
  }

  async readPacing(campaigns: readonly CampaignLimits[], now: number): Promise<PacingState[]> {
    const keys = campaigns.map((c) => this.accounts.dailyKey(c, now));
    const reads: SpendRead[] = await this.shared.readSpend(keys);
    return campaigns.map((c, i) => {
      const read = reads[i]!;
      const account = this.accounts.get(keys[i]!);
      const unsent = account ? account.used + account.sending : 0;
      const hour = Math.floor((now + c.timezone * HOUR_MS - dayIndex(now, c.timezone) * DAY_MS) / HOUR_MS);
      const hourly = [...read.hourly];
      hourly[hour] = (hourly[hour] ?? 0) + unsent;
      return pacingState({ campaignId: c.id, pacing: c.pacing, dailyBudget: c.dailyBudget, timezone: c.timezone, spentToday: read.spent + unsent, hourly, now, createdAtMinute: c.createdAtMinute });
    });
  }

  async readCampaignSpend(campaigns: readonly CampaignLimits[], now: number): Promise<CampaignSpend[]> {
    const daily = campaigns.map((c) => this.accounts.dailyKey(c, now));
    const totals = campaigns.map((c) => `c${c.id}:t`);
    // What this process has not sent yet, taken before the read is queued: spend already on its way
    // (`sending`) was queued on the same connection before this read, so the read sees it; spend
    // sent after this read was queued is in `used` now.
    const unsent = new Map([...daily, ...totals].map((key) => [key, this.accounts.get(key)?.used ?? 0]));
    const reads: SpendRead[] = await this.shared.readSpend([...daily, ...totals]);
    return campaigns.map((c, i) => {
      const read = reads[i]!;
      const hourly = [...read.hourly];
      const hour = Math.floor((now + c.timezone * HOUR_MS - dayIndex(now, c.timezone) * DAY_MS) / HOUR_MS);
      hourly[hour] = (hourly[hour] ?? 0) + unsent.get(daily[i]!)!;
      return {
        spentToday: read.spent + unsent.get(daily[i]!)!,
        hourly,
        totalSpent: c.totalBudget === 'unlimited' ? null : reads[campaigns.length + i]!.spent + unsent.get(totals[i]!)!,
      };
    });
  }

  /**
   * Raises the shared counts to what the stats store counted before this process started: today's
   * and the total spend of campaigns, today's impressions and calls of demand tags. The in-process
   * engine starts empty at every start, and a Redis without persistence may have lost its data: a
   * restart must not hand a campaign its budget again. Never lowers a count (a store that counted
   * more, impressions not yet flushed to the stats, keeps it). One exchange, before serving; the
   * post-bid counts are raised again every minute while serving (capSeed.ts), so a count this process
   * holds an account of is raised by that account's own exchange: an ask of the count alone would
   * drop its lease in the shared counters.
   */
  async raiseCounts(floors: CountFloors, now: number): Promise<void> {
    const budgets: BudgetAsk[] = [];
    const inUse: Account[] = [];
    const raise = (key: string, floor: number, ttlMs: number) => {
      if (floor <= 0) return;
      const account = this.accounts.get(key);
      if (!account) budgets.push({ key, limit: -1, want: 0, min: 1, used: 0, reserved: 0, floor, floorGen: '', evenRate: 0, paceStart: 0, dayEnd: 0, hour: -1, ttlMs });
      else if (floor > Math.max(account.floor, account.spent)) {
        account.floor = floor;
        account.floorGen = '';
        if (!account.inFlight) inUse.push(account);
      }
    };
    for (const c of floors.campaigns) {
      raise(this.accounts.dailyKey(c.campaign, now), c.today, DAILY_KEY_TTL_MS);
      raise(`c${c.campaign.id}:t`, c.total, 0);
    }
    for (const t of floors.tags) {
      raise(this.accounts.tagKey(t.tag, 'ti', now), t.imps, DAILY_KEY_TTL_MS);
      raise(this.accounts.tagKey(t.tag, 'tr', now), t.calls, DAILY_KEY_TTL_MS);
    }
    for (const p of floors.postbid ?? []) raise(this.accounts.postbidKey(p.tenantId, now), p.count, MONTH_KEY_TTL_MS);
    // (an account on its way in an exchange keeps its floor for the next: collect sends it)
    if (inUse.length && this.shared.sync) this.exchangeInline(now, { accounts: inUse, viewers: [], buckets: [] });
    else if (inUse.length) this.wake();
    if (budgets.length) this.generationSeen(now, null, (await this.shared.exchange({ now, budgets, frequencies: [], qps: [] })).generation);
  }

  // ---- health and metrics -----------------------------------------------------------------

  health(): DeliveryHealth {
    return { engine: this.engine, redis: this.engine === 'memory' ? 'unused' : this.state, since: this.since };
  }

  stats(): DeliveryStats {
    return { ...this.counts, refused: { ...this.counts.refused }, held: this.reservations.size, overspend: this.accounts.overspend() };
  }

  // ---- accounts -----------------------------------------------------------------------------

  private totalShort(campaign: CampaignLimits, amount: number, now: number): Refusal | null {
    return campaign.totalBudget === 'unlimited' ? null : this.short(this.accounts.total(campaign, now), amount, now);
  }

  /** What this process may still reserve on the account now. */
  private available(account: Account, now: number): number {
    if (account.unlimited) return Infinity;
    let left = account.granted - account.used - account.sending - account.reserved;
    if (this.state === 'down') left += downAllowance(account, { since: this.since, processes: this.processes, margin: this.downMargin }, now);
    // a lease older than its lifetime may be someone else's by now: renew before using it
    else if (account.known && now - account.lastSync >= this.leaseTtlMs) left -= account.granted;
    return left;
  }

  /**
   * What a decision may take of the account now: what is available, and while an exchange is in
   * flight no more than its claim (Account.claimed), which its answer cannot cut below.
   */
  private admissible(account: Account, now: number): number {
    const left = this.available(account, now);
    if (!account.inFlight || account.unlimited || this.state === 'down') return left;
    return Math.min(left, account.claimed - account.reserved - account.used - account.shrunk);
  }

  private lowWater(account: Account, now: number): number {
    return Math.max(account.price, (account.rate.get(now) * this.timing.chunkMs) / 2);
  }

  /** Why `amount` does not fit the account now, or null; renews inline when the store answers at once. */
  private short(account: Account, amount: number, now: number): Refusal | null {
    account.wantedAt = now;
    account.usedAt = now;
    account.price = Math.max(amount, 1);
    if (this.admissible(account, now) >= amount) {
      // the lease covers it, but not what is left of the budget as last seen: a budget lowered since
      // the lease was granted (a config change) takes effect at once
      if (account.known && account.limit - account.spentSoFar - account.others - account.reserved < amount) return account.kind;
      return null;
    }
    if (this.shared.sync) {
      this.exchangeInline(now, { accounts: [account], viewers: [], buckets: [] });
      if (this.admissible(account, now) >= amount) return null;
    } else if (now >= account.retryAt) this.wake();
    if (this.state === 'down') return account.kind;
    if (account.known && account.limit - account.spentSoFar - account.others - account.reserved < amount) return account.kind;
    if (account.paced && now - account.lastSync < this.leaseTtlMs) return 'pacing';
    return 'budget_lease';
  }

  // ---- frequency and QPS ------------------------------------------------------------------

  private viewer(campaign: CampaignLimits, viewer: string, now: number): ViewerCount {
    const entry = this.viewers.get(campaign.id, viewer, (campaign.frequencyCap?.periodHours ?? 1) * HOUR_MS, now);
    entry.cap = campaign.frequencyCap?.count ?? Infinity;
    if (this.shared.sync && now - entry.fetchedAt >= FRESH_MS) this.exchangeInline(now, { accounts: [], viewers: [entry], buckets: [] });
    return entry;
  }

  private frequencyShort(campaign: CampaignLimits, viewer: string | null, now: number): Refusal | null {
    const cap = campaign.frequencyCap;
    if (!cap || !viewer) return null;
    return this.viewer(campaign, viewer, now).total(now) >= cap.count ? 'frequency_cap' : null;
  }

  private bucket(scope: QpsScope, id: number, limit: number, now: number): QpsBucket {
    const key = `${scope}:${id}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      this.buckets.set(key, (bucket = new QpsBucket(key, limit, this.processes, now)));
      if (this.shared.sync) this.exchangeInline(now, { accounts: [], viewers: [], buckets: [bucket] });
    }
    if (bucket.limit !== limit) {
      bucket.limit = limit;
      bucket.share = Math.min(bucket.share, limit);
    }
    bucket.usedAt = now;
    return bucket;
  }

  // ---- reservations -----------------------------------------------------------------------

  private refuse(refusal: Refusal): Refusal {
    this.counts.refused[refusal]++;
    return refusal;
  }

  private sweep(now: number): void {
    this.counts.expired += this.reservations.expire(now);
  }

  /** Another process counted impressions for these viewers: cached counts move now, the next fetch confirms. */
  private viewedElsewhere(keys: readonly string[]): void {
    const now = this.clock();
    for (const key of keys) {
      const viewer = this.viewers.peek(key);
      if (!viewer) continue;
      if (viewer.windowEnd <= now) {
        viewer.count = 0;
        viewer.windowEnd = now + viewer.periodMs;
      }
      viewer.count++;
    }
  }

  // ---- exchanges --------------------------------------------------------------------------

  /** Soon (not on this request): an allowance is running low. */
  private wake(): void {
    if (this.woken || this.closed) return;
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
          await this.exchangeDue(this.clock(), all);
        } while (this.again && !all);
      } catch (error) {
        this.log.error({ err: error }, 'delivery counters: exchange failed');
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
   * What is due: spend to send, leases to renew or return, viewers to fetch, QPS shares to renew.
   * `spendNow`: commit notices are waiting, so every account with unsent spend goes now (see exchangeDue).
   */
  private collect(now: number, all: boolean, spendNow = false): Batch {
    const batch: Batch = { accounts: [], viewers: [], buckets: [] };
    this.accounts.sweepSeen(now);
    for (const account of this.accounts.values()) {
      if (account.inFlight) continue;
      // (hours of a day that is over are not sent back)
      if (account.hoursBack && now >= account.dayEnd) account.hoursBack = null;
      // (one with a count to send back goes first: AccountBook keeps its spend when it leaves)
      if (account.idle && !account.restore && !account.hoursBack && now - account.usedAt > this.idleMs) {
        this.accounts.delete(account.key);
        continue;
      }
      const wanted = now - account.wantedAt < this.idleMs;
      const due = now - account.lastSync >= this.renewMs || (spendNow && account.used > 0);
      // (an unlimited count asked about is read once: a post-bid month's count for the trace)
      const low = wanted && now >= account.retryAt && (!account.known || (!account.unlimited && this.available(account, now) < this.lowWater(account, now)));
      const raised = account.floor > account.spent;
      // the day's spend per hour seen before a loss: sent back RESTORE_HOURS hours at a time
      const hours = account.hoursBack && account.hoursBack.spend.length <= this.hoursLeft ? account.hoursBack : null;
      // (a count only read, as a post-bid month's for the trace on a process that takes none, is read again each renewal while asked about)
      if (all || low || raised || account.restore || hours || (due && (account.used > 0 || account.granted > 0 || wanted))) {
        batch.accounts.push(account);
        if (hours) {
          account.hoursSending = hours;
          this.hoursLeft -= hours.spend.length;
        }
      }
    }
    let restored = 0;
    for (const viewer of this.viewers.touched) {
      if (viewer.inFlight) continue;
      // asked about since the last fetch: fetched again after a second, or at the next tick when one
      // more impression would reach the cap (there a stale count would matter)
      const asked = viewer.usedAt >= viewer.fetchedAt;
      const restore = viewer.restore && restored < RESTORE_SLICE;
      if (viewer.unsent > 0 || restore || (asked && (all || now - viewer.fetchedAt >= FRESH_MS || viewer.total(now) >= viewer.cap - 1))) {
        if (viewer.restore) restored++;
        batch.viewers.push(viewer);
        this.viewers.touched.delete(viewer);
      } else if (!asked && !viewer.restore) this.viewers.touched.delete(viewer);
    }
    for (const bucket of this.buckets.values()) {
      if (bucket.inFlight) continue;
      if (now - bucket.usedAt > this.idleMs) this.buckets.delete(bucket.key);
      else batch.buckets.push(bucket);
    }
    return batch;
  }

  private async exchangeDue(now: number, all: boolean, closing = false): Promise<void> {
    this.sweep(now);
    // A commit notice lets the deciding process drop its reservation and shrink its lease; were the
    // spend of that impression not yet in the shared store, the freed amount could be leased and
    // spent again (an overspend measured under load: bench/workers.bench.ts). So the spend goes in
    // this exchange and the notices after it.
    // (notices of commits made while the exchange is on its way wait for the next one, with their spend)
    const notices = { commits: this.notices, views: this.views };
    this.notices = [];
    this.views = [];
    this.hoursLeft = RESTORE_HOURS;
    const batch = this.collect(now, all, notices.commits.length > 0);
    const restoring = this.restoring.splice(0, this.restoreSlice());
    const empty = !batch.accounts.length && !batch.viewers.length && !batch.buckets.length && !restoring.length;
    if (!(empty && now - this.lastExchange < this.renewMs && !(all && this.state === 'down'))) {
      const x = askOf(batch, now, this.timing, closing);
      // (after the batch's own: settle reads the replies of the batch's accounts by their place)
      x.budgets.push(...restoring);
      try {
        this.settle(now, batch, await this.shared.exchange(x));
      } catch (error) {
        this.restoring.unshift(...restoring);
        this.fail(now, batch, error);
      }
    } else this.restoring.unshift(...restoring);
    if (!notices.commits.length && !notices.views.length) return;
    if (this.state === 'ok') this.shared.publishNotices(notices);
    else {
      // kept for when the shared counters answer again
      this.notices = [...notices.commits, ...this.notices].slice(0, MAX_NOTICES);
      this.views = [...notices.views, ...this.views].slice(0, MAX_NOTICES);
    }
  }

  /** How many of the counts to send back go in this exchange: RESTORE_SLICE, and their hours within what is left of RESTORE_HOURS. */
  private restoreSlice(): number {
    let n = 0;
    for (; n < this.restoring.length && n < RESTORE_SLICE; n++) {
      const hours = this.restoring[n]!.hours?.spend.length ?? 0;
      if (hours > this.hoursLeft) break;
      this.hoursLeft -= hours;
    }
    return n;
  }

  /**
   * An exchange answered at once (the in-process store), for accounts not in an exchange already: the
   * answer of one in flight, coming after, would settle the account again with its older grant.
   */
  private exchangeInline(now: number, batch: Batch): void {
    const due: Batch = { ...batch, accounts: batch.accounts.filter((a) => !a.inFlight) };
    if (!due.accounts.length && !due.viewers.length && !due.buckets.length) return;
    const reply = this.shared.exchange(askOf(due, now, this.timing, false)) as ExchangeReply;
    this.settle(now, due, reply);
  }

  /**
   * The generation of the shared counters' data changed: they lost it (a Redis restarted without
   * persistence, or flushed). The exchange that found it sent back only the counts it carried; the
   * next ones send back what this process last saw of every other count it knows: the spend of every
   * account it holds and of those it dropped since (AccountBook.lastSeen), with a day's spend per
   * hour as it saw it (the hours it knows: Account.hours), and its viewers' open windows. So a count
   * seen by a process that spends nothing on it after the loss is not lost, and what is counted after
   * the loss adds to the most any process saw before (exchangeScript.ts), hour by hour for the
   * spend per hour (RESTORE_HOURS hours an exchange, of days not over).
   */
  private generationSeen(now: number, batch: Batch | null, generation: string): void {
    const before = this.generation;
    this.generation = generation;
    if (before === null || before === generation) return;
    const sent = new Set<unknown>([...(batch?.accounts ?? []), ...(batch?.viewers ?? [])]);
    let accounts = 0;
    let viewers = 0;
    let hours = 0;
    for (const account of this.accounts.values()) {
      // the day's spend per hour seen in the generation before: kept to send back (the accounts of
      // this exchange's batch were turned over as it settled; one in flight is as it settles)
      if (account.hours && !account.inFlight && account.hoursGen !== generation) account.hoursIn(generation);
      if (account.hoursBack) hours++;
      if (sent.has(account) || account.restore || !((account.known && account.spent > 0) || account.floor > 0)) continue;
      account.restore = true;
      accounts++;
    }
    for (const viewer of this.viewers.values()) {
      if (sent.has(viewer) || viewer.restore || !(viewer.seenEnd > now && viewer.seenCount > 0)) continue;
      viewer.restore = true;
      this.viewers.touched.add(viewer);
      viewers++;
    }
    this.restoring = this.accounts.lastSeen(now);
    this.log.warn(
      { engine: this.engine, accounts, hours, dropped: this.restoring.length, viewers },
      'delivery counters: Redis lost its data (restarted without persistence, or flushed); sending back the counts last seen',
    );
    this.wake();
  }

  private settle(now: number, batch: Batch, reply: ExchangeReply): void {
    this.processes = Math.max(reply.processes, 1);
    this.lastExchange = now;
    this.counts.exchanges++;
    settleBatch(batch, reply, now, this.renewMs);
    this.generationSeen(now, batch, reply.generation);
    if (this.state === 'down') {
      this.log.info({ engine: this.engine, downMs: now - this.since, reconciled: batch.accounts.length }, 'delivery counters: Redis is back, the spend counted meanwhile is reconciled');
      this.state = 'ok';
      this.since = now;
    }
  }

  private fail(now: number, batch: Batch, error: unknown): void {
    this.counts.exchangeFailures++;
    putBack(batch);
    for (const viewer of batch.viewers) this.viewers.touched.add(viewer);
    if (this.state === 'down') return;
    this.state = 'down';
    this.since = now;
    this.log.warn(
      { engine: this.engine, err: error instanceof Error ? error.message : String(error), processes: this.processes, downMargin: this.downMargin },
      'delivery counters: Redis unreachable, serving on local allowances (leases plus at most the down margin of each budget) until it is back',
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    while (this.ticking) await this.ticking;
    const now = this.clock();
    try {
      await this.exchangeDue(now, true, true);
      if (this.state === 'ok') await this.shared.leave();
    } finally {
      const unsent = [...this.accounts.values()].reduce((sum, a) => sum + (a.unlimited ? 0 : a.used), 0);
      if (this.state === 'down' && unsent) this.log.warn({ unsent }, 'delivery counters: closed while Redis is down; spend not sent');
      await this.shared.close();
    }
  }
}
