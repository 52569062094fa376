import { describe, expect, it } from 'vitest';
import { isUsState, US_STATES, US_STATE_BY_ID } from './usStates.js';

describe('US states', () => {
  it('lists the 50 states and DC by two-letter code', () => {
    expect(US_STATES).toHaveLength(51);
    expect(US_STATE_BY_ID.size).toBe(51);
    for (const s of US_STATES) expect(s.id).toMatch(/^[A-Z]{2}$/);
    expect(US_STATE_BY_ID.get('CA')?.name).toBe('California');
    expect(US_STATE_BY_ID.get('NY')?.name).toBe('New York');
    expect(US_STATE_BY_ID.get('DC')?.name).toBe('District of Columbia');
  });

  it('recognises codes', () => {
    expect(isUsState('TX')).toBe(true);
    expect(isUsState('PR')).toBe(false);
    expect(isUsState('tx')).toBe(false);
  });
});
