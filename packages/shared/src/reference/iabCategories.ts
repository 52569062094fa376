import { IAB_CATEGORY_TREE } from './iabCategories.data.js';
import { type ReferenceItem, type ReferenceTree } from './types.js';

/**
 * IAB Tech Lab Content Taxonomy 1.0 (the `cat`/`bcat` codes of OpenRTB 2.x): IAB1..IAB26 with their
 * sub-categories such as IAB1-1, shown in the console as a two-level tree. The data is generated from
 * the taxonomy TSV by scripts/gen-iab.ts.
 */
type Tier1 = (typeof IAB_CATEGORY_TREE)[number];
type IabTier1Id = Tier1['id'];
export type IabCategoryId = IabTier1Id | Tier1['children'][number]['id'];

export type IabCategoryNode = ReferenceTree<IabTier1Id, IabCategoryId>;
export const IAB_CATEGORIES: readonly IabCategoryNode[] = IAB_CATEGORY_TREE;

/** One category of either tier; `parentId` is null for tier 1. */
export interface IabCategory extends ReferenceItem<IabCategoryId> {
  readonly parentId: IabTier1Id | null;
}

export const IAB_CATEGORY_BY_ID: ReadonlyMap<string, IabCategory> = new Map(
  IAB_CATEGORIES.flatMap((tier1): [string, IabCategory][] => [
    [tier1.id, { id: tier1.id, name: tier1.name, parentId: null }],
    ...tier1.children.map((c): [string, IabCategory] => [c.id, { id: c.id, name: c.name, parentId: tier1.id }]),
  ]),
);

export function isIabCategory(id: unknown): id is IabCategoryId {
  return typeof id === 'string' && IAB_CATEGORY_BY_ID.has(id);
}

/** `IAB1-1` -> `Arts & Entertainment > Books & Literature`; `IAB1` -> `Arts & Entertainment`; unknown ids come back as they are. */
export function iabCategoryLabel(id: string): string {
  const category = IAB_CATEGORY_BY_ID.get(id);
  if (!category) return id;
  const parent = category.parentId ? IAB_CATEGORY_BY_ID.get(category.parentId) : undefined;
  return parent ? `${parent.name} > ${category.name}` : category.name;
}
