import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, beforeEach, vi } from 'vitest';

const HOUR_MS = 3_600_000;

/** Milliseconds from `now` to the next turn of a UTC hour. */
export function msToHourTurn(now: number): number {
  return HOUR_MS - (now % HOUR_MS);
}

/**
 * Waits, when the next turn of a UTC hour is less than `marginMs` away, until it has passed (plus a
 * second). Stats are kept by UTC hour and every tenant's day and month (whole-hour offsets) turn on a
 * UTC hour, so a test that writes counters "now" and then reads this hour's, today's or this month's
 * numbers cannot see them split across a turn when it starts clear of one.
 */
export async function clearOfHourTurn(marginMs: number, now = Date.now()): Promise<number> {
  const left = msToHourTurn(now);
  if (left >= marginMs) return 0;
  const wait = left + 1_000;
  await sleep(wait);
  return wait;
}

/**
 * The server projects' setup (vitest.config.ts): each file starts at least 45 s before an hour's turn
 * (the setup of most files writes rows their tests read), and each test at least 15 s before it.
 * Files on a simulated clock (`vi.useFakeTimers`) are left alone: they do not read the real one.
 */
export function keepTestsClearOfHourTurns(): void {
  const guard = (marginMs: number) => async () => {
    if (!vi.isFakeTimers()) await clearOfHourTurn(marginMs);
  };
  beforeAll(guard(45_000));
  beforeEach(guard(15_000));
}
