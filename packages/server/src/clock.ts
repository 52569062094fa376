/**
 * The server's one reading of the time. Every module that needs the time (an hour's counters, a
 * day's budget, an expiry, a deadline) reads it from a `Clock` handed down from `buildApp`, so a
 * test sets the time it needs instead of waiting for it. Timers (setTimeout, setInterval) stay real:
 * only the reading goes through the clock. This module imports nothing, so every floor may import it.
 */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
}

/** The machine's clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock a test sets. Stopped (the default), it reads what was last set until it is set or advanced
 * again; running, it moves on from there at the real pace (performance.now(), never stepped back), for
 * tests whose demand calls race real timers against deadlines read from the clock.
 */
export class TestClock implements Clock {
  private at: number;
  private since: number | null;

  constructor(at: number, options: { running?: boolean } = {}) {
    this.at = at;
    this.since = options.running ? performance.now() : null;
  }

  now(): number {
    return this.since === null ? this.at : this.at + Math.floor(performance.now() - this.since);
  }

  /** The clock reads `at` from now on (and runs on from it when running). */
  set(at: number): void {
    this.at = at;
    if (this.since !== null) this.since = performance.now();
  }

  /** The clock reads `ms` later than it did. */
  advance(ms: number): void {
    this.set(this.now() + ms);
  }
}
