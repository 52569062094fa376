import dayjs, { type Dayjs } from 'dayjs';

/** Dates travel as `YYYY-MM-DD` strings (calendar days, no time zone); the date pickers hold dayjs values. */
export const DATE_FORMAT = 'YYYY-MM-DD';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `'2026-03-01'` -> a dayjs value for a DatePicker; anything else (null, '', garbage) -> null. */
export function dateFromIso(value: unknown): Dayjs | null {
  if (typeof value !== 'string' || !ISO_DATE.test(value)) return null;
  const d = dayjs(value, DATE_FORMAT);
  return d.isValid() ? d : null;
}

/** A DatePicker's value -> `'YYYY-MM-DD'`; an empty picker -> null. */
export function isoFromDate(value: unknown): string | null {
  if (dayjs.isDayjs(value)) return value.isValid() ? value.format(DATE_FORMAT) : null;
  if (typeof value === 'string' && ISO_DATE.test(value)) return value;
  return null;
}

/**
 * A flight as the lists show it: `2026-03-01 – 2026-04-30`, `2026-03-01 – no end`, `until 2026-04-30`,
 * or `Always on` when neither date is set (deals without dates run as long as they are active).
 */
export function flightLabel(start: unknown, end: unknown): string {
  const s = typeof start === 'string' && start ? start : null;
  const e = typeof end === 'string' && end ? end : null;
  if (s && e) return `${s} – ${e}`;
  if (s) return `${s} – no end`;
  if (e) return `until ${e}`;
  return 'Always on';
}
