import { describe, expect, it } from 'vitest';
import { COUNTRIES, COUNTRY_BY_ID, countryName, isCountry } from './countries.js';

describe('countries (ISO 3166-1 alpha-2)', () => {
  it('holds every officially assigned code once', () => {
    expect(COUNTRIES).toHaveLength(249);
    expect(COUNTRY_BY_ID.size).toBe(249);
    for (const c of COUNTRIES) {
      expect(c.id).toMatch(/^[A-Z]{2}$/);
      expect(c.name).not.toBe(c.id);
    }
  });

  it('names countries in English', () => {
    expect(COUNTRY_BY_ID.get('US')?.name).toBe('United States');
    expect(COUNTRY_BY_ID.get('DE')?.name).toBe('Germany');
    expect(COUNTRY_BY_ID.get('GB')?.name).toBe('United Kingdom');
    expect(COUNTRY_BY_ID.get('JP')?.name).toBe('Japan');
    expect(countryName('FR')).toBe('France');
    expect(countryName('ZZ')).toBe('ZZ');
  });

  it('is sorted by name for pickers', () => {
    expect(COUNTRIES[0].id).toBe('AF');
    const names = COUNTRIES.map((c) => c.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
  });

  it('accepts only assigned upper-case codes', () => {
    expect(isCountry('US')).toBe(true);
    expect(isCountry('us')).toBe(false);
    expect(isCountry('UK')).toBe(false);
    expect(isCountry('EU')).toBe(false);
    expect(isCountry(undefined)).toBe(false);
  });
});
