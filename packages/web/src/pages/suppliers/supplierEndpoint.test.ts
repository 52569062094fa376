import { describe, expect, it } from 'vitest';
import { supplierEndpoint } from './supplierEndpoint.js';

describe('supplierEndpoint', () => {
  it('is the public host then /rtb/bid/<uid>', () => {
    expect(supplierEndpoint('https://ads.example.com', '9f3a1c2b7d4e5f60')).toBe(
      'https://ads.example.com/rtb/bid/9f3a1c2b7d4e5f60',
    );
    expect(supplierEndpoint('http://127.0.0.1:8080', 'abc')).toBe('http://127.0.0.1:8080/rtb/bid/abc');
  });

  it('does not double the slash when the host ends with one', () => {
    expect(supplierEndpoint('https://ads.example.com/', 'abc')).toBe('https://ads.example.com/rtb/bid/abc');
    expect(supplierEndpoint(' https://ads.example.com// ', 'abc')).toBe('https://ads.example.com/rtb/bid/abc');
  });

  it('gives a bare host https so that the partner gets a usable URL', () => {
    expect(supplierEndpoint('ads.example.com', 'abc')).toBe('https://ads.example.com/rtb/bid/abc');
  });

  it('escapes a uid that is not URL-safe', () => {
    expect(supplierEndpoint('https://ads.example.com', 'a b/c')).toBe('https://ads.example.com/rtb/bid/a%20b%2Fc');
  });
});
