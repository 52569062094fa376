import { type Limit, underLimit } from '@adplane/shared';

/**
 * Caps and budgets counted in this process (exact on one node; a later issue shares them across
 * nodes through Redis): a tag's requests per second, requests and impressions per UTC day, and a
 * campaign's spend per day (in its tenant's time zone) and in total since this process started.
 */
const DAY = 86_400_000;

class DayCounter {
  private day = -1;
  private counts = new Map<number, number>();
  get(id: number, day: number): number {
    if (day !== this.day) return 0;
    return this.counts.get(id) ?? 0;
  }
  add(id: number, day: number, n: number): void {
    if (day !== this.day) {
      this.day = day;
      this.counts = new Map();
    }
    this.counts.set(id, (this.counts.get(id) ?? 0) + n);
  }
}

export class Pacing {
  private second = -1;
  private qps = new Map<number, number>();
  private tagRequests = new DayCounter();
  private tagImps = new DayCounter();
  private spendByZone = new Map<number, DayCounter>();
  private totalSpend = new Map<number, number>();

  /** Counts one call to a tag when its QPS and daily request cap allow it; the refusal reason otherwise. */
  takeTagRequest(tagId: number, qpsLimit: Limit, dailyCap: Limit, dailyImpCap: Limit, now: number): string | null {
    const sec = Math.floor(now / 1000);
    if (sec !== this.second) {
      this.second = sec;
      this.qps.clear();
    }
    const day = Math.floor(now / DAY);
    const inSecond = this.qps.get(tagId) ?? 0;
    if (!underLimit(inSecond, qpsLimit)) return 'qps_limit';
    if (!underLimit(this.tagRequests.get(tagId, day), dailyCap)) return 'daily_request_cap';
    if (!underLimit(this.tagImps.get(tagId, day), dailyImpCap)) return 'daily_imp_cap';
    this.qps.set(tagId, inSecond + 1);
    this.tagRequests.add(tagId, day, 1);
    return null;
  }

  private supplierSecond = -1;
  private supplierQps = new Map<number, number>();

  /** Counts one bid request from a supplier (DSP mode) when its QPS limit allows it; false when over. */
  takeSupplierRequest(supplierId: number, qpsLimit: Limit, now: number): boolean {
    const sec = Math.floor(now / 1000);
    if (sec !== this.supplierSecond) {
      this.supplierSecond = sec;
      this.supplierQps.clear();
    }
    const inSecond = this.supplierQps.get(supplierId) ?? 0;
    if (!underLimit(inSecond, qpsLimit)) return false;
    this.supplierQps.set(supplierId, inSecond + 1);
    return true;
  }

  private exchangeSecond = -1;
  private exchangeQps = new Map<number, number>();

  /** Counts one bid request sent to an ad exchange (DSP mode) when its QPS limit allows it; the refusal reason otherwise. */
  takeExchangeRequest(exchangeId: number, qpsLimit: Limit, now: number): string | null {
    const sec = Math.floor(now / 1000);
    if (sec !== this.exchangeSecond) {
      this.exchangeSecond = sec;
      this.exchangeQps.clear();
    }
    const inSecond = this.exchangeQps.get(exchangeId) ?? 0;
    if (!underLimit(inSecond, qpsLimit)) return 'qps_limit';
    this.exchangeQps.set(exchangeId, inSecond + 1);
    return null;
  }

  private zoneDay(now: number, tz: number): number {
    return Math.floor((now + tz * 3_600_000) / DAY);
  }

  /** Whether one more impression at `cpm` fits the campaign's daily and total budgets. */
  campaignRefusal(campaignId: number, cpm: number, daily: Limit, total: Limit, tz: number, now: number): string | null {
    const cost = cpm / 1000;
    const spentToday = this.spendByZone.get(tz)?.get(campaignId, this.zoneDay(now, tz)) ?? 0;
    if (daily !== 'unlimited' && spentToday + cost > daily) return 'daily_budget';
    if (total !== 'unlimited' && (this.totalSpend.get(campaignId) ?? 0) + cost > total) return 'total_budget';
    return null;
  }

  /** An impression counted: the tag's daily impressions and the campaign's spend move. */
  recordImpression(tagId: number, campaignId: number, revenueCpm: number, tz: number, now: number): void {
    if (tagId) this.tagImps.add(tagId, Math.floor(now / DAY), 1);
    if (campaignId) {
      let zone = this.spendByZone.get(tz);
      if (!zone) this.spendByZone.set(tz, (zone = new DayCounter()));
      zone.add(campaignId, this.zoneDay(now, tz), revenueCpm / 1000);
      this.totalSpend.set(campaignId, (this.totalSpend.get(campaignId) ?? 0) + revenueCpm / 1000);
    }
  }
}
