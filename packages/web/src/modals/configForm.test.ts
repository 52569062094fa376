import { describe, expect, it } from 'vitest';
import { configFieldError, formatConfigValue, parseConfigForm } from './configForm.js';

describe('config form', () => {
  it('strips commas, dots and spaces and sends empty values as 0', () => {
    expect(parseConfigForm({ postbidMaxImps: '1,000,000', postbidMaxReps: '' })).toEqual({
      ok: true,
      value: { postbidMaxImps: 1_000_000, postbidMaxReps: 0 },
    });
    expect(parseConfigForm({ postbidMaxImps: '2.500 000', postbidMaxReps: ' 12 ' })).toEqual({
      ok: true,
      value: { postbidMaxImps: 2_500_000, postbidMaxReps: 12 },
    });
    expect(parseConfigForm({ postbidMaxImps: undefined, postbidMaxReps: null })).toEqual({
      ok: true,
      value: { postbidMaxImps: 0, postbidMaxReps: 0 },
    });
    expect(parseConfigForm({ postbidMaxImps: 500, postbidMaxReps: '7' })).toEqual({
      ok: true,
      value: { postbidMaxImps: 500, postbidMaxReps: 7 },
    });
  });

  it('rejects what is not a whole non-negative number', () => {
    expect(parseConfigForm({ postbidMaxImps: '12abc', postbidMaxReps: '-5' })).toEqual({
      ok: false,
      errors: { postbidMaxImps: 'Enter a whole number, e.g. 1,000,000', postbidMaxReps: 'Must not be negative' },
    });
    expect(configFieldError('99999999999999999999')).toBe('The number is too large');
    expect(configFieldError('1 000')).toBeNull();
  });

  it('shows stored values with thousands separators', () => {
    expect(formatConfigValue(1_234_567)).toBe('1,234,567');
    expect(formatConfigValue(0)).toBe('0');
    expect(formatConfigValue(undefined)).toBe('');
  });
});
