/**
 * The monthly cap on post-bid impressions (the admin's postbidMaxImps, per account and calendar
 * month in UTC): pixels are added to a decision only while the account's count for the month is
 * below the cap, and the count grows with each decision that carries them (a decision that carries
 * pixels is at most one post-bid impression, so the impressions stay under the cap too).
 *
 * The count is this process's, raised to the stats store's month-to-date count when the edge starts
 * and every minute after (`seed`, capSeed.ts): the other processes' post-bid impressions reach it
 * through the store, so with N edge processes an account's month ends at most about N minutes' worth
 * of post-bid decisions over the cap (docs/traffic-quality.md says the bound), and a restart does not
 * reset the month.
 */
export class PostbidCap {
  private month = '';
  private counts = new Map<number, number>();

  private roll(now: number): void {
    const month = new Date(now).toISOString().slice(0, 7);
    if (month !== this.month) {
      this.month = month;
      this.counts = new Map();
    }
  }

  /** This month's count of an account (post-bid decisions of this process, plus the seed). */
  used(tenantId: number, now: number): number {
    this.roll(now);
    return this.counts.get(tenantId) ?? 0;
  }

  /** Whether another post-bid impression fits under `max` (0: no cap); takes it when `take` is set. */
  allow(tenantId: number, max: number, now: number, take: boolean): boolean {
    const used = this.used(tenantId, now);
    if (max > 0 && used >= max) return false;
    if (take) this.counts.set(tenantId, used + 1);
    return true;
  }

  /** Starts an account's month at `count` (the stats store's month-to-date post-bid impressions), unless it already counted more. */
  seed(tenantId: number, count: number, month: string, now: number): void {
    this.roll(now);
    if (month !== this.month) return;
    if (count > (this.counts.get(tenantId) ?? 0)) this.counts.set(tenantId, count);
  }
}
