import { type Limit } from '@adplane/shared';
import { storedMs } from '../store/json.js';

/**
 * Pacing, as pure functions of the clock and the spend: no state, so that the in-process engine, the
 * Redis script (exchangeScript.ts mirrors `allowedRate`) and the console compute the same numbers.
 *
 * A campaign's day is the tenant's calendar day: tenants have whole-hour offsets from UTC and no
 * daylight saving, so a day is always 24 hours, from 00:00 to 24:00 there.
 *
 * `even`: the daily budget is spread over the campaign's pace window of the day: the whole day, but on
 * the day the campaign was created only from the minute it was created (`paceWindow`). The target so
 * far is the daily budget times the share of the window gone (a straight line to the budget at
 * midnight). The campaign may spend its remaining budget over the remaining time, plus its shortfall
 * against the target over the next hour, never faster than CATCH_UP times the even rate (daily budget
 * / the window's length): after a slow hour it catches up within an hour or two, without a burst, and
 * a campaign created mid-day is on pace from its first minute.
 * `asap`: no rate, the budget is spent as traffic comes.
 */
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;
/** The catch-up ceiling, as a multiple of the even rate. */
export const CATCH_UP = 2;
/** A shortfall against the target is made up over about this long (at most CATCH_UP x even). */
export const CATCH_UP_MS = 3_600_000;
/** How much paced spend may be taken at once (the pacing bucket's depth), as time at the allowed rate. */
export const PACE_BURST_MS = 2_000;

export type PacingMode = 'even' | 'asap';

export interface TenantDay {
  /** Days since the epoch in the tenant's zone: the daily counters' key. */
  index: number;
  /** `YYYY-MM-DD` in the tenant's zone. */
  date: string;
  /** The day's first and last instants (UTC ms): [start, end). */
  start: number;
  end: number;
  /** Hour of the day there, 0-23. */
  hour: number;
}

/** The tenant-zone day holding `now`, for a tenant `timezone` whole hours from UTC. */
export function tenantDay(now: number, timezone: number): TenantDay {
  const shifted = now + timezone * HOUR_MS;
  const index = Math.floor(shifted / DAY_MS);
  const start = index * DAY_MS - timezone * HOUR_MS;
  return {
    index,
    date: new Date(index * DAY_MS).toISOString().slice(0, 10),
    start,
    end: start + DAY_MS,
    hour: Math.floor((shifted - index * DAY_MS) / HOUR_MS),
  };
}

/**
 * A campaign's creation as its pacing takes it (`CampaignLimits.createdAtMinute`): whole minutes since
 * the epoch of a stored instant (the row's created_at: ISO text, or a Date); undefined when unreadable.
 */
export function createdAtMinute(at: string | Date): number | undefined {
  const ms = storedMs(at);
  return Number.isFinite(ms) ? Math.floor(ms / MINUTE_MS) : undefined;
}

/** The part of a tenant-zone day an `even` campaign spreads its daily budget over: [start, end). */
export interface PaceWindow {
  start: number;
  end: number;
}

/**
 * The start of a campaign's pace window on the day [dayStart, dayEnd): the minute it was created
 * (`createdAtMinute`, whole minutes since the epoch) when that falls within the day (its first day),
 * else the day's start (absent: always). The window is never shorter than a minute.
 */
export function paceStart(dayStart: number, dayEnd: number, createdAtMinute?: number): number {
  return createdAtMinute === undefined
    ? dayStart
    : Math.min(Math.max(dayStart, createdAtMinute * MINUTE_MS), dayEnd - MINUTE_MS);
}

/** The campaign's pace window on `day`: from `paceStart` to the day's end. */
export function paceWindow(day: Pick<TenantDay, 'start' | 'end'>, createdAtMinute?: number): PaceWindow {
  return { start: paceStart(day.start, day.end, createdAtMinute), end: day.end };
}

/** Whether a budget (or a daily cap) is used up: the amount counted has reached the limit (the pacing state's `spent`, the console's `capped`). */
export const budgetSpent = (limit: Limit, amount: number | null): boolean =>
  limit !== 'unlimited' && amount !== null && amount >= limit;

/** The even rate of a daily budget spread over a pace window `windowMs` long (a whole day when absent), per ms. */
export const evenRate = (dailyBudget: number, windowMs = DAY_MS): number => dailyBudget / windowMs;

/**
 * The rate (per ms) an `even` campaign may spend at now, in its pace window: what is left spread over
 * the time that is left, plus, when it is behind its target so far, the shortfall over the next
 * CATCH_UP_MS; at most CATCH_UP x the window's even rate, never negative. Ahead of target, the spread
 * rate is below even: it slows.
 */
export function allowedRate(dailyBudget: number, spentToday: number, now: number, window: PaceWindow): number {
  const left = Math.max(dailyBudget - spentToday, 0);
  const behind = Math.max(targetSoFar(dailyBudget, now, window) - spentToday, 0);
  return Math.min(
    left / Math.max(window.end - now, 1) + behind / CATCH_UP_MS,
    left > 0 ? CATCH_UP * evenRate(dailyBudget, window.end - window.start) : 0,
  );
}

/**
 * Where an even campaign should be by now: the daily budget times the share of its pace window gone
 * (`paceWindow`; a whole day: the share of the day gone).
 */
export function targetSoFar(dailyBudget: number, now: number, window: PaceWindow): number {
  const share = Math.min(Math.max((now - window.start) / (window.end - window.start), 0), 1);
  return Math.round(dailyBudget * share);
}

/**
 * The spend rate (per ms) of the last 60 minutes, from the day's spend per hour: the current hour so
 * far, and the part of the previous hour that falls within the last 60 minutes (none at the day's
 * first hour: yesterday's spend belongs to yesterday's budget).
 */
export function lastHourRate(hourly: readonly number[], now: number, day: TenantDay): number {
  const intoHour = now - (day.start + day.hour * HOUR_MS);
  const current = hourly[day.hour] ?? 0;
  if (day.hour === 0) return intoHour > 0 ? current / intoHour : 0;
  const previous = hourly[day.hour - 1] ?? 0;
  return (current + previous * (1 - intoHour / HOUR_MS)) / HOUR_MS;
}

type PacingStatus = 'unlimited' | 'spent' | 'ahead' | 'on_pace' | 'behind';

/** A campaign's pacing as the console shows it (money in micro-dollars, rates per hour). */
export interface PacingState {
  campaignId: number;
  pacing: PacingMode;
  /** The tenant-zone day it is about. */
  day: string;
  dailyBudget: Limit;
  spentToday: number;
  /** even: the budget times the share of the pace window gone; asap: the whole budget; null when unlimited. */
  targetSoFar: number | null;
  /** End-of-day spend if the last 60 minutes' rate holds, capped by the budget. */
  projected: number;
  /** even: the rate it may spend at now; asap and unlimited: null. */
  allowedPerHour: number | null;
  /** The even rate (daily budget / the pace window's hours: 24 but on the day the campaign was created); null when unlimited. */
  evenPerHour: number | null;
  /** ahead / behind: more than 5% of the daily budget away from the target so far. */
  status: PacingStatus;
}

/** Within this share of the daily budget of its target, a campaign is on pace. */
const ON_PACE = 0.05;

export interface PacingInput {
  campaignId: number;
  pacing: PacingMode;
  dailyBudget: Limit;
  timezone: number;
  spentToday: number;
  /** The day's spend per tenant-zone hour (24 entries; missing entries read as 0). */
  hourly: readonly number[];
  now: number;
  /** When the campaign was created (whole minutes since the epoch): its first day is paced from then. Absent: whole days. */
  createdAtMinute?: number;
}

export function pacingState(input: PacingInput): PacingState {
  const { dailyBudget, spentToday, now, pacing } = input;
  const day = tenantDay(now, input.timezone);
  const rate = lastHourRate(input.hourly, now, day);
  const projectedRaw = Math.round(spentToday + rate * Math.max(day.end - now, 0));
  const base = { campaignId: input.campaignId, pacing, day: day.date, dailyBudget, spentToday };
  if (dailyBudget === 'unlimited') {
    return {
      ...base,
      targetSoFar: null,
      projected: projectedRaw,
      allowedPerHour: null,
      evenPerHour: null,
      status: 'unlimited',
    };
  }
  const projected = Math.min(projectedRaw, Math.max(dailyBudget, spentToday));
  const window = paceWindow(day, input.createdAtMinute);
  const evenPerHour = Math.round(evenRate(dailyBudget, window.end - window.start) * HOUR_MS);
  const target = pacing === 'even' ? targetSoFar(dailyBudget, now, window) : dailyBudget;
  const allowedPerHour =
    pacing === 'even' ? Math.round(allowedRate(dailyBudget, spentToday, now, window) * HOUR_MS) : null;
  const gap = spentToday - (pacing === 'even' ? target : targetSoFar(dailyBudget, now, window));
  const status: PacingStatus =
    spentToday >= dailyBudget
      ? 'spent'
      : gap > ON_PACE * dailyBudget
        ? 'ahead'
        : gap < -ON_PACE * dailyBudget
          ? 'behind'
          : 'on_pace';
  return { ...base, targetSoFar: target, projected, allowedPerHour, evenPerHour, status };
}
