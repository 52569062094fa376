import { type RowStatsPeriod, rowStatsDays } from '@adplane/shared';

/**
 * How much of its daily budget a campaign spent over the list's period: spend / (daily budget x the
 * period's days), as a percent. Null when there is no daily budget to measure against (unlimited or 0).
 */
export function pacingOf(spend: number, dailyBudget: unknown, period: RowStatsPeriod): { percent: number; budget: number } | null {
  if (typeof dailyBudget !== 'number' || dailyBudget <= 0) return null;
  const budget = dailyBudget * rowStatsDays(period);
  return { percent: (spend / budget) * 100, budget };
}
