/**
 * Rolling report periods: a preset names local days relative to "now" (today, yesterday, the last 7
 * or 30 days, the month to date, last month) in a whole-hour UTC offset. The server runs a saved
 * report's preset on its clock and the console shows the same range: both call `presetRange` with
 * their own now.
 */
import { formatDate } from '../format.js';

export const DATE_PRESETS = ['today', 'yesterday', 'last7', 'last30', 'thisMonth', 'lastMonth'] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];

export const PRESET_LABELS: Record<DatePreset, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last7: 'Last 7 days',
  last30: 'Last 30 days',
  thisMonth: 'Month to date',
  lastMonth: 'Last month',
};

export const isDatePreset = (v: unknown): v is DatePreset =>
  typeof v === 'string' && (DATE_PRESETS as readonly string[]).includes(v);

const addDays = (date: string, days: number) => formatDate(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);

/**
 * The local days `preset` covers at the instant `now` (ms since the epoch) for a user `timezone`
 * hours from UTC: ending today, or at the end of the previous month for `lastMonth`.
 */
export function presetRange(preset: DatePreset, timezone: number, now: number): { startDate: string; endDate: string } {
  const today = formatDate(now, timezone);
  const monthStart = `${today.slice(0, 8)}01`;
  switch (preset) {
    case 'today':
      return { startDate: today, endDate: today };
    case 'yesterday': {
      const day = addDays(today, -1);
      return { startDate: day, endDate: day };
    }
    case 'last7':
      return { startDate: addDays(today, -6), endDate: today };
    case 'last30':
      return { startDate: addDays(today, -29), endDate: today };
    case 'thisMonth':
      return { startDate: monthStart, endDate: today };
    case 'lastMonth': {
      const end = addDays(monthStart, -1);
      return { startDate: `${end.slice(0, 8)}01`, endDate: end };
    }
  }
}

/**
 * A request with its dates as of `now`: a rolling one (`datePreset`) gets its preset's range in its
 * own time zone, whatever dates it carried; a fixed one is returned as it is.
 */
export function withPresetDates<
  R extends { startDate: string; endDate: string; timezone?: number; datePreset?: DatePreset },
>(request: R, now: number): R {
  if (!request.datePreset) return request;
  return { ...request, ...presetRange(request.datePreset, request.timezone ?? 0, now) };
}
