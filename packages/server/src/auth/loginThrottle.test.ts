import { describe, expect, it } from 'vitest';
import { LoginThrottle } from './loginThrottle.js';

const MINUTE = 60_000;

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('LoginThrottle', () => {
  it('slows an account down after 3 failures (1 s, 2 s, 4 s, capped) and refuses it after 10 in 15 minutes', () => {
    const c = clock();
    const throttle = new LoginThrottle({ now: c.now });
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const verdict = throttle.assess('user:7', `10.0.0.${i}`);
      expect(verdict.retryAfterMs).toBe(0);
      delays.push(verdict.delayMs);
      throttle.recordFailure('user:7', `10.0.0.${i}`);
      c.advance(MINUTE);
    }
    expect(delays).toEqual([0, 0, 0, 1_000, 2_000, 4_000, 4_000, 4_000, 4_000, 4_000]);
    // Failures at 0..9 min; now 10 min: refused until the first (t=0) is 15 min old, whatever the address.
    expect(throttle.assess('user:7', '192.0.2.1').retryAfterMs).toBe(5 * MINUTE);
    expect(throttle.assess('user:8', '10.0.0.1')).toEqual({ retryAfterMs: 0, delayMs: 0 });
    c.advance(5 * MINUTE);
    expect(throttle.assess('user:7', '192.0.2.1').retryAfterMs).toBe(0);
  });

  it("never clears an account with another account's success, from the same address or not", () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 20; i++) {
      throttle.recordFailure('user:victim', '203.0.113.9');
      throttle.recordSuccess('user:attacker');
    }
    expect(throttle.assess('user:victim', '198.51.100.1').retryAfterMs).toBeGreaterThan(0);
    throttle.recordSuccess('user:victim');
    expect(throttle.assess('user:victim', '198.51.100.1')).toEqual({ retryAfterMs: 0, delayMs: 0 });
  });

  it('lets other people behind one address sign in after a few failures, and stops a guessing run from it', () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 5; i++) throttle.recordFailure('user:1', '203.0.113.1');
    expect(throttle.assess('user:2', '203.0.113.1')).toEqual({ retryAfterMs: 0, delayMs: 0 });
    for (let i = 0; i < 100; i++) throttle.recordFailure(`name:guess-${i}`, '203.0.113.2');
    expect(throttle.assess('user:3', '203.0.113.2').retryAfterMs).toBeGreaterThan(0);
    expect(throttle.assess('user:3', '203.0.113.3').retryAfterMs).toBe(0);
  });

  it('forgets failures older than the window', () => {
    const c = clock();
    const throttle = new LoginThrottle({ now: c.now });
    for (let i = 0; i < 9; i++) throttle.recordFailure('a', 'ip');
    c.advance(16 * MINUTE);
    throttle.recordFailure('a', 'ip');
    expect(throttle.assess('a', 'ip')).toEqual({ retryAfterMs: 0, delayMs: 0 });
  });

  it('tracks a bounded number of keys, forgetting the stalest first', () => {
    const c = clock();
    const throttle = new LoginThrottle({ now: c.now, maxKeys: 3, account: { slowAfter: 1, refuseAfter: 1 } });
    for (const key of ['a', 'b', 'c']) {
      throttle.recordFailure(key, 'ip');
      c.advance(1000);
    }
    throttle.recordFailure('a', 'ip'); // a is now the most recent
    throttle.recordFailure('d', 'ip');
    expect(throttle.trackedKeys.accounts).toBe(3);
    expect(throttle.assess('b', 'ip2').retryAfterMs).toBe(0);
    expect(throttle.assess('a', 'ip2').retryAfterMs).toBeGreaterThan(0);
    expect(throttle.assess('d', 'ip2').retryAfterMs).toBeGreaterThan(0);
  });
});
