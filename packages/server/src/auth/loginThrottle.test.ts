import { describe, expect, it } from 'vitest';
import { LoginThrottle } from './loginThrottle.js';

const MINUTE = 60_000;

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('LoginThrottle', () => {
  it('refuses after 5 failures within 15 minutes, until the oldest leaves the window', () => {
    const c = clock();
    const throttle = new LoginThrottle({ now: c.now });
    for (let i = 0; i < 5; i++) {
      expect(throttle.retryAfterMs('1.1.1.1')).toBe(0);
      throttle.recordFailure('1.1.1.1');
      c.advance(MINUTE);
    }
    // Failures at 0..4 min; now 5 min: blocked until the first (t=0) is 15 min old.
    expect(throttle.retryAfterMs('1.1.1.1')).toBe(10 * MINUTE);
    expect(throttle.retryAfterMs('2.2.2.2')).toBe(0);
    c.advance(10 * MINUTE - 1);
    expect(throttle.retryAfterMs('1.1.1.1')).toBe(1);
    c.advance(1);
    expect(throttle.retryAfterMs('1.1.1.1')).toBe(0);
  });

  it('forgets failures older than the window', () => {
    const c = clock();
    const throttle = new LoginThrottle({ now: c.now });
    for (let i = 0; i < 4; i++) throttle.recordFailure('a');
    c.advance(16 * MINUTE);
    throttle.recordFailure('a');
    expect(throttle.retryAfterMs('a')).toBe(0);
  });

  it('is cleared by a success', () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) throttle.recordFailure('a');
    expect(throttle.retryAfterMs('a')).toBeGreaterThan(0);
    throttle.clear('a');
    expect(throttle.retryAfterMs('a')).toBe(0);
  });

  it('tracks a bounded number of clients, forgetting the stalest first', () => {
    const c = clock();
    const throttle = new LoginThrottle({ now: c.now, maxClients: 3, maxFailures: 1 });
    for (const ip of ['a', 'b', 'c']) {
      throttle.recordFailure(ip);
      c.advance(1000);
    }
    throttle.recordFailure('a'); // a is now the most recent
    throttle.recordFailure('d');
    expect(throttle.trackedClients).toBe(3);
    expect(throttle.retryAfterMs('b')).toBe(0);
    expect(throttle.retryAfterMs('a')).toBeGreaterThan(0);
    expect(throttle.retryAfterMs('d')).toBeGreaterThan(0);
  });
});
