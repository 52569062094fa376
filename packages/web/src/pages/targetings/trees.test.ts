import { describe, expect, it } from 'vitest';
import { IAB_CATEGORIES, countriesOfRegion } from '@adplane/shared';
import {
  IAB_TREE,
  REGION_TREE,
  iabCheckedKeys,
  iabValuesFromCheckedKeys,
  regionCheckedKeys,
  regionCountries,
  regionValuesFromCheckedKeys,
  regionValuesFromCountries,
  toggleIab,
  toggleRegion,
} from './trees.js';

const IAB1_CHILDREN = IAB_CATEGORIES.find((t) => t.id === 'IAB1')!.children.map((c) => c.id as string);

describe('IAB tree <-> stored values', () => {
  it('stores a fully checked tier-1 category as its id alone', () => {
    expect(iabValuesFromCheckedKeys(['IAB1', ...IAB1_CHILDREN])).toEqual(['IAB1']);
    // antd may report only the leaves; the result is the same.
    expect(iabValuesFromCheckedKeys(IAB1_CHILDREN)).toEqual(['IAB1']);
  });

  it('stores a partly checked category as its checked children, in taxonomy order', () => {
    expect(iabValuesFromCheckedKeys(['IAB1-7', 'IAB1-1'])).toEqual(['IAB1-1', 'IAB1-7']);
    expect(iabValuesFromCheckedKeys(['IAB2', 'IAB1-1'])).toEqual(['IAB1-1', 'IAB2']);
  });

  it('keeps IAB24, which has no children, as its own leaf', () => {
    expect(iabValuesFromCheckedKeys(['IAB24'])).toEqual(['IAB24']);
    expect(iabCheckedKeys(['IAB24'])).toEqual(['IAB24']);
  });

  it('turns stored values back into the checked keys of the tree', () => {
    expect(iabCheckedKeys(['IAB1'])).toEqual(['IAB1', ...IAB1_CHILDREN]);
    expect(iabCheckedKeys(['IAB1-1', 'IAB1-7'])).toEqual(['IAB1-1', 'IAB1-7']);
    // A tier-1 id stored with some of its children (seed data does this) is the whole category.
    expect(iabValuesFromCheckedKeys(iabCheckedKeys(['IAB17', 'IAB17-44']))).toEqual(['IAB17']);
  });

  it('round-trips: values -> keys -> values', () => {
    for (const values of [['IAB1'], ['IAB1-1', 'IAB2'], ['IAB9-7', 'IAB17-16', 'IAB25', 'IAB26'], []]) {
      expect(iabValuesFromCheckedKeys(iabCheckedKeys(values))).toEqual(values);
    }
  });

  it('toggles a node: a tier-1 node checks its category, unchecking one child splits it', () => {
    expect(toggleIab([], 'IAB2', true)).toEqual(['IAB2']);
    expect(toggleIab(['IAB2'], 'IAB1-1', true)).toEqual(['IAB1-1', 'IAB2']);
    expect(toggleIab(['IAB1'], 'IAB1-7', false)).toEqual(IAB1_CHILDREN.filter((c) => c !== 'IAB1-7'));
    expect(toggleIab(IAB1_CHILDREN.slice(0, -1), IAB1_CHILDREN.at(-1)!, true)).toEqual(['IAB1']);
    expect(toggleIab(['IAB1', 'IAB2'], 'IAB1', false)).toEqual(['IAB2']);
  });

  it('builds the two-level tree with codes in the titles', () => {
    expect(IAB_TREE).toHaveLength(26);
    expect(IAB_TREE[0]).toMatchObject({ key: 'IAB1', title: 'Arts & Entertainment (IAB1)' });
    expect(IAB_TREE[0].children?.[0]).toEqual({ key: 'IAB1-1', title: 'Books & Literature (IAB1-1)' });
  });
});

describe('region tree <-> stored values', () => {
  const nam = [...countriesOfRegion('NAM')];
  const sea = [...countriesOfRegion('SEA')];

  it('stores a fully checked region as its id', () => {
    expect(regionValuesFromCheckedKeys(['NAM', ...nam.map((c) => `NAM:${c}`)])).toEqual(['NAM']);
    expect(regionValuesFromCountries(new Set(nam))).toEqual(['NAM']);
  });

  it('stores the countries of a partly checked region as country codes, in the order of the country list', () => {
    expect(regionValuesFromCheckedKeys(['NAM:US', 'NAM:CA'])).toEqual(['CA', 'US']);
  });

  it('does not store a region inside another fully checked one (SEA inside APAC)', () => {
    expect(regionValuesFromCountries(new Set(countriesOfRegion('APAC')))).toEqual(['APAC']);
    expect(regionValuesFromCountries(new Set(countriesOfRegion('EMEA')))).toEqual(['EMEA']);
    // SEA alone is a region of its own.
    expect(regionValuesFromCountries(new Set(sea))).toEqual(['SEA']);
  });

  it('checks a country under every region that holds it', () => {
    const keys = regionCheckedKeys(['SG']);
    expect(keys).toEqual(['APAC:SG', 'SEA:SG']);
    expect(regionCheckedKeys(['SEA'])).toContain('SEA');
    expect(regionCheckedKeys(['SEA'])).not.toContain('APAC');
  });

  it('turns stored region ids back into their countries', () => {
    expect([...regionCountries(['NAM'])].sort()).toEqual([...nam].sort());
    expect(regionCountries(['NAM', 'MX']).has('MX')).toBe(true);
  });

  it('round-trips: values -> keys -> values', () => {
    for (const values of [['NAM'], ['EMEA'], ['APAC', 'NAM'], ['CA', 'US'], ['SEA', 'JP'], []]) {
      expect(regionValuesFromCheckedKeys(regionCheckedKeys(values))).toEqual(values);
    }
  });

  it('toggles a node: a region node checks its countries, unchecking one country splits the region', () => {
    expect(toggleRegion([], 'EMEA', true)).toEqual(['EMEA']);
    expect(toggleRegion(['EMEA'], 'NAM', true)).toEqual(['EMEA', 'NAM']);
    expect(toggleRegion(['NAM'], 'NAM:GL', false)).toEqual(['BM', 'CA', 'PM', 'US']);
    expect(toggleRegion(['BM', 'CA', 'PM', 'US'], 'NAM:GL', true)).toEqual(['NAM']);
    // Unchecking a country in SEA also takes it out of APAC.
    expect(toggleRegion(['APAC'], 'SEA:SG', false)).not.toContain('APAC');
    expect(toggleRegion(['APAC'], 'SEA:SG', false)).not.toContain('SG');
  });

  it('builds the six region trees with their countries', () => {
    expect(REGION_TREE.map((r) => r.key)).toEqual(['APAC', 'LATAM', 'EMEA', 'NAM', 'SEA', 'MINA']);
    expect(REGION_TREE.find((r) => r.key === 'NAM')?.title).toBe('North Americas (5 countries)');
    expect(REGION_TREE.find((r) => r.key === 'NAM')?.children?.map((c) => c.key)).toEqual(nam.map((c) => `NAM:${c}`));
  });
});
