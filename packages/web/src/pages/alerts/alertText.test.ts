import { describe, expect, it } from 'vitest';
import { alertValueText, conditionText, scopeText } from './alertText.js';

describe('alert rules in words', () => {
  it('reads each metric in its unit', () => {
    expect(alertValueText('fill', 12.5)).toBe('12.50%');
    expect(alertValueText('ecpm', 3_200_000)).toBe('$3.20');
    expect(alertValueText('reqs', 1_204.4)).toBe('1,204');
    expect(alertValueText('revenue', null)).toBe('');
  });

  it('says what a rule watches and when it fires', () => {
    const names = (_kind: string, id: number) => (id === 7 ? 'Sports player' : `#${id}`);
    expect(scopeText({ kind: 'channel', id: null }, names)).toBe('Each channel');
    expect(scopeText({ kind: 'channel', id: 7 }, names)).toBe('Channel Sports player');
    expect(scopeText({ kind: 'account', id: null }, names)).toBe('Whole account');
    expect(conditionText('timeoutShare', { op: 'above', value: 20 }, 'hour')).toBe('above 20.00%');
    expect(conditionText('revenue', { op: 'below', value: 50_000_000 }, 'day')).toBe('below $50.00');
    expect(conditionText('fill', { op: 'drop', percent: 50, against: 'previous' }, 'hour')).toBe(
      'drops 50% vs the previous hour',
    );
    expect(conditionText('fill', { op: 'drop', percent: 30, against: 'lastWeek' }, 'day')).toBe(
      'drops 30% vs the same hours last week',
    );
    expect(conditionText('pace', { op: 'offPace' }, 'hour')).toBe('behind pace or budget spent');
  });
});
