import { describe, expect, it } from 'vitest';
import { COUNTRIES, COUNTRY_BY_ID, countryAlpha3, countryFromAlpha3, countryName, isCountry } from './countries.js';

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

  it('maps alpha-2 to the alpha-3 codes OpenRTB geo objects carry, and back', () => {
    expect(countryAlpha3('US')).toBe('USA');
    expect(countryAlpha3('DE')).toBe('DEU');
    expect(countryAlpha3('ZZ')).toBe('');
    expect(countryFromAlpha3('GBR')).toBe('GB');
    expect(countryFromAlpha3('usa')).toBe('US');
    expect(countryFromAlpha3('FR')).toBe('FR');
    expect(countryFromAlpha3('XXX')).toBe('');
    expect(new Set(COUNTRIES.map((c) => countryAlpha3(c.id))).size).toBe(COUNTRIES.length);
  });
});
