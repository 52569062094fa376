import { type Limit } from '@adplane/shared';
import { Account, type AccountKind } from './allowances.js';
import { DAY_MS, evenRate, HOUR_MS, paceStart } from './pacing.js';
import { type BudgetAsk, type HoursSeen } from './sharedCounters.js';
import { type CampaignLimits, type DealLimits, type TagLimits } from './types.js';

/**
 * This process's budget accounts, by shared key: a campaign's day (`c<id>:d<day>`, the day counted
 * in the tenant's zone) and total (`c<id>:t`), a tag's daily impressions (`ti<id>:d<day>`) and
 * requests (`tr<id>:d<day>`), an account's post-bid decisions in a calendar month of UTC
 * (`pb<tenant>:m<YYYY-MM>`, the admin's postbidMaxImps), a supply deal's impressions over its life
 * (`sd<id>:t`, kept as a campaign's total) and per day (`sd<id>:d<day>`). Limits and pacing are refreshed from the
 * caller's values on every use (the snapshot may have changed them).
 */
export const DAILY_KEY_TTL_MS = 3 * DAY_MS;
/** A month's key outlives the rest of its month after any use (and is gone a month later). */
export const MONTH_KEY_TTL_MS = 32 * DAY_MS;

/** The calendar month of UTC that holds `now`: its name (YYYY-MM), start and end. */
function utcMonth(now: number): { name: string; start: number; end: number } {
  const d = new Date(now);
  const [y, m] = [d.getUTCFullYear(), d.getUTCMonth()];
  return { name: `${y}-${String(m + 1).padStart(2, '0')}`, start: Date.UTC(y, m, 1), end: Date.UTC(y, m + 1, 1) };
}

const limitOf = (limit: Limit): number => (limit === 'unlimited' ? -1 : limit);
export const dayIndex = (now: number, timezone: number): number => Math.floor((now + timezone * HOUR_MS) / DAY_MS);

export class AccountBook {
  private readonly accounts = new Map<string, Account>();
  /**
   * Each campaign's daily account as last found, by campaign id: a decision checks many campaigns,
   * nearly always on the day it checked them last, so `daily` does not build and hash the key each
   * time. An entry is used only while `now` is in its day (and zone); every account it holds is the
   * one `accounts` holds under its key (cleared when a daily account leaves the book).
   */
  private readonly dailyById = new Map<number, Account>();
  /** The same for the accounts' post-bid months, by tenant id: an entry is used while `now` is in its month. */
  private readonly postbidById = new Map<number, { account: Account; start: number }>();
  /**
   * The shared spend last seen of accounts that left the book (idle), until their day (or month)
   * ends; a total's is kept. A Redis that comes back empty is raised back to it (`lastSeen`), and an
   * account made again for its key starts with it as its floor.
   */
  private readonly seen = new Map<
    string,
    { spent: number; generation: string; ttlMs: number; until: number; hours: HoursSeen | null }
  >();
  private seenSweptAt = -Infinity;

  dailyKey(campaign: CampaignLimits, now: number): string {
    return `c${campaign.id}:d${dayIndex(now, campaign.timezone)}`;
  }

  tagKey(tag: TagLimits, which: 'ti' | 'tr', now: number): string {
    return `${which}${tag.id}:d${dayIndex(now, tag.timezone)}`;
  }

  dealTotalKey(deal: DealLimits): string {
    return `sd${deal.id}:t`;
  }

  dealDayKey(deal: DealLimits, now: number): string {
    return `sd${deal.id}:d${dayIndex(now, deal.timezone)}`;
  }

  postbidKey(tenantId: number, now: number): string {
    return `pb${tenantId}:m${utcMonth(now).name}`;
  }

  get(key: string): Account | undefined {
    return this.accounts.get(key);
  }

  values(): IterableIterator<Account> {
    return this.accounts.values();
  }

  get size(): number {
    return this.accounts.size;
  }

  delete(key: string): void {
    const account = this.accounts.get(key);
    if (account?.kind === 'daily_budget') this.dailyById.clear();
    if (account?.kind === 'postbid_cap') this.postbidById.clear();
    // (its day's spend per hour too: those not yet sent back from before a loss, else as last seen)
    const hours = account ? (account.hoursBack ?? account.hoursSeen()) : null;
    if (account && account.known && account.spent >= account.floor && account.spent > 0)
      this.seen.set(key, {
        spent: account.spent,
        generation: account.generation,
        ttlMs: account.ttlMs,
        until: account.dayEnd,
        hours,
      });
    else if (account && account.floor > 0)
      this.seen.set(key, {
        spent: account.floor,
        generation: account.floorGen,
        ttlMs: account.ttlMs,
        until: account.dayEnd,
        hours,
      });
    this.accounts.delete(key);
  }

  /** An account new to the book starts from the spend last seen of its key, if it left the book before. */
  private added(account: Account): Account {
    const seen = this.seen.get(account.key);
    if (seen) {
      account.floor = seen.spent;
      account.floorGen = seen.generation;
      if (seen.hours) {
        account.hours = new Array<number>(24).fill(0);
        for (const [hour, spend] of seen.hours.spend) account.hours[hour] = spend;
        account.hoursGen = seen.hours.gen;
      }
      this.seen.delete(account.key);
    }
    return account;
  }

  /**
   * The keys of accounts that left the book and the shared spend last seen of each (and of a day's,
   * its spend per hour), as asks that only raise the shared spend to it (no lease: this process holds
   * none on them). Drops what has ended: the hours sent back are of days not over.
   */
  lastSeen(now: number): BudgetAsk[] {
    this.sweepSeen(now, true);
    return [...this.seen].map(([key, s]) => {
      const ask: BudgetAsk = {
        key,
        limit: -1,
        want: 0,
        min: 1,
        used: 0,
        reserved: 0,
        floor: s.spent,
        floorGen: s.generation,
        evenRate: 0,
        paceStart: 0,
        dayEnd: 0,
        hour: -1,
        ttlMs: s.ttlMs,
      };
      if (s.hours) ask.hours = s.hours;
      return ask;
    });
  }

  /** Drops the spend last seen of days (and months) that have ended; at most once a minute unless `now`. */
  sweepSeen(now: number, force = false): void {
    if (!force && now - this.seenSweptAt < 60_000) return;
    this.seenSweptAt = now;
    for (const [key, s] of this.seen) if (s.until <= now) this.seen.delete(key);
  }

  private account(key: string, kind: AccountKind, timezone: number | null, daily: boolean, now: number): Account {
    let account = this.accounts.get(key);
    if (!account) {
      const dayEnd = daily ? (dayIndex(now, timezone ?? 0) + 1) * DAY_MS - (timezone ?? 0) * HOUR_MS : Infinity;
      this.accounts.set(
        key,
        (account = this.added(
          new Account(key, kind, daily ? DAILY_KEY_TTL_MS : 0, daily ? timezone : null, dayEnd, now),
        )),
      );
    }
    return account;
  }

  /**
   * The account of the same count (a campaign's day, a tag's daily impressions or requests) on
   * `now`'s day in its zone: an impression whose decision was made on a day that has ended is booked
   * to it. Made with the old account's limit and pacing when new (the next use refreshes them).
   */
  sameOn(account: Account, now: number): Account {
    if (account.timezone === null || now < account.dayEnd) return account;
    const key = `${account.key.slice(0, account.key.lastIndexOf(':d'))}:d${dayIndex(now, account.timezone)}`;
    const known = this.accounts.has(key);
    const today = this.account(key, account.kind, account.timezone, true, now);
    if (!known) {
      today.limit = account.limit;
      // (a later day than the campaign's first: its pace window is the whole day)
      today.evenRate = account.evenRate ? evenRate(today.limit, today.dayEnd - today.paceStart) : 0;
    }
    return today;
  }

  /** The campaign's day; kept even when the daily budget is unlimited (its spend feeds the pacing state). */
  daily(campaign: CampaignLimits, now: number): Account {
    let account = this.dailyById.get(campaign.id);
    // the account of `now`'s day in the campaign's zone is the one whose day (dayEnd - DAY_MS .. dayEnd) holds now
    if (!account || account.timezone !== campaign.timezone || now >= account.dayEnd || now < account.dayEnd - DAY_MS) {
      account = this.account(this.dailyKey(campaign, now), 'daily_budget', campaign.timezone, true, now);
      this.dailyById.set(campaign.id, account);
    }
    account.limit = limitOf(campaign.dailyBudget);
    // the pace window: the whole day, or from the campaign's creation on its first day
    account.paceStart = paceStart(account.dayEnd - DAY_MS, account.dayEnd, campaign.createdAtMinute);
    account.evenRate =
      campaign.pacing === 'even' && account.limit > 0 ? evenRate(account.limit, account.dayEnd - account.paceStart) : 0;
    return account;
  }

  total(campaign: CampaignLimits, now: number): Account {
    const account = this.account(`c${campaign.id}:t`, 'total_budget', null, false, now);
    account.limit = limitOf(campaign.totalBudget);
    return account;
  }

  tag(tag: TagLimits, which: 'ti' | 'tr', now: number): Account {
    const account = this.account(
      this.tagKey(tag, which, now),
      which === 'ti' ? 'daily_imp_cap' : 'daily_request_cap',
      tag.timezone,
      true,
      now,
    );
    account.limit = limitOf(which === 'ti' ? tag.dailyImpCap : tag.dailyRequestCap);
    return account;
  }

  /** A supply deal's impressions over its life (its total cap). */
  dealTotal(deal: DealLimits, now: number): Account {
    const account = this.account(this.dealTotalKey(deal), 'deal_imp_cap', null, false, now);
    account.limit = limitOf(deal.impCap);
    return account;
  }

  /** A supply deal's impressions on `now`'s day in its tenant's zone (its daily cap). */
  dealDay(deal: DealLimits, now: number): Account {
    const account = this.account(this.dealDayKey(deal, now), 'deal_daily_imp_cap', deal.timezone, true, now);
    account.limit = limitOf(deal.dailyImpCap);
    return account;
  }

  /** The accounts of the deal's caps that are set (none when both are 'unlimited'). */
  dealCaps(deal: DealLimits, now: number): Account[] {
    const out: Account[] = [];
    if (deal.impCap !== 'unlimited') out.push(this.dealTotal(deal, now));
    if (deal.dailyImpCap !== 'unlimited') out.push(this.dealDay(deal, now));
    return out;
  }

  /**
   * The account's post-bid decisions in `now`'s month (UTC); `maxImps` 0 is no cap (counted all the
   * same, so a cap set mid-month starts from the month's count). Undefined `maxImps`: the limit stays.
   */
  postbid(tenantId: number, maxImps: number | undefined, now: number): Account {
    const held = this.postbidById.get(tenantId);
    let account = held && now >= held.start && now < held.account.dayEnd ? held.account : undefined;
    if (!account) {
      const month = utcMonth(now);
      const key = `pb${tenantId}:m${month.name}`;
      account = this.accounts.get(key);
      if (!account)
        this.accounts.set(
          key,
          (account = this.added(new Account(key, 'postbid_cap', MONTH_KEY_TTL_MS, null, month.end, now))),
        );
      this.postbidById.set(tenantId, { account, start: month.start });
    }
    if (maxImps !== undefined) account.limit = maxImps > 0 ? maxImps : -1;
    return account;
  }

  /** The shared spend beyond the campaign budgets held here, as of the last exchange. */
  overspend(): number {
    let over = 0;
    for (const a of this.accounts.values())
      if (!a.unlimited && (a.kind === 'daily_budget' || a.kind === 'total_budget'))
        over += Math.max(a.spent - a.limit, 0);
    return over;
  }
}
