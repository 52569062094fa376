import { COUNTRIES, IAB_CATEGORIES, REGIONS, countriesOfRegion, isRegion } from '@adplane/shared';

/**
 * Tree checks <-> stored targeting values, for the two tree pickers of the targeting form.
 *
 * IAB categories: a tier-1 category whose children are all checked is stored as the tier-1 id alone
 * ('IAB1'), which the edge matches as the whole category; a partly checked one is stored as its
 * checked children ('IAB1-1', 'IAB1-7'). IAB24 (Uncategorized) has no children and is its own leaf.
 *
 * Regions: what is picked is a set of countries. A region whose countries are all picked is stored
 * as the region id ('EMEA'); the countries no stored region covers are stored as country codes.
 * Regions overlap (every SEA country is APAC, every MENA country is EMEA), so a country checked under
 * one region is checked under every region that holds it, and a fully checked region inside another
 * fully checked one (SEA inside APAC) is not stored twice. The server expands region ids to their
 * countries, so both forms target the same traffic.
 */

export interface CheckTreeNode {
  key: string;
  title: string;
  children?: CheckTreeNode[];
}

// ---------- IAB categories ----------

const IAB_ORDER = new Map<string, number>();
IAB_CATEGORIES.forEach((t) => {
  IAB_ORDER.set(t.id, IAB_ORDER.size);
  t.children.forEach((c) => IAB_ORDER.set(c.id, IAB_ORDER.size));
});
const IAB_TIER1 = new Map(IAB_CATEGORIES.map((t) => [t.id as string, t.children.map((c) => c.id as string)]));
const IAB_PARENT = new Map(
  IAB_CATEGORIES.flatMap((t) => t.children.map((c) => [c.id as string, t.id as string] as const)),
);

/** The tree of the IAB picker: tier-1 categories with their sub-categories, titles with the code. */
export const IAB_TREE: CheckTreeNode[] = IAB_CATEGORIES.map((t) => ({
  key: t.id,
  title: `${t.name} (${t.id})`,
  children: t.children.length ? t.children.map((c) => ({ key: c.id, title: `${c.name} (${c.id})` })) : undefined,
}));

/** The leaves a stored value covers: a tier-1 id covers all its children (or itself when it has none). */
function iabLeavesOf(id: string): string[] {
  const children = IAB_TIER1.get(id);
  if (children) return children.length ? children : [id];
  return IAB_PARENT.has(id) ? [id] : [];
}

/** Stored IAB values -> the checked leaves. */
export function iabLeaves(values: readonly string[]): Set<string> {
  return new Set(values.flatMap(iabLeavesOf));
}

/** Checked leaves -> stored values, in taxonomy order: full tier-1 categories collapse to their id. */
function iabValuesFromLeaves(leaves: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const t of IAB_CATEGORIES) {
    if (t.children.length === 0) {
      if (leaves.has(t.id)) out.push(t.id);
      continue;
    }
    const checked = t.children.filter((c) => leaves.has(c.id));
    if (checked.length === t.children.length) out.push(t.id);
    else out.push(...checked.map((c) => c.id));
  }
  return out;
}

/** The tree's checked keys for stored values: the leaves plus every fully checked tier-1 category. */
export function iabCheckedKeys(values: readonly string[]): string[] {
  const leaves = iabLeaves(values);
  const keys = new Set(leaves);
  for (const [tier1, children] of IAB_TIER1)
    if (children.length && children.every((c) => leaves.has(c))) keys.add(tier1);
  return [...keys].sort((a, b) => (IAB_ORDER.get(a) ?? 0) - (IAB_ORDER.get(b) ?? 0));
}

/** The tree's checked keys (parents included or not) -> stored values. */
export function iabValuesFromCheckedKeys(keys: readonly string[]): string[] {
  return iabValuesFromLeaves(iabLeaves(keys));
}

/** Check or uncheck one node of the IAB tree (a tier-1 node checks or unchecks its whole category). */
export function toggleIab(values: readonly string[], key: string, checked: boolean): string[] {
  const leaves = iabLeaves(values);
  for (const leaf of iabLeavesOf(key)) {
    if (checked) leaves.add(leaf);
    else leaves.delete(leaf);
  }
  return iabValuesFromLeaves(leaves);
}

// ---------- Regions ----------

const COUNTRY_ORDER = new Map(COUNTRIES.map((c, i) => [c.id as string, i]));
const REGION_SETS = REGIONS.map((r) => ({
  id: r.id as string,
  countries: new Set<string>(r.children.map((c) => c.id)),
}));
const SEPARATOR = ':';

/** Tree key of a country under a region: a country sits under every region that holds it. */
const regionCountryKey = (regionId: string, country: string) => `${regionId}${SEPARATOR}${country}`;

/** The tree of the region picker: the six regions with their countries. */
export const REGION_TREE: CheckTreeNode[] = REGIONS.map((r) => ({
  key: r.id,
  title: `${r.name} (${r.children.length} countries)`,
  children: r.children.map((c) => ({ key: regionCountryKey(r.id, c.id), title: `${c.name} (${c.id})` })),
}));

/** Stored region values (region ids and country codes) -> the countries they target. */
export function regionCountries(values: readonly string[]): Set<string> {
  return new Set(values.flatMap((v) => (isRegion(v) ? [...countriesOfRegion(v)] : [v])));
}

const isSubset = (a: ReadonlySet<string>, b: ReadonlySet<string>) => [...a].every((x) => b.has(x));

/**
 * Countries -> stored values: the fully covered regions (not those inside another fully covered
 * one), in the order of REGIONS, then the countries left over, in the order of COUNTRIES.
 */
export function regionValuesFromCountries(countries: ReadonlySet<string>): string[] {
  const full = REGION_SETS.filter((r) => r.countries.size > 0 && isSubset(r.countries, countries));
  const kept = full.filter(
    (r) => !full.some((o) => o !== r && o.countries.size > r.countries.size && isSubset(r.countries, o.countries)),
  );
  const covered = new Set(kept.flatMap((r) => [...r.countries]));
  const rest = [...countries]
    .filter((c) => !covered.has(c))
    .sort((a, b) => (COUNTRY_ORDER.get(a) ?? Infinity) - (COUNTRY_ORDER.get(b) ?? Infinity) || a.localeCompare(b));
  return [...kept.map((r) => r.id), ...rest];
}

/** The tree's checked keys for stored values: each picked country under every region holding it, and full regions. */
export function regionCheckedKeys(values: readonly string[]): string[] {
  const countries = regionCountries(values);
  return REGION_SETS.flatMap((r) => {
    const inside = [...r.countries].filter((c) => countries.has(c));
    return [...(inside.length === r.countries.size ? [r.id] : []), ...inside.map((c) => regionCountryKey(r.id, c))];
  });
}

/** The countries a tree key stands for: a region key all its countries, a country key its country. */
function countriesOfKey(key: string): string[] {
  if (isRegion(key)) return [...countriesOfRegion(key)];
  const at = key.indexOf(SEPARATOR);
  return at >= 0 ? [key.slice(at + 1)] : [key];
}

/** The tree's checked keys -> stored values (a country checked under any region is picked). */
export function regionValuesFromCheckedKeys(keys: readonly string[]): string[] {
  return regionValuesFromCountries(new Set(keys.flatMap(countriesOfKey)));
}

/** Check or uncheck one node of the region tree: a region node checks or unchecks all its countries. */
export function toggleRegion(values: readonly string[], key: string, checked: boolean): string[] {
  const countries = regionCountries(values);
  for (const c of countriesOfKey(key)) {
    if (checked) countries.add(c);
    else countries.delete(c);
  }
  return regionValuesFromCountries(countries);
}
