import { type Account } from './allowances.js';
import { type ViewerCount } from './frequency.js';

/**
 * The decisions made here whose impression has not come yet: what each holds on which budgets and
 * viewer. In insertion order, which is expiry order (one hold time for all).
 */
export interface Reservation {
  expires: number;
  accounts: Account[];
  amounts: number[];
  viewer: ViewerCount | null;
}

export class Reservations {
  private readonly held = new Map<string, Reservation>();
  /** Last `expire` time: a second sweep at the same time has nothing to return (a decision checks many campaigns at one `now`). */
  private sweptAt = -Infinity;

  get size(): number {
    return this.held.size;
  }

  add(id: string, reservation: Reservation): void {
    this.held.set(id, reservation);
    // one that is due already (a zero hold time): the next sweep must look, whatever its time
    if (reservation.expires <= this.sweptAt) this.sweptAt = -Infinity;
  }

  /** Takes the reservation out (the impression came, or it was released); undefined when none. */
  take(id: string): Reservation | undefined {
    const r = this.held.get(id);
    if (r) this.held.delete(id);
    return r;
  }

  /** Gives a reservation's holds back. */
  static unreserve(r: Reservation): void {
    for (let i = 0; i < r.accounts.length; i++) r.accounts[i]!.reserved -= r.amounts[i]!;
    if (r.viewer) r.viewer.pending--;
  }

  /** Returns the reservations past the hold time; how many. */
  expire(now: number): number {
    // what a sweep leaves expires after its `now`, and so does what is added since (else `add` resets sweptAt)
    if (now === this.sweptAt || this.held.size === 0) return 0;
    this.sweptAt = now;
    let n = 0;
    for (const [id, r] of this.held) {
      if (r.expires > now) break;
      this.held.delete(id);
      Reservations.unreserve(r);
      n++;
    }
    return n;
  }

  /**
   * Another process counted the impressions of decisions made here: their reservations are done, and
   * the lease shrinks by as much (that spend reached the shared counters through the other process).
   * Returns how many were ours.
   */
  committedElsewhere(ids: readonly string[]): number {
    let n = 0;
    for (const id of ids) {
      const r = this.take(id);
      if (!r) continue;
      Reservations.unreserve(r);
      for (let i = 0; i < r.accounts.length; i++) {
        const account = r.accounts[i]!;
        if (account.unlimited) continue;
        account.granted = Math.max(account.granted - r.amounts[i]!, 0);
        // the grant on its way was asked for with this reservation in it
        if (account.inFlight) account.shrunk += r.amounts[i]!;
      }
      n++;
    }
    return n;
  }
}
