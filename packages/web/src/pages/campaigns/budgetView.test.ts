import { describe, expect, it } from 'vitest';
import { budgetAmount, budgetCell } from './budgetView.js';

describe("a campaign's budget in the list", () => {
  it('shows whole dollars without cents, cents when there are some, millions in short, and Unlimited', () => {
    expect(budgetAmount(120_000_000_000)).toBe('$120,000');
    expect(budgetAmount(1_500_250_000)).toBe('$1,500.25');
    expect(budgetAmount(999_999_000_000)).toBe('$999,999');
    expect(budgetAmount(1_000_000_000_000)).toBe('$1M');
    expect(budgetAmount(1_250_000_000_000)).toBe('$1.25M');
    expect(budgetAmount(12_345_678_900_000)).toBe('$12.35M');
    expect(budgetAmount('unlimited')).toBe('Unlimited');
  });

  it('gives the total, the daily budget per day, and the exact amounts for the hover, a line each', () => {
    expect(budgetCell(120_000_000_000, 1_500_000_000)).toEqual({
      total: '$120,000',
      daily: '$1,500/day',
      full: ['Total budget: $120,000.00', 'Daily budget: $1,500.00'],
    });
    expect(budgetCell('unlimited', 250_000_000)).toEqual({
      total: 'Unlimited',
      daily: '$250/day',
      full: ['Total budget: unlimited', 'Daily budget: $250.00'],
    });
    expect(budgetCell(2_500_000_000_000, 40_000_000_000)).toEqual({
      total: '$2.5M',
      daily: '$40,000/day',
      full: ['Total budget: $2,500,000.00', 'Daily budget: $40,000.00'],
    });
  });

  it('leaves an unlimited daily budget out', () => {
    expect(budgetCell(5_000_000_000, 'unlimited')).toEqual({
      total: '$5,000',
      daily: '',
      full: ['Total budget: $5,000.00'],
    });
  });
});
