/** When a schedule runs: its frequency, local hour, weekday or month date, in an IANA time zone. */
export interface ScheduleWhen {
  frequency: 'daily' | 'weekly' | 'monthly';
  hour: number;
  /** 0 Sunday .. 6 Saturday (weekly). */
  weekday: number | null;
  /** 1..31 (monthly): a date past the month's end is its last day. */
  monthDay: number | null;
  timeZone: string;
}

const DAY_MS = 86_400_000;
const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at instant `ms`, in ms (Europe/Berlin in summer: +7,200,000). */
function offsetAt(ms: number, timeZone: string): number {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  const part: Record<string, number> = {};
  for (const p of format.formatToParts(ms)) if (p.type !== 'literal') part[p.type] = Number(p.value);
  const local = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return local - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant the local wall time `localMs` (a UTC-based reading of the local calendar) has in the
 * zone. A time that does not exist (skipped when clocks go forward) maps to the same time after the
 * jump (02:00 -> 03:00); one that exists twice (clocks going back) to its first occurrence.
 */
function instantOf(localMs: number, timeZone: string): number {
  // the offsets around that time: the one before a change and the one after it
  const before = offsetAt(localMs - DAY_MS, timeZone);
  const after = offsetAt(localMs + DAY_MS, timeZone);
  const readings = [localMs - before, localMs - after].filter((t) => t + offsetAt(t, timeZone) === localMs);
  // none: a skipped time, read with the offset before the jump (02:00 -> 03:00 of the new offset)
  return readings.length ? Math.min(...readings) : localMs - before;
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** Whether the local day (a UTC midnight of the local calendar) is one the schedule runs on. */
function runsOn(when: ScheduleWhen, day: number): boolean {
  const date = new Date(day);
  if (when.frequency === 'daily') return true;
  if (when.frequency === 'weekly') return date.getUTCDay() === when.weekday;
  const last = daysInMonth(date.getUTCFullYear(), date.getUTCMonth());
  return date.getUTCDate() === Math.min(when.monthDay ?? 1, last);
}

/** The first instant after `afterMs` the schedule runs at. */
export function nextRunAfter(when: ScheduleWhen, afterMs: number): number {
  const localNow = afterMs + offsetAt(afterMs, when.timeZone);
  // from the local day before (a zone's offset may move the hour across midnight), at most ~13 months on
  let day = Math.floor(localNow / DAY_MS) * DAY_MS - DAY_MS;
  for (let i = 0; i < 400; i++, day += DAY_MS) {
    if (!runsOn(when, day)) continue;
    const at = instantOf(day + when.hour * 3_600_000, when.timeZone);
    if (at > afterMs) return at;
  }
  throw new Error(`No run within 400 days for ${JSON.stringify(when)}`);
}
