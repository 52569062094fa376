import { describe, expect, it } from 'vitest';
import { rangeProblem } from './rangeRule.js';

describe('rangeProblem', () => {
  it('says the range of a number outside it, and nothing of one inside or empty', () => {
    expect(rangeProblem(150, 0, 100)).toBe('must be between 0 and 100');
    expect(rangeProblem(-1, 0, 100)).toBe('must be between 0 and 100');
    expect(rangeProblem(20_000, 0, 10_000, 'rows')).toBe('must be between 0 and 10,000 rows');
    expect(rangeProblem(0, 1)).toBe('must be at least 1');
    expect(rangeProblem(7, undefined, 5)).toBe('must be at most 5');
    for (const ok of [0, 100, 50.5, null, undefined, '']) expect(rangeProblem(ok, 0, 100)).toBeNull();
    expect(rangeProblem(1e9, undefined, undefined)).toBeNull();
  });
});
