import { describe, expect, it } from 'vitest';
import { pacingOf } from './pacing.js';

describe('campaign pacing', () => {
  it('measures spend against the daily budget times the days of the period', () => {
    expect(pacingOf(500_000_000, 2_000_000_000, 'today')).toEqual({ percent: 25, budget: 2_000_000_000 });
    expect(pacingOf(7_000_000_000, 2_000_000_000, 'last7')).toEqual({ percent: 50, budget: 14_000_000_000 });
  });

  it('has nothing to measure without a daily budget', () => {
    expect(pacingOf(1, 'unlimited', 'today')).toBeNull();
    expect(pacingOf(1, 0, 'yesterday')).toBeNull();
  });
});
