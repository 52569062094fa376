import { describe, expect, it } from 'vitest';
import { RequestRateCounter } from './requestRate.js';

describe('RequestRateCounter', () => {
  const limit = { maxPerDevice: 30, maxPerIpUa: 60, windowMs: 10_000, maxKeys: 1_000 };

  it('counts requests per key within a window', () => {
    const c = new RequestRateCounter(limit);
    expect(c.hit('a', 0)).toBe(1);
    expect(c.hit('a', 100)).toBe(2);
    expect(c.hit(7, 200)).toBe(1);
    expect(c.hit('a', 9_999)).toBe(3);
  });

  it('weighs the previous window by how much of it still overlaps the last windowMs', () => {
    const c = new RequestRateCounter(limit);
    for (let i = 0; i < 20; i++) c.hit('a', i * 10);
    // a quarter into the next window: three quarters of the previous 20, plus this one
    expect(c.hit('a', 12_500)).toBeCloseTo(20 * 0.75 + 1);
    // the window after that no longer sees the first 20 at all
    expect(c.hit('a', 20_000)).toBeCloseTo(1 * 1 + 1);
    expect(c.hit('a', 45_000)).toBe(1);
  });

  it('holds at most two windows of keys, and stops tracking new keys in a full window', () => {
    const c = new RequestRateCounter({ ...limit, maxKeys: 100 });
    for (let i = 0; i < 250; i++) c.hit(`k${i}`, 0);
    expect(c.keys).toBe(100);
    expect(c.untracked).toBe(150);
    // a tracked key keeps counting
    expect(c.hit('k1', 1)).toBe(2);
    for (let i = 0; i < 250; i++) c.hit(`n${i}`, 10_000);
    expect(c.keys).toBe(200);
    for (let i = 0; i < 250; i++) c.hit(`m${i}`, 20_000);
    expect(c.keys).toBe(200);
  });

  it('tolerates a clock that steps back', () => {
    const c = new RequestRateCounter(limit);
    c.hit('a', 50_000);
    expect(c.hit('a', 49_000)).toBe(2);
  });
});
