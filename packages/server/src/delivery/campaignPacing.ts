import { type CampaignPacing, formatUsdMicros, type Limit, type PacingStateId } from '@adplane/shared';
import { budgetSpent, HOUR_MS, MINUTE_MS, pacingState, paceWindow, targetSoFar, tenantDay } from './pacing.js';
import { type CampaignLimits, type CampaignSpend } from './types.js';

/**
 * A campaign's pacing for the console, from the delivery counters' spend (what the edge counted) and
 * the campaign row, as a pure function of the clock: the API reads the counters once and answers
 * this for each campaign (docs/delivery.md, "Pacing state").
 */
export interface PacedCampaign {
  id: number;
  status: number;
  archived: boolean;
  startDate: string;
  endDate: string | null;
  dailyBudget: Limit;
  totalBudget: Limit;
  pacing: 'even' | 'asap';
  /** The tenant's whole-hour offset from UTC: the campaign's day is the tenant's day. */
  timezone: number;
  /** When the campaign was created (the row's createdAt, whole minutes since the epoch): its first day is paced from then. Absent: whole days. */
  createdAtMinute?: number;
}

export const limitsOf = (c: PacedCampaign): CampaignLimits => ({
  id: c.id,
  timezone: c.timezone,
  dailyBudget: c.dailyBudget,
  totalBudget: c.totalBudget,
  pacing: c.pacing,
  frequencyCap: null,
  createdAtMinute: c.createdAtMinute,
});

const spent = budgetSpent;

/** Why it does not serve at all now, or null: paused, archived or outside its flight days (tenant's zone). */
function offFlight(c: PacedCampaign, date: string): string | null {
  if (c.archived) return 'Archived';
  if (c.status === 0) return 'Paused';
  if (date < c.startDate) return `Starts on ${c.startDate}`;
  if (c.endDate && date > c.endDate) return `Ended on ${c.endDate}`;
  return null;
}

const wholePercent = (share: number) => `${Math.round(share * 100)}%`;

/**
 * Why a campaign with a daily budget is on pace, ahead or behind, in numbers: how far along the day's
 * budget it is against how far along the day (its pace window: from its creation on the day it was
 * created) it is. The rule (pacing.ts pacingState): within 5% of the budget, i.e. 5 points, is on pace,
 * whatever the pacing mode; "On pace: 12% of today's $500.00 spent, 11% of the day gone (within 5 points)".
 */
function paceReason(state: PacingStateId, spentToday: number, dailyBudget: number, evenSoFar: number): string {
  const facts = `${wholePercent(spentToday / dailyBudget)} of today's ${formatUsdMicros(dailyBudget)} spent, ${wholePercent(evenSoFar / dailyBudget)} of the day gone`;
  return state === 'on_pace' ? `${facts} (within 5 points)` : `${facts} (more than 5 points ${state})`;
}

export function campaignPacing(c: PacedCampaign, spend: CampaignSpend, now: number): CampaignPacing {
  const day = tenantDay(now, c.timezone);
  const hourly = Array.from({ length: 24 }, (_, h) => spend.hourly[h] ?? 0);
  const p = pacingState({
    campaignId: c.id,
    pacing: c.pacing,
    dailyBudget: c.dailyBudget,
    timezone: c.timezone,
    spentToday: spend.spentToday,
    hourly,
    now,
    createdAtMinute: c.createdAtMinute,
  });
  const budget = c.dailyBudget;
  // the even line: nothing before the pace window (on the day the campaign was created), then straight to the budget at midnight
  const window = paceWindow(day, c.createdAtMinute);
  const evenByHour =
    budget === 'unlimited' ? null : hourly.map((_, h) => targetSoFar(budget, day.start + (h + 1) * HOUR_MS, window));

  let state: PacingStateId;
  let reason: string;
  const off = offFlight(c, day.date);
  const quietHour = hourly[day.hour] === 0 && (day.hour === 0 || hourly[day.hour - 1] === 0);
  if (off) {
    [state, reason] = ['not_delivering', off];
  } else if (spent(c.totalBudget, spend.totalSpent)) {
    [state, reason] = ['capped', 'Total budget spent'];
  } else if (spent(budget, spend.spentToday)) {
    [state, reason] = ['capped', "Today's budget spent"];
  } else if (quietHour) {
    // Spent earlier today (the counters keep the current and previous hour by hour; a day's spend
    // raised from the stats store at start has no hours): quiet now, never "no spend yet".
    // Created within the hour: too new to tell (the console warns only about a campaign that should have spent).
    const minutesOld = c.createdAtMinute !== undefined ? Math.floor(now / MINUTE_MS) - c.createdAtMinute : Infinity;
    if (spend.spentToday > 0) [state, reason] = ['not_delivering', 'No spend in the last hour'];
    else if (minutesOld < 60)
      [state, reason] = [
        'not_delivering',
        `Created ${minutesOld < 1 ? 'just now' : `${minutesOld} min ago`}: no spend yet`,
      ];
    else [state, reason] = ['not_delivering', 'No spend yet today'];
  } else if (budget === 'unlimited') {
    [state, reason] = ['on_pace', 'No daily budget: spends as traffic comes'];
  } else {
    state = p.status === 'ahead' || p.status === 'behind' ? p.status : 'on_pace';
    reason = paceReason(state, spend.spentToday, budget, targetSoFar(budget, now, window));
  }

  return {
    campaignId: c.id,
    pacing: c.pacing,
    day: day.date,
    timezone: c.timezone,
    hour: day.hour,
    dailyBudget: budget,
    spentToday: spend.spentToday,
    targetSoFar: p.targetSoFar,
    projected: p.projected,
    allowedPerHour: p.allowedPerHour,
    totalBudget: c.totalBudget,
    totalSpent: spend.totalSpent,
    state,
    reason,
    hourly,
    evenByHour,
  };
}
