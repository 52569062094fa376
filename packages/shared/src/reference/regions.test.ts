import { describe, expect, it } from 'vitest';
import { COUNTRIES, COUNTRY_BY_ID } from './countries.js';
import { countriesOfRegion, isRegion, REGIONS, REGION_BY_ID, regionsOfCountry } from './regions.js';

const setOf = (id: string) => new Set(countriesOfRegion(id));

describe('regions', () => {
  it('has the six regions with their labels', () => {
    expect(REGIONS.map((r) => [r.id, r.name])).toEqual([
      ['APAC', 'APAC'],
      ['LATAM', 'LATAM'],
      ['EMEA', 'EMEA'],
      ['NAM', 'North Americas'],
      ['SEA', 'SEA'],
      ['MINA', 'MENA'],
    ]);
    expect(isRegion('MINA')).toBe(true);
    expect(isRegion('MENA')).toBe(false);
  });

  it('lists only known countries, each once, with their names', () => {
    for (const region of REGIONS) {
      expect(region.children.length).toBeGreaterThan(0);
      expect(new Set(region.children.map((c) => c.id)).size).toBe(region.children.length);
      for (const child of region.children) expect(COUNTRY_BY_ID.get(child.id)).toEqual(child);
    }
  });

  it('splits the world between APAC, LATAM, EMEA and NAM without overlap', () => {
    const seen = new Map<string, string>();
    for (const id of ['APAC', 'LATAM', 'EMEA', 'NAM']) {
      for (const code of countriesOfRegion(id)) {
        expect(seen.get(code), `${code} is in ${seen.get(code)} and ${id}`).toBeUndefined();
        seen.set(code, id);
      }
    }
    expect(COUNTRIES.filter((c) => !seen.has(c.id)).map((c) => c.id)).toEqual(['AQ']);
  });

  it('keeps SEA inside APAC and MENA inside EMEA', () => {
    const apac = setOf('APAC');
    const emea = setOf('EMEA');
    expect(countriesOfRegion('SEA').filter((c) => !apac.has(c))).toEqual([]);
    expect(countriesOfRegion('MINA').filter((c) => !emea.has(c))).toEqual([]);
    expect(regionsOfCountry('SG')).toEqual(['APAC', 'SEA']);
    expect(regionsOfCountry('AE')).toEqual(['EMEA', 'MINA']);
    expect(regionsOfCountry('EG')).toEqual(['EMEA', 'MINA']);
  });

  it('places well-known markets where ad ops expects them', () => {
    expect([...setOf('NAM')].sort()).toEqual(['BM', 'CA', 'GL', 'PM', 'US']);
    expect(setOf('LATAM').has('MX')).toBe(true);
    expect(setOf('LATAM').has('BR')).toBe(true);
    expect(setOf('EMEA').has('DE')).toBe(true);
    expect(setOf('EMEA').has('ZA')).toBe(true);
    expect(setOf('APAC').has('JP')).toBe(true);
    expect(setOf('APAC').has('AU')).toBe(true);
    expect(setOf('APAC').has('IN')).toBe(true);
    expect(setOf('SEA')).toEqual(new Set(['BN', 'KH', 'ID', 'LA', 'MY', 'MM', 'PH', 'SG', 'TH', 'TL', 'VN']));
    expect(setOf('MINA').has('SA')).toBe(true);
    expect(setOf('MINA').has('TR')).toBe(false);
    expect(REGION_BY_ID.get('NAM')?.children.map((c) => c.name)).toContain('United States');
    expect(countriesOfRegion('XX')).toEqual([]);
  });
});
