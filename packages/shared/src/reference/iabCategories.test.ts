import { describe, expect, it } from 'vitest';
import { IAB_CATEGORIES, IAB_CATEGORY_BY_ID, iabCategoryLabel, isIabCategory } from './iabCategories.js';

describe('IAB content categories (Content Taxonomy 1.0)', () => {
  it('holds 26 tier-1 categories IAB1..IAB26 and 392 entries in all', () => {
    expect(IAB_CATEGORIES.map((c) => c.id)).toEqual(Array.from({ length: 26 }, (_, i) => `IAB${i + 1}`));
    expect(IAB_CATEGORIES.reduce((n, c) => n + c.children.length, 0)).toBe(366);
    expect(IAB_CATEGORY_BY_ID.size).toBe(392);
  });

  it('nests every child under its parent id', () => {
    for (const tier1 of IAB_CATEGORIES) {
      for (const child of tier1.children) {
        expect(child.id.startsWith(`${tier1.id}-`)).toBe(true);
        expect(IAB_CATEGORY_BY_ID.get(child.id)?.parentId).toBe(tier1.id);
      }
      expect(IAB_CATEGORY_BY_ID.get(tier1.id)?.parentId).toBeNull();
    }
  });

  it('knows the entries of the taxonomy file', () => {
    expect(IAB_CATEGORY_BY_ID.get('IAB1')?.name).toBe('Arts & Entertainment');
    expect(IAB_CATEGORY_BY_ID.get('IAB1-1')?.name).toBe('Books & Literature');
    expect(IAB_CATEGORY_BY_ID.get('IAB26-4')?.name).toBe('Copyright Infringement');
    expect(IAB_CATEGORIES.find((c) => c.id === 'IAB24')).toEqual({ id: 'IAB24', name: 'Uncategorized', children: [] });
    expect(IAB_CATEGORIES.filter((c) => c.children.length === 0).map((c) => c.id)).toEqual(['IAB24']);
  });

  it('tells ids apart and labels them with their parent', () => {
    expect(isIabCategory('IAB1-1')).toBe(true);
    expect(isIabCategory('IAB24')).toBe(true);
    expect(isIabCategory('IAB27')).toBe(false);
    expect(isIabCategory('iab1')).toBe(false);
    expect(isIabCategory(1)).toBe(false);
    expect(iabCategoryLabel('IAB1-1')).toBe('Arts & Entertainment > Books & Literature');
    expect(iabCategoryLabel('IAB1')).toBe('Arts & Entertainment');
    expect(iabCategoryLabel('IAB99')).toBe('IAB99');
  });
});
