import { CURRENCY, PERCENT_DECIMALS } from './constants.js';

/** Money is integer micro-dollars everywhere; it becomes USD with 2 decimals only on display. */
const MICROS_PER_UNIT = 1_000_000;

export function toMicros(amount: number): number {
  return Math.round(amount * MICROS_PER_UNIT);
}

export function fromMicros(micros: number): number {
  return micros / MICROS_PER_UNIT;
}

const usd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: CURRENCY.id,
  minimumFractionDigits: CURRENCY.decimals,
  maximumFractionDigits: CURRENCY.decimals,
});

/** `1234567` micros -> `$1.23`. */
export function formatUsdMicros(micros: number): string {
  return usd.format(fromMicros(micros));
}

/** A chart's money axis label, in dollars: whole steps without cents (`$1,200`), others with two (`$0.80`, `$12.50`). */
export function formatUsdAxis(amount: number): string {
  return Number.isInteger(amount)
    ? `${amount < 0 ? '-' : ''}$${Math.abs(amount).toLocaleString('en-US')}`
    : usd.format(amount);
}

/** `12.345` -> `12.35%`. */
export function formatPercent(value: number): string {
  return `${value.toFixed(PERCENT_DECIMALS)}%`;
}

/** Time-zone offset shown with a sign: `+3`, `0`, `-5`, as `UTC+3`. */
export function formatTimezone(offset: number): string {
  const sign = offset > 0 ? '+' : offset < 0 ? '-' : '±';
  return `UTC${sign}${Math.abs(offset)}`;
}

export function formatOffset(offset: number): string {
  return offset > 0 ? `+${offset}` : String(offset);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of the instant, shifted by a whole-hour offset. */
export function formatDate(date: Date | string | number, offsetHours = 0): string {
  const d = shift(date, offsetHours);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** `YYYY-MM-DD HH:mm` of the instant, shifted by a whole-hour offset. */
export function formatDateTime(date: Date | string | number, offsetHours = 0): string {
  const d = shift(date, offsetHours);
  return `${formatDate(d)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/**
 * `YYYY-MM-DD HH:00`: the hour the instant falls in, shifted by a whole-hour offset, as a report's and
 * the dashboard's `hour` rows name it.
 */
export function formatHour(date: Date | string | number, offsetHours = 0): string {
  return `${formatDateTime(date, offsetHours).slice(0, 13)}:00`;
}

/** A UTC date-time written without a zone, as saved reports carry it: `2026-11-23 14:05`. */
const UTC_TEXT = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

/**
 * The instant of a stored time: a Date, epoch milliseconds, an ISO string with its zone, or a
 * `YYYY-MM-DD HH:mm` text without one, which is UTC (every store keeps UTC; a browser would read a
 * zone-less text as its own local time). NaN when it is no time at all.
 */
export function instantOf(date: Date | string | number): number {
  if (date instanceof Date) return date.getTime();
  if (typeof date === 'number') return date;
  const bare = UTC_TEXT.exec(date.trim());
  return bare ? Date.parse(`${bare[1]}T${bare[2]}Z`) : Date.parse(date);
}

function shift(date: Date | string | number, offsetHours: number): Date {
  return new Date(instantOf(date) + offsetHours * 3_600_000);
}

/**
 * The one clock of the console: a stored (UTC) time as the user reads it, in the user's whole-hour
 * offset and saying which: `2026-11-23 14:05 UTC+2`, `2026-11-23 12:05 UTC±0`, `2026-11-23 02:05 UTC-10`.
 * Lists, drawers, the activity log, saved reports and the bell all show time through this. An empty
 * or unreadable value shows as an empty string, never as `NaN-aN-aN`.
 */
export function formatUserDateTime(date: Date | string | number | null | undefined, offsetHours: number): string {
  if (date === null || date === undefined || date === '') return '';
  if (Number.isNaN(instantOf(date))) return '';
  return `${formatDateTime(date, offsetHours)} ${formatTimezone(offsetHours)}`;
}

/**
 * Config integers: strip commas, dots and spaces; an empty value is 0 (so '1,000', '1.000' and '1 000' all read as 1000).
 * Returns NaN for anything else so that the form can reject it.
 */
export function parseConfigInteger(value: string | number | null | undefined): number {
  if (typeof value === 'number') return Math.trunc(value);
  const cleaned = (value ?? '').replace(/[,.\s]/g, '');
  if (cleaned === '') return 0;
  return /^-?\d+$/.test(cleaned) ? Number(cleaned) : Number.NaN;
}
