import { CURRENCY, PERCENT_DECIMALS } from './constants.js';

/** Money is integer micro-dollars everywhere; it becomes USD with 2 decimals only on display. */
export const MICROS_PER_UNIT = 1_000_000;

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

/** `1234.5` dollars -> `$1,234.50`. */
export function formatUsd(amount: number): string {
  return usd.format(amount);
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

function shift(date: Date | string | number, offsetHours: number): Date {
  const t = date instanceof Date ? date.getTime() : new Date(date).getTime();
  return new Date(t + offsetHours * 3_600_000);
}

/**
 * Config integers: strip commas, dots and spaces; an empty value is 0 (spec section 5).
 * Returns NaN for anything else so that the form can reject it.
 */
export function parseConfigInteger(value: string | number | null | undefined): number {
  if (typeof value === 'number') return Math.trunc(value);
  const cleaned = (value ?? '').replace(/[,.\s]/g, '');
  if (cleaned === '') return 0;
  return /^-?\d+$/.test(cleaned) ? Number(cleaned) : Number.NaN;
}
