import { describe, expect, it } from 'vitest';
import { vastDuration } from './xml.js';

describe('VAST durations (xs:time)', () => {
  it('writes whole seconds as HH:MM:SS and keeps a fraction to the millisecond', () => {
    expect(vastDuration(15)).toBe('00:00:15');
    expect(vastDuration(3725)).toBe('01:02:05');
    expect(vastDuration(15.5)).toBe('00:00:15.500');
    expect(vastDuration(29.97)).toBe('00:00:29.970');
    expect(vastDuration(0.0004)).toBe('00:00:00');
    expect(vastDuration(-3)).toBe('00:00:00');
  });
});
