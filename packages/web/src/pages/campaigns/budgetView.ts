import { formatUsdAxis, fromMicros } from '@adplane/shared';
import { usd } from '../../resources/fields.js';
import { limitText } from '../../resources/unitFields.js';

/** A budget in whole dollars, as people set it (`$120,000`; `$1,500.25` when it has cents), or `Unlimited`. */
export const budgetAmount = (v: unknown): string => limitText(v, (micros) => formatUsdAxis(fromMicros(micros)));

/**
 * How a campaign's budgets read in the list: the total, then the daily one if any, short enough for
 * the column at 1280 px (`$120,000` · `$1,500/day`), and the exact amounts on hover.
 */
export function budgetCell(totalBudget: unknown, dailyBudget: unknown): { total: string; daily: string; full: string } {
  // An unlimited daily budget says nothing more than the total.
  const hasDaily = typeof dailyBudget === 'number';
  return {
    total: budgetAmount(totalBudget),
    daily: hasDaily ? `${budgetAmount(dailyBudget)}/day` : '',
    full: `Total ${limitText(totalBudget, usd)}${hasDaily ? ` · ${limitText(dailyBudget, usd)} a day` : ''}`,
  };
}
