/** A demand account's contract is "expiring" this many days before its end date (the profile's `contactExpired`). */
export const CONTRACT_WARNING_DAYS = 30;

export type ContractState = 'expired' | 'expiring' | null;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Where a contract stands at `now` (epoch ms) in the account's time zone (whole hours from UTC):
 * `expired` once its end date (YYYY-MM-DD, the last day it runs) has passed, `expiring` in the
 * CONTRACT_WARNING_DAYS days before, else null (no date, or far off).
 */
export function contractStateOf(endDate: string | null | undefined, now: number, timezone = 0): ContractState {
  if (!endDate || !/^\d{4}-\d{2}-\d{2}$/.test(endDate)) return null;
  const days = contractDaysLeft(endDate, now, timezone);
  return days < 0 ? 'expired' : days <= CONTRACT_WARNING_DAYS ? 'expiring' : null;
}

/** Days from `now` (in the account's time zone) to the end date: 0 on the last day, negative once passed. */
export function contractDaysLeft(endDate: string, now: number, timezone = 0): number {
  const today = new Date(now + timezone * 3_600_000).toISOString().slice(0, 10);
  return Math.round((Date.parse(`${endDate}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS);
}
