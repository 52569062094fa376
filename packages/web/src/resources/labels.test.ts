import { describe, expect, it } from 'vitest';
import { inSentence } from './labels.js';

describe('inSentence', () => {
  it('lowers words but keeps acronyms and numbers', () => {
    expect(inSentence('Ad Exchange')).toBe('ad exchange');
    expect(inSentence('SDK App')).toBe('SDK app');
    expect(inSentence('3rd Party Pixels')).toBe('3rd party pixels');
    expect(inSentence('IVT')).toBe('IVT');
  });
});
