import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatOffset, formatPercent, formatTimezone, formatUsdMicros, parseConfigInteger, toMicros } from './format.js';
import { decryptJsonBody, encryptJsonBody } from './cipher.js';
import { TIMEZONES } from './constants.js';

describe('format', () => {
  it('shows USD with 2 decimals from micro-dollars', () => {
    expect(formatUsdMicros(toMicros(1234.5))).toBe('$1,234.50');
    expect(formatUsdMicros(1_999)).toBe('$0.00');
    expect(formatUsdMicros(5_000)).toBe('$0.01');
  });
  it('shows percent with 2 decimals', () => {
    expect(formatPercent(12.345)).toBe('12.35%');
    expect(formatPercent(0)).toBe('0.00%');
  });
  it('shows time-zone offsets with a sign', () => {
    expect(TIMEZONES).toHaveLength(25);
    expect(TIMEZONES[0]).toBe(-12);
    expect(formatOffset(3)).toBe('+3');
    expect(formatOffset(-5)).toBe('-5');
    expect(formatTimezone(3)).toBe('UTC+3');
    expect(formatTimezone(-12)).toBe('UTC-12');
  });
  it('formats dates and date-times, shifted by the user offset', () => {
    const t = Date.UTC(2026, 10, 21, 23, 5);
    expect(formatDate(t)).toBe('2026-11-21');
    expect(formatDate(t, 2)).toBe('2026-11-22');
    expect(formatDateTime(t, -3)).toBe('2026-11-21 20:05');
  });
  it('parses config integers by stripping commas, dots and spaces; empty is 0', () => {
    expect(parseConfigInteger('1,000,000')).toBe(1_000_000);
    expect(parseConfigInteger('1.000 000')).toBe(1_000_000);
    expect(parseConfigInteger('')).toBe(0);
    expect(parseConfigInteger('  ')).toBe(0);
    expect(parseConfigInteger('12a')).toBeNaN();
  });
});

describe('response cipher', () => {
  it('round-trips JSON, including non-ASCII text', () => {
    const json = JSON.stringify({ name: 'Café €', n: [1, 2, 3] });
    const enc = encryptJsonBody(json);
    expect(enc).not.toContain('Caf');
    expect(decryptJsonBody(enc)).toBe(json);
  });
});
