import { inProcessCounters } from '../auction/deliveryGate.js';
import { type DeliveryCounters } from '../../delivery/types.js';

/**
 * The monthly cap on post-bid impressions (the admin's postbidMaxImps, per account and calendar
 * month in UTC): pixels are added to a decision only while the account's count for the month is
 * below the cap, and the count grows with each decision that carries them (a decision that carries
 * pixels is at most one post-bid impression, so the impressions stay under the cap too).
 *
 * The count is one of the delivery counters (delivery/, docs/delivery.md), shared as a daily request
 * cap is: by every process of the deployment (the workers' primary, or Redis), each process deciding
 * on a lease of the cap (about a second of its post-bid decisions) with no round trip per request.
 * It starts at the stats store's month-to-date count (postbidCapSeed.ts), so a restart does not reset the
 * month. docs/traffic-quality.md states the bound.
 */
export type PostbidTake = 'taken' | 'cap_reached' | 'cap_lease';

export class PostbidCap {
  /** Without the app's counters (unit tests): counters of this process alone. */
  constructor(readonly delivery: DeliveryCounters = inProcessCounters()) {}

  /** This month's count of an account as this process sees it (the shared count, about a second old, plus its own since). */
  used(tenantId: number, now: number): number {
    return this.delivery.postbidCount(tenantId, now);
  }

  /** Whether another post-bid impression fits under `max` (0: no cap), and takes it (counted everywhere). */
  take(tenantId: number, max: number, now: number): PostbidTake {
    const refusal = this.delivery.takePostbid(tenantId, max, now);
    return refusal === null ? 'taken' : refusal === 'budget_lease' ? 'cap_lease' : 'cap_reached';
  }

  /** Whether another would fit, taking nothing ("Test this tag"). */
  wouldFit(tenantId: number, max: number, now: number): boolean {
    return max <= 0 || this.used(tenantId, now) < max;
  }
}
