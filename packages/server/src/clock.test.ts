import { describe, expect, it } from 'vitest';
import { systemClock, TestClock } from './clock.js';

describe('clock', () => {
  it('reads the machine time from the system clock', () => {
    const before = Date.now();
    const read = systemClock.now();
    expect(read).toBeGreaterThanOrEqual(before);
    expect(read).toBeLessThanOrEqual(Date.now());
  });

  it('reads what a stopped test clock was set to until it is set or advanced', () => {
    const clock = new TestClock(Date.parse('2030-01-15T10:20:00Z'));
    expect(clock.now()).toBe(Date.parse('2030-01-15T10:20:00Z'));
    clock.advance(90_000);
    expect(clock.now()).toBe(Date.parse('2030-01-15T10:21:30Z'));
    clock.set(0);
    expect(clock.now()).toBe(0);
  });

  it('moves a running test clock on from where it was set, never back', async () => {
    const clock = new TestClock(1_000, { running: true });
    await new Promise((r) => setTimeout(r, 20));
    const read = clock.now();
    expect(read).toBeGreaterThanOrEqual(1_015);
    clock.set(5_000);
    expect(clock.now()).toBeGreaterThanOrEqual(5_000);
    expect(clock.now()).toBeLessThan(5_000 + 1_000);
  });
});
