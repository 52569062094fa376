import { WEEKDAYS, formatTimezone } from '@adplane/shared';

/**
 * Day-parting as the contract stores it: the ticked days times the ticked hours (every ticked day
 * serves at every ticked hour), in one time zone. The form's 7x24 grid shows that product; the
 * day labels and the hour labels are what people click or drag across to change it, because a
 * cell of its own (Monday at 9 but not Tuesday at 9) is not something the contract can hold.
 */
export interface DayPartingValue {
  enabled: boolean;
  timezone: number;
  days: number[];
  hours: number[];
}

export const ALL_DAYS: readonly number[] = [0, 1, 2, 3, 4, 5, 6];
export const ALL_HOURS: readonly number[] = Array.from({ length: 24 }, (_, h) => h);
const WEEKDAY_SET: readonly number[] = [0, 1, 2, 3, 4];
const WEEKEND_SET: readonly number[] = [5, 6];

const sorted = (values: Iterable<number>) => [...new Set(values)].sort((a, b) => a - b);

/** The 7x24 grid (days Mon..Sun, hours 0..23): a cell serves when its day and its hour are both ticked. */
export function scheduleGrid(value: Pick<DayPartingValue, 'days' | 'hours'>): boolean[][] {
  const days = new Set(value.days);
  const hours = new Set(value.hours);
  return ALL_DAYS.map((d) => ALL_HOURS.map((h) => days.has(d) && hours.has(h)));
}

/** Paint a run of days or hours (a drag from `from` to `to`, either direction) on or off. */
export function paintRange(selected: readonly number[], from: number, to: number, on: boolean): number[] {
  const [lo, hi] = from <= to ? [from, to] : [to, from];
  const out = new Set(selected);
  for (let n = lo; n <= hi; n++) {
    if (on) out.add(n);
    else out.delete(n);
  }
  return sorted(out);
}

export const DAY_SHORTCUTS = [
  { key: 'weekdays', label: 'Weekdays' },
  { key: 'weekends', label: 'Weekends' },
  { key: 'all', label: 'All' },
  { key: 'clear', label: 'Clear' },
] as const;
export const HOUR_SHORTCUTS = [
  { key: 'business', label: 'Business hours 09-18' },
  { key: 'prime', label: 'Prime time 19-23' },
] as const;
export type Shortcut = (typeof DAY_SHORTCUTS)[number]['key'] | (typeof HOUR_SHORTCUTS)[number]['key'];

/**
 * Weekdays and Weekends pick the days (and every hour when none is ticked, so the grid shows
 * something); All ticks every day and hour, Clear unticks them all; the hour shortcuts pick hours.
 */
export function applyShortcut<T extends DayPartingValue>(value: T, shortcut: Shortcut): T {
  const hoursOrAll = value.hours.length ? value.hours : [...ALL_HOURS];
  switch (shortcut) {
    case 'weekdays':
      return { ...value, days: [...WEEKDAY_SET], hours: hoursOrAll };
    case 'weekends':
      return { ...value, days: [...WEEKEND_SET], hours: hoursOrAll };
    case 'all':
      return { ...value, days: [...ALL_DAYS], hours: [...ALL_HOURS] };
    case 'clear':
      return { ...value, days: [], hours: [] };
    case 'business':
      return { ...value, hours: paintRange([], 9, 17, true), days: value.days.length ? value.days : [...ALL_DAYS] };
    case 'prime':
      return { ...value, hours: paintRange([], 19, 22, true), days: value.days.length ? value.days : [...ALL_DAYS] };
  }
}

/** Consecutive runs of sorted numbers: [0,1,2,4] -> [[0,2],[4,4]]. */
export function runs(values: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const v of sorted(values)) {
    const last = out.at(-1);
    if (last && v === last[1] + 1) last[1] = v;
    else out.push([v, v]);
  }
  return out;
}

const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;

/** 'Mon-Fri', 'Mon-Fri, Sun', 'Every day'. */
export function describeDays(days: readonly number[]): string {
  if (days.length === 0) return 'No day';
  if (sorted(days).length === 7) return 'Every day';
  return runs(days)
    .map(([a, b]) =>
      a === b ? WEEKDAYS[a] : b === a + 1 ? `${WEEKDAYS[a]}, ${WEEKDAYS[b]}` : `${WEEKDAYS[a]}-${WEEKDAYS[b]}`,
    )
    .join(', ');
}

/** '19:00-23:00' (the hour 22 runs until 23:00), 'all day'. */
export function describeHours(hours: readonly number[]): string {
  if (hours.length === 0) return 'no hour';
  if (sorted(hours).length === 24) return 'all day';
  return runs(hours)
    .map(([a, b]) => `${hh(a)}-${hh(b + 1)}`)
    .join(', ');
}

/** 'Mon-Fri 19:00-23:00 (UTC-5)', or 'Off: serves around the clock'. */
export function describeDayParting(value: DayPartingValue): string {
  if (!value.enabled) return 'Off: serves around the clock';
  return `${describeDays(value.days)} ${describeHours(value.hours)} (${formatTimezone(value.timezone)})`;
}

/** What the schema refuses, said before the save: an enabled day-parting needs a day and an hour. */
export function dayPartingProblem(value: DayPartingValue): string | null {
  if (!value.enabled) return null;
  if (value.days.length === 0 && value.hours.length === 0)
    return 'Tick at least one day and one hour, or turn day-parting off';
  if (value.days.length === 0) return 'Tick at least one day, or turn day-parting off';
  if (value.hours.length === 0) return 'Tick at least one hour, or turn day-parting off';
  return null;
}
