import { describe, expect, it } from 'vitest';
import { contractDaysLeft, contractStateOf } from './contractExpiry.js';

describe('contractStateOf', () => {
  const noon = Date.parse('2026-11-28T12:00:00Z');
  it('is expiring up to and on the last day, expired the day after, nothing further off', () => {
    expect(contractStateOf('2026-11-28', noon)).toBe('expiring');
    expect(contractStateOf('2026-11-27', noon)).toBe('expired');
    expect(contractStateOf('2026-12-28', noon)).toBe('expiring');
    expect(contractStateOf('2026-12-29', noon)).toBeNull();
    expect(contractStateOf(null, noon)).toBeNull();
    expect(contractStateOf('soon', noon)).toBeNull();
  });
  it("counts days in the account's time zone", () => {
    const lateUtc = Date.parse('2026-11-28T22:00:00Z');
    expect(contractDaysLeft('2026-11-28', lateUtc, 0)).toBe(0);
    // already the 29th at UTC+3
    expect(contractStateOf('2026-11-28', lateUtc, 3)).toBe('expired');
  });
});
