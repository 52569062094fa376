import { TestClock } from '../src/clock.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * A running clock from the middle of the machine's current UTC hour: an app on it stamps and reads
 * this hour's, today's and this month's numbers half an hour clear of their turn (tenants' days and
 * months turn on a UTC hour), however near the machine's clock is to one. It stays within half an
 * hour of the machine's clock, which stamps the config store's rows.
 */
export function midHourClock(): TestClock {
  return new TestClock(Date.now() + midHourOffsetMs(), { running: true });
}

/** What moves the machine's clock to the middle of its current UTC hour: for processes that share that time (each reads `Date.now() + offset`). */
export function midHourOffsetMs(now = Date.now()): number {
  return HOUR_MS / 2 - (now % HOUR_MS);
}

/** The stats hour of `ms`: `YYYY-MM-DD HH:00:00` (UTC). */
export const hourText = (ms: number): string => `${new Date(ms).toISOString().slice(0, 13).replace('T', ' ')}:00:00`;

/** The UTC date `days` days from `ms`: `YYYY-MM-DD`. */
export const isoDay = (ms: number, days = 0): string => new Date(ms + days * DAY_MS).toISOString().slice(0, 10);
