import { formatUsdAxis, fromMicros, UNLIMITED } from '@adplane/shared';
import { usd } from '../../resources/fields.js';
import { limitText } from '../../resources/unitFields.js';

/** From a million dollars on, the list reads `$1.25M` (the exact amount is on the hover). */
const MILLION = 1_000_000;
const millions = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  minimumFractionDigits: 0,
  maximumFractionDigits: 2,
});

/**
 * A budget as people set it, short enough for the list: whole dollars (`$120,000`), cents when it has
 * some (`$1,500.25`), millions in short (`$1.25M`), or `Unlimited`.
 */
export const budgetAmount = (v: unknown): string =>
  limitText(v, (micros) => {
    const dollars = fromMicros(micros);
    return Math.abs(dollars) >= MILLION ? millions.format(dollars) : formatUsdAxis(dollars);
  });

/**
 * How a campaign's budgets read in the list: the total, then the daily one if any, short enough for
 * the column at 1280 px (`$120,000` · `$1,500/day`), and the exact amounts on hover, a line each.
 */
export function budgetCell(
  totalBudget: unknown,
  dailyBudget: unknown,
): { total: string; daily: string; full: string[] } {
  // An unlimited daily budget says nothing more than the total.
  const hasDaily = typeof dailyBudget === 'number';
  const exact = (v: unknown) => (v === UNLIMITED ? 'unlimited' : limitText(v, usd));
  return {
    total: budgetAmount(totalBudget),
    daily: hasDaily ? `${budgetAmount(dailyBudget)}/day` : '',
    full: [`Total budget: ${exact(totalBudget)}`, ...(hasDaily ? [`Daily budget: ${exact(dailyBudget)}`] : [])],
  };
}
