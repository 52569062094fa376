import { describe, expect, it } from 'vitest';
import { budgetAmount, budgetCell } from './budgetView.js';

describe("a campaign's budget in the list", () => {
  it('shows whole dollars without cents, cents when there are some, and Unlimited', () => {
    expect(budgetAmount(120_000_000_000)).toBe('$120,000');
    expect(budgetAmount(1_500_250_000)).toBe('$1,500.25');
    expect(budgetAmount('unlimited')).toBe('Unlimited');
  });

  it('gives the total, the daily budget per day, and the exact amounts for the hover', () => {
    expect(budgetCell(120_000_000_000, 1_500_000_000)).toEqual({
      total: '$120,000',
      daily: '$1,500/day',
      full: 'Total $120,000.00 · $1,500.00 a day',
    });
    expect(budgetCell('unlimited', 250_000_000)).toEqual({ total: 'Unlimited', daily: '$250/day', full: 'Total Unlimited · $250.00 a day' });
  });

  it('leaves an unlimited daily budget out', () => {
    expect(budgetCell(5_000_000_000, 'unlimited')).toEqual({ total: '$5,000', daily: '', full: 'Total $5,000.00' });
  });
});
