import { describe, expect, it } from 'vitest';
import {
  formatDate,
  formatDateTime,
  formatOffset,
  formatPercent,
  formatTimezone,
  formatUserDateTime,
  formatUsdAxis,
  formatUsdMicros,
  instantOf,
  parseConfigInteger,
  toMicros,
} from './format.js';
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
  it('shows a stored time in the user offset with that offset, for every offset -12..+12', () => {
    const t = Date.UTC(2026, 10, 23, 12, 5);
    for (const offset of TIMEZONES) {
      const local = new Date(t + offset * 3_600_000);
      const hh = String(local.getUTCHours()).padStart(2, '0');
      const day = String(local.getUTCDate()).padStart(2, '0');
      const zone = offset > 0 ? `UTC+${offset}` : offset < 0 ? `UTC${offset}` : 'UTC±0';
      expect(formatUserDateTime(t, offset)).toBe(`2026-11-${day} ${hh}:05 ${zone}`);
    }
    expect(formatUserDateTime(t, -12)).toBe('2026-11-23 00:05 UTC-12');
    expect(formatUserDateTime(t, 12)).toBe('2026-11-24 00:05 UTC+12');
    expect(formatUserDateTime(t, 2)).toBe('2026-11-23 14:05 UTC+2');
  });
  it('crosses day, month and year boundaries in both directions', () => {
    expect(formatUserDateTime('2026-12-31T23:30:00.000Z', 1)).toBe('2027-01-01 00:30 UTC+1');
    expect(formatUserDateTime('2027-01-01T00:30:00Z', -1)).toBe('2026-12-31 23:30 UTC-1');
    expect(formatUserDateTime('2026-03-01T05:59:00Z', -6)).toBe('2026-02-28 23:59 UTC-6');
    expect(formatUserDateTime('2028-02-28T20:00:00Z', 4)).toBe('2028-02-29 00:00 UTC+4');
    expect(formatUserDateTime('2026-11-23T11:59:59.999Z', 12)).toBe('2026-11-23 23:59 UTC+12');
    expect(formatUserDateTime('2026-11-23T12:00:00Z', 12)).toBe('2026-11-24 00:00 UTC+12');
  });
  it('reads a zone-less stored text as UTC, whatever the machine zone, and leaves nothing as blank', () => {
    expect(instantOf('2026-11-23 14:05')).toBe(Date.UTC(2026, 10, 23, 14, 5));
    expect(instantOf('2026-11-23T14:05:30')).toBe(Date.UTC(2026, 10, 23, 14, 5, 30));
    expect(instantOf('2026-11-23T14:05:00+02:00')).toBe(Date.UTC(2026, 10, 23, 12, 5));
    expect(formatUserDateTime('2026-11-23 14:05', 3)).toBe('2026-11-23 17:05 UTC+3');
    expect(formatUserDateTime('2026-11-23 14:05', 0)).toBe('2026-11-23 14:05 UTC±0');
    expect(formatUserDateTime(null, 3)).toBe('');
    expect(formatUserDateTime('', 3)).toBe('');
    expect(formatUserDateTime('not a time', 3)).toBe('');
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

describe('money axis labels', () => {
  it('writes whole dollars without cents and the rest with two', () => {
    expect([0, 0.8, 12.5, 1200, 1_250_000, -3, -0.5].map(formatUsdAxis)).toEqual([
      '$0',
      '$0.80',
      '$12.50',
      '$1,200',
      '$1,250,000',
      '-$3',
      '-$0.50',
    ]);
  });
});
