import { type Limit } from '@adplane/shared';
import { type Account, QpsBucket } from './allowances.js';
import { type DeliveryCore, FRESH_MS, MAX_NOTICES } from './deliveryCore.js';
import { type Exchanger } from './exchange.js';
import { type ViewerCount } from './frequency.js';
import { HOUR_MS } from './pacing.js';
import { Reservations } from './reservations.js';
import {
  type Admission as AdmissionAsk,
  type CampaignLimits,
  type DealLimits,
  type QpsScope,
  type Refusal,
  type TagLimits,
} from './types.js';

/**
 * The request path of delivery control: whether a campaign, a demand tag, a supplier or an ad
 * exchange may take one more request or impression, decided on this process's local allowances
 * only (its leases, reservations, cached viewer counts and QPS buckets), never waiting for the
 * shared counters; what runs low wakes the exchange (exchange.ts). Commits book the spend for the
 * next exchange, whichever process decided.
 */
export class Admission {
  constructor(
    private readonly core: DeliveryCore,
    private readonly exchange: Exchanger,
  ) {}

  campaignRefusal(campaign: CampaignLimits, priceMicros: number, viewer: string | null, now: number): Refusal | null {
    const { core } = this;
    core.sweep(now);
    const amount = Math.round(priceMicros);
    const daily = core.accounts.daily(campaign, now);
    const refusal =
      (daily.unlimited ? null : this.short(daily, amount, now)) ??
      this.totalShort(campaign, amount, now) ??
      this.frequencyShort(campaign, viewer, now);
    return refusal ? core.refuse(refusal) : null;
  }

  /** Whether a supply deal may be offered on one more request: its caps checked on this process's leases, nothing reserved. */
  dealRefusal(deal: DealLimits, now: number): Refusal | null {
    const { core } = this;
    core.sweep(now);
    for (const account of core.accounts.dealCaps(deal, now)) {
      const refusal = this.short(account, 1, now);
      if (refusal) return core.refuse(refusal);
    }
    return null;
  }

  admit(decisionId: string, admission: AdmissionAsk, now: number): Refusal | null {
    const { core } = this;
    core.sweep(now);
    this.release(decisionId);
    const amount = Math.round(admission.priceMicros);
    const accounts: Account[] = [];
    const amounts: number[] = [];
    let viewer: ViewerCount | null = null;
    const { campaign, tag } = admission;
    if (campaign) {
      const daily = core.accounts.daily(campaign, now);
      const refusal =
        (daily.unlimited ? null : this.short(daily, amount, now)) ??
        this.totalShort(campaign, amount, now) ??
        this.frequencyShort(campaign, admission.viewer ?? null, now);
      if (refusal) return core.refuse(refusal);
      accounts.push(daily);
      amounts.push(amount);
      if (campaign.totalBudget !== 'unlimited') {
        accounts.push(core.accounts.total(campaign, now));
        amounts.push(amount);
      }
      if (campaign.frequencyCap && admission.viewer) viewer = this.viewer(campaign, admission.viewer, now);
    }
    if (tag && tag.dailyImpCap !== 'unlimited') {
      const imps = core.accounts.tag(tag, 'ti', now);
      const refusal = this.short(imps, 1, now);
      if (refusal) return core.refuse(refusal);
      accounts.push(imps);
      amounts.push(1);
    }
    // a bid won on a capped supply deal: one impression of each of its caps
    if (admission.deal)
      for (const account of core.accounts.dealCaps(admission.deal, now)) {
        const refusal = this.short(account, 1, now);
        if (refusal) return core.refuse(refusal);
        accounts.push(account);
        amounts.push(1);
      }
    core.counts.admitted++;
    // Nothing limited to hold (an unlimited daily budget only counts spend, at the commit): no
    // reservation, so that unbudgeted traffic keeps no per-decision state for the hold time.
    if (!viewer && accounts.every((a) => a.unlimited)) return null;
    for (let i = 0; i < accounts.length; i++) {
      const account = accounts[i]!;
      account.reserved += amounts[i]!;
      account.rate.add(amounts[i]!, now);
      if (!account.unlimited && core.available(account, now) < core.lowWater(account, now)) this.exchange.wake();
    }
    if (viewer) viewer.pending++;
    core.reservations.add(decisionId, { expires: now + core.holdMs, accounts, amounts, viewer });
    return null;
  }

  commit(decisionId: string, admission: AdmissionAsk, now: number): void {
    const { core } = this;
    core.sweep(now);
    const held = core.reservations.take(decisionId);
    if (held) {
      for (let i = 0; i < held.accounts.length; i++) {
        let account = held.accounts[i]!;
        const amount = held.amounts[i]!;
        account.reserved -= amount;
        // decided on a day that has ended since (a decision just before the tenant's midnight): the
        // impression is booked to its own day, as the reports book it and as another process would
        if (now >= account.dayEnd) {
          account = core.accounts.sameOn(account, now);
          if (!account.unlimited)
            core.counts.overAllowance += Math.max(amount - Math.max(core.available(account, now), 0), 0);
        }
        account.used += amount;
        account.usedAt = now;
      }
      if (held.viewer) {
        held.viewer.pending--;
        held.viewer.unsent++;
        core.viewers.touched.add(held.viewer);
        if (core.views.length < MAX_NOTICES) core.views.push(held.viewer.key);
      }
      core.counts.committed++;
      return;
    }
    // decided elsewhere (another process, or here before the hold time ran out), or nothing limited
    // was held: counted all the same
    core.counts.committed++;
    const amount = Math.round(admission.priceMicros);
    let tracked = false;
    const { campaign, tag } = admission;
    if (campaign) {
      const daily = core.accounts.daily(campaign, now);
      const total = campaign.totalBudget !== 'unlimited' ? core.accounts.total(campaign, now) : null;
      let over = 0;
      for (const account of total ? [daily, total] : [daily]) {
        if (!account.unlimited) {
          over = Math.max(over, amount - Math.max(core.available(account, now), 0));
          tracked = true;
        }
        account.used += amount;
        account.usedAt = now;
      }
      core.counts.overAllowance += Math.max(over, 0);
      if (campaign.frequencyCap && admission.viewer) {
        const viewer = this.viewer(campaign, admission.viewer, now);
        viewer.unsent++;
        if (core.views.length < MAX_NOTICES) core.views.push(viewer.key);
        tracked = true;
      }
    }
    if (tag && tag.dailyImpCap !== 'unlimited') {
      const imps = core.accounts.tag(tag, 'ti', now);
      imps.used++;
      imps.usedAt = now;
      tracked = true;
    }
    if (admission.deal)
      for (const account of core.accounts.dealCaps(admission.deal, now)) {
        account.used++;
        account.usedAt = now;
        tracked = true;
      }
    if (!tracked) return;
    core.counts.committedUnreserved++;
    if (core.notices.length < MAX_NOTICES) core.notices.push(decisionId);
  }

  release(decisionId: string): void {
    const held = this.core.reservations.take(decisionId);
    if (held) Reservations.unreserve(held);
  }

  takeTagRequest(tag: TagLimits, now: number): Refusal | null {
    const { core } = this;
    let bucket: QpsBucket | null = null;
    if (tag.qpsLimit !== 'unlimited') {
      if (tag.qpsLimit <= 0) return core.refuse('qps_limit');
      bucket = this.bucket('tag', tag.id, tag.qpsLimit, now);
      bucket.refill(now);
      bucket.attempts++;
      if (bucket.tokens < 1) return core.refuse('qps_limit');
    }
    let requests: Account | null = null;
    if (tag.dailyRequestCap !== 'unlimited') {
      requests = core.accounts.tag(tag, 'tr', now);
      const refusal = this.short(requests, 1, now);
      if (refusal) return core.refuse(refusal);
    }
    if (tag.dailyImpCap !== 'unlimited') {
      const refusal = this.short(core.accounts.tag(tag, 'ti', now), 1, now);
      if (refusal) return core.refuse(refusal);
    }
    if (bucket) bucket.tokens -= 1;
    if (requests) {
      requests.used++;
      requests.rate.add(1, now);
      if (core.available(requests, now) < core.lowWater(requests, now)) this.exchange.wake();
    }
    return null;
  }

  takePostbid(tenantId: number, maxImps: number, now: number): Refusal | null {
    const { core } = this;
    const account = core.accounts.postbid(tenantId, maxImps, now);
    if (!account.unlimited) {
      const refusal = this.short(account, 1, now);
      if (refusal) return core.refuse(refusal);
    }
    account.used++;
    account.usedAt = now;
    account.rate.add(1, now);
    if (!account.unlimited && core.available(account, now) < core.lowWater(account, now)) this.exchange.wake();
    return null;
  }

  postbidCount(tenantId: number, now: number): number {
    const account = this.core.accounts.postbid(tenantId, undefined, now);
    // read from the shared counters (at once in process, else in the background), then again each renewal while asked about
    account.wantedAt = now;
    account.usedAt = now;
    if (!account.known && !account.inFlight) {
      if (this.core.shared.sync) this.exchange.exchangeInline(now, { accounts: [account], viewers: [], buckets: [] });
      else this.exchange.wake();
    }
    return account.spentSoFar;
  }

  takeQps(scope: QpsScope, id: number, limit: Limit, now: number): boolean {
    const { core } = this;
    if (limit === 'unlimited') return true;
    if (limit <= 0) return core.refuse('qps_limit') === null;
    const bucket = this.bucket(scope, id, limit, now);
    bucket.refill(now);
    bucket.attempts++;
    if (bucket.tokens < 1) return core.refuse('qps_limit') === null;
    bucket.tokens -= 1;
    return true;
  }

  /** Another process counted impressions for these viewers: cached counts move now, the next fetch confirms. */
  viewedElsewhere(keys: readonly string[]): void {
    const now = this.core.clock();
    for (const key of keys) {
      const viewer = this.core.viewers.peek(key);
      if (!viewer) continue;
      if (viewer.windowEnd <= now) {
        viewer.count = 0;
        viewer.windowEnd = now + viewer.periodMs;
      }
      viewer.count++;
    }
  }

  private totalShort(campaign: CampaignLimits, amount: number, now: number): Refusal | null {
    return campaign.totalBudget === 'unlimited'
      ? null
      : this.short(this.core.accounts.total(campaign, now), amount, now);
  }

  /** Why `amount` does not fit the account now, or null; renews inline when the store answers at once. */
  private short(account: Account, amount: number, now: number): Refusal | null {
    const { core } = this;
    account.wantedAt = now;
    account.usedAt = now;
    account.price = Math.max(amount, 1);
    if (core.admissible(account, now) >= amount) {
      // the lease covers it, but not what is left of the budget as last seen: a budget lowered since
      // the lease was granted (a config change) takes effect at once
      if (account.known && account.limit - account.spentSoFar - account.others - account.reserved < amount)
        return account.kind;
      return null;
    }
    if (core.shared.sync) {
      this.exchange.exchangeInline(now, { accounts: [account], viewers: [], buckets: [] });
      if (core.admissible(account, now) >= amount) return null;
    } else if (now >= account.retryAt) this.exchange.wake();
    if (core.state === 'down') return account.kind;
    if (account.known && account.limit - account.spentSoFar - account.others - account.reserved < amount)
      return account.kind;
    if (account.paced && now - account.lastSync < core.leaseTtlMs) return 'pacing';
    return 'budget_lease';
  }

  // ---- frequency and QPS ------------------------------------------------------------------

  private viewer(campaign: CampaignLimits, viewer: string, now: number): ViewerCount {
    const entry = this.core.viewers.get(campaign.id, viewer, (campaign.frequencyCap?.periodHours ?? 1) * HOUR_MS, now);
    entry.cap = campaign.frequencyCap?.count ?? Infinity;
    if (this.core.shared.sync && now - entry.fetchedAt >= FRESH_MS)
      this.exchange.exchangeInline(now, { accounts: [], viewers: [entry], buckets: [] });
    return entry;
  }

  private frequencyShort(campaign: CampaignLimits, viewer: string | null, now: number): Refusal | null {
    const cap = campaign.frequencyCap;
    if (!cap || !viewer) return null;
    return this.viewer(campaign, viewer, now).total(now) >= cap.count ? 'frequency_cap' : null;
  }

  private bucket(scope: QpsScope, id: number, limit: number, now: number): QpsBucket {
    const { core } = this;
    const key = `${scope}:${id}`;
    let bucket = core.buckets.get(key);
    if (!bucket) {
      core.buckets.set(key, (bucket = new QpsBucket(key, limit, core.processes, now)));
      if (core.shared.sync) this.exchange.exchangeInline(now, { accounts: [], viewers: [], buckets: [bucket] });
    }
    if (bucket.limit !== limit) {
      bucket.limit = limit;
      bucket.share = Math.min(bucket.share, limit);
    }
    bucket.usedAt = now;
    return bucket;
  }
}
