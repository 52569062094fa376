import { IAB_CATEGORY_BY_ID } from '@adplane/shared';

/**
 * A request's IAB content categories (IAB Tech Lab Content Taxonomy 1.0, the codes targetings
 * store), read once at the door: a VAST tag's `content_cat` macro split on commas, or a bid
 * request's site or app `cat`, `sectioncat` and `pagecat` and its content's `cat`. Only known IAB
 * 1.0 codes are kept, each once, in the taxonomy's spelling (`iab1-5` reads as `IAB1-5`): a code
 * nothing can target never changes a decision. A category rule matches a request category or its
 * tier-1 parent (targeting/compiledTargeting.ts passesCategories).
 */

/** No categories: one shared list, so that a request without any allocates nothing. */
const NO_CATEGORIES: readonly string[] = Object.freeze([]);
/** At most this many categories are read of one request (the rest are ignored). */
const MAX_CATEGORIES = 16;

/** Each known code's tier-1 parent (`IAB1-5` -> `IAB1`); a tier-1 code has none. */
const PARENT = new Map<string, string>();
/** Each known code as a one-item list, shared: a request naming one category (the usual case) allocates nothing. */
const ALONE = new Map<string, readonly string[]>();
for (const c of IAB_CATEGORY_BY_ID.values()) {
  if (c.parentId) PARENT.set(c.id, c.parentId);
  ALONE.set(c.id, Object.freeze([c.id]));
}

/** The tier-1 parent of a known sub-category (`IAB1` of `IAB1-5`), undefined for a tier-1 or unknown code. */
export const iabParentOf = (code: string): string | undefined => PARENT.get(code);

/** A known IAB 1.0 code in the taxonomy's spelling, '' for anything else. */
function known(v: unknown): string {
  if (typeof v !== 'string' || !v) return '';
  if (ALONE.has(v)) return v;
  const t = v.trim().toUpperCase();
  return ALONE.has(t) ? t : '';
}

/** `list` with `code` added unless already there (the first added of a request is its shared one-item list). */
function added(list: readonly string[], code: string): readonly string[] {
  if (!code || list.includes(code) || list.length >= MAX_CATEGORIES) return list;
  if (!list.length) return ALONE.get(code)!;
  if (list.length === 1) return [list[0]!, code];
  // a list of two or more is this request's own
  (list as string[]).push(code);
  return list;
}

/** The tag macro's categories: `IAB1-5` -> [IAB1-5]; `IAB1, IAB2-3` -> [IAB1, IAB2-3]. */
export function categoriesOfMacro(text: string): readonly string[] {
  if (!text) return NO_CATEGORIES;
  if (!text.includes(',')) return ALONE.get(known(text)) ?? NO_CATEGORIES;
  let list = NO_CATEGORIES;
  for (const part of text.split(',')) list = added(list, known(part));
  return list;
}

/**
 * A bid request's categories, from its site or app (`place`: `cat`, `sectioncat`, `pagecat`) and its
 * content (`cat`), each read only when its object's `cattax` is absent or 1 (OpenRTB 2.6: absent
 * means IAB Content Category Taxonomy 1.0). A list in another taxonomy (2 = Content Taxonomy 2.0,
 * ...) is ignored: adplane targets IAB 1.0 codes and ships no mapping between taxonomies.
 */
export function categoriesOfBidRequest(
  place: Readonly<Record<string, unknown>>,
  content: Readonly<Record<string, unknown>>,
): readonly string[] {
  let list = NO_CATEGORIES;
  if (isTaxonomy1(place.cattax)) {
    list = addAll(list, place.cat);
    list = addAll(list, place.sectioncat);
    list = addAll(list, place.pagecat);
  }
  if (isTaxonomy1(content.cattax)) list = addAll(list, content.cat);
  return list;
}

/** `cattax` absent (or not a number: read as absent) or 1. */
const isTaxonomy1 = (cattax: unknown): boolean => typeof cattax !== 'number' || cattax === 1;

function addAll(list: readonly string[], codes: unknown): readonly string[] {
  if (!Array.isArray(codes)) return list;
  for (let i = 0; i < codes.length && i < MAX_CATEGORIES; i++) list = added(list, known(codes[i]));
  return list;
}
