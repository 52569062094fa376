import { iabParentOf } from '../request/contentCategories.js';
import { type RequestContext } from '../request/context.js';
import { andNot, Bitset, countBits, narrow, nextBit, or } from './bitset.js';
import { type TargetingMiss } from '@adplane/shared';
import { type CodeSet, type CompiledTargeting, hourOfWeek, targetingMiss } from './compiledTargeting.js';

/**
 * Inverted bit sets over one tenant's campaigns, per targeting dimension, so that finding the
 * campaigns a request may see costs a few word-wise ANDs instead of a scan: for each dimension,
 * `any` holds the campaigns with no include rule there, `include[v]` those that include v and
 * `exclude[v]` those that exclude v. Indexed: country (with regions), US state, device, OS,
 * browser, TV family, player size, day-part (the hour of the week), IAB content category and app
 * bundle. A request has several IAB categories, and a rule on a tier-1 category also matches its
 * sub-categories: a request passes `any`, or `include[v]` for one of its categories or their
 * tier-1 parents, and no `exclude[v]` of those. What the index cannot decide alone (publisher
 * lists, which match a domain or a bundle; flight, budget, creatives) is checked on the campaigns
 * that survive, best bid first.
 */
interface DimensionIndex {
  any: Bitset;
  include: Map<string, Bitset>;
  exclude: Map<string, Bitset>;
}

type Dimension =
  | 'country'
  | 'usState'
  | 'device'
  | 'os'
  | 'browser'
  | 'tvFamily'
  | 'playerSize'
  | 'dayPart'
  | 'iabCategory'
  | 'appBundle';
/** Dimensions of one value per request. */
type SingleDimension = Exclude<Dimension, 'iabCategory'>;
/** Dimensions whose values repeat all day: their passing set is cached by those values (and by the request's categories). */
const CACHED: SingleDimension[] = [
  'country',
  'usState',
  'device',
  'os',
  'browser',
  'tvFamily',
  'playerSize',
  'dayPart',
];
/** App bundles are too many to cache by: narrowed per request, and only when some campaign has an app list. */
const PER_REQUEST: SingleDimension = 'appBundle';
const DIMENSIONS: Dimension[] = [...CACHED, 'iabCategory', PER_REQUEST];

/** Each dimension's rule as a refusal names it (compiledTargeting.ts refusal), in the order refusal checks them. */
const RULE_OF: readonly (readonly [Dimension, string])[] = [
  ['country', 'country'],
  ['usState', 'geo'],
  ['device', 'device'],
  ['os', 'os'],
  ['browser', 'browser'],
  ['tvFamily', 'tv_family'],
  ['playerSize', 'player_size'],
  ['appBundle', 'app_list'],
  ['iabCategory', 'iab_category'],
  ['dayPart', 'day_part'],
];

/** A campaign the index set aside for a request, with the rules that refused it (CampaignIndex.setAside). */
interface IndexedOut<T> {
  item: T;
  misses: TargetingMiss[];
}

const HOURS_OF_WEEK = Array.from({ length: 168 }, (_, h) => String(h));

/** A day-part grid's hours of the week as an include rule, once per grid (a targeting's grid is shared by its campaigns and kept across builds while unchanged). */
const dayPartRules = new WeakMap<object, CodeSet>();
function dayPartRule(grid: NonNullable<CompiledTargeting['dayParts']>): CodeSet {
  let rule = dayPartRules.get(grid);
  if (!rule)
    dayPartRules.set(grid, (rule = { include: true, values: new Set(HOURS_OF_WEEK.filter((_, h) => grid[h])) }));
  return rule;
}

function ruleOf(t: CompiledTargeting | null, d: Dimension): CodeSet | null {
  if (!t) return null;
  switch (d) {
    case 'country':
      if (t.geo.include.size) return { include: true, values: t.geo.include };
      return t.geo.exclude.size ? { include: false, values: t.geo.exclude } : null;
    case 'usState':
      if (t.geo.statesInclude.size) return { include: true, values: t.geo.statesInclude };
      return t.geo.statesExclude.size ? { include: false, values: t.geo.statesExclude } : null;
    case 'dayPart':
      return t.dayParts ? dayPartRule(t.dayParts) : null;
    case 'iabCategory':
      return t.iabCategories;
    case 'appBundle':
      return t.apps;
    case 'device':
      return t.devices;
    case 'os':
      return t.os;
    case 'browser':
      return t.browsers;
    case 'tvFamily':
      return t.tvFamilies;
    case 'playerSize':
      return t.playerSizes ? { include: true, values: t.playerSizes } : null;
  }
}

function valueOf(ctx: RequestContext, d: SingleDimension): string {
  switch (d) {
    case 'country':
      return ctx.geo.country;
    case 'usState':
      // a state rule only passes US addresses (shared passesGeo)
      return ctx.geo.country === 'US' ? ctx.geo.usState : '';
    case 'dayPart':
      return HOURS_OF_WEEK[hourOfWeek(ctx.now)]!;
    case 'appBundle':
      return ctx.appBundle;
    case 'device':
      return ctx.platform.device;
    case 'os':
      return ctx.platform.os;
    case 'browser':
      return ctx.platform.browser;
    case 'tvFamily':
      return ctx.platform.tvFamily;
    case 'playerSize':
      return ctx.playerSize;
  }
}

export class CampaignIndex<T> {
  private readonly dims = new Map<Dimension, DimensionIndex>();
  private readonly all: Bitset;
  private readonly passingCache = new Map<string, { words: Uint32Array; count: number }>();
  /** Whether any campaign has an app list (else the per-request narrowing is skipped). */
  private readonly appRules: boolean;
  private readonly categories: DimensionIndex;
  /** Where a request's categories are combined (one at a time: passing() runs to its end synchronously). */
  private readonly scratch: Uint32Array;
  /** Positions by name (byName), made on the first traced request. */
  private nameOrder: Uint32Array | null = null;

  constructor(
    readonly items: readonly T[],
    targetingOf: (item: T) => CompiledTargeting | null,
  ) {
    const n = items.length;
    this.all = new Bitset(n);
    for (let i = 0; i < n; i++) this.all.set(i);
    for (const d of DIMENSIONS) {
      const index: DimensionIndex = { any: new Bitset(n), include: new Map(), exclude: new Map() };
      const bits = (map: Map<string, Bitset>, v: string) => {
        let b = map.get(v);
        if (!b) map.set(v, (b = new Bitset(n)));
        return b;
      };
      items.forEach((item, i) => {
        // Country exclusion also applies when there is an include list: keep both sides.
        const t = targetingOf(item);
        const rule = ruleOf(t, d);
        if (!rule || !rule.include) index.any.set(i);
        if (rule) for (const v of rule.values) bits(rule.include ? index.include : index.exclude, v).set(i);
        if (d === 'country' && t?.geo.include.size && t.geo.exclude.size)
          for (const v of t.geo.exclude) bits(index.exclude, v).set(i);
      });
      this.dims.set(d, index);
    }
    const apps = this.dims.get(PER_REQUEST)!;
    this.appRules = apps.include.size > 0 || apps.exclude.size > 0;
    this.categories = this.dims.get('iabCategory')!;
    this.scratch = new Uint32Array(this.all.words.length);
  }

  /**
   * Positions whose indexed dimensions pass the request, as a bit set over `items` (read-only: it
   * is cached by the request's indexed values, which players repeat all day), and how many there are.
   */
  passing(ctx: RequestContext): { words: Uint32Array; count: number } {
    let key = '';
    for (const d of CACHED) key += valueOf(ctx, d) + '\u001f';
    // only a category that some rule names (itself or its parent) changes the answer: the others stay out of the key
    const categories = ctx.iabCategories;
    for (let i = 0; i < categories.length; i++) if (this.ruled(categories[i]!)) key += categories[i] + ',';
    let hit = this.passingCache.get(key);
    if (!hit) {
      const words = new Uint32Array(this.all.words);
      for (const d of CACHED) this.narrowBy(words, d, valueOf(ctx, d));
      this.narrowByCategories(words, categories);
      hit = { words, count: countBits(words) };
      if (this.passingCache.size >= PASSING_CACHE_LIMIT) this.passingCache.clear();
      this.passingCache.set(key, hit);
    }
    if (!this.appRules) return hit;
    const words = new Uint32Array(hit.words);
    this.narrowBy(words, PER_REQUEST, valueOf(ctx, PER_REQUEST));
    return { words, count: countBits(words) };
  }

  private narrowBy(words: Uint32Array, d: SingleDimension, v: string): void {
    const index = this.dims.get(d)!;
    narrow(
      words,
      index.any.words,
      v ? index.include.get(v)?.words : undefined,
      v ? index.exclude.get(v)?.words : undefined,
    );
  }

  /** Whether some rule names the category or its tier-1 parent. */
  private ruled(category: string): boolean {
    const { include, exclude } = this.categories;
    if (include.has(category) || exclude.has(category)) return true;
    const parent = iabParentOf(category);
    return parent !== undefined && (include.has(parent) || exclude.has(parent));
  }

  /** words AND (any OR include[c or its parent] for some c) AND NOT exclude[c or its parent] for every c. */
  private narrowByCategories(words: Uint32Array, categories: readonly string[]): void {
    const { any, include, exclude } = this.categories;
    if (!categories.length) {
      narrow(words, any.words, undefined, undefined);
      return;
    }
    const pass = this.scratch;
    pass.set(any.words);
    for (const c of categories) {
      const parent = iabParentOf(c);
      or(pass, include.get(c)?.words);
      if (parent !== undefined) or(pass, include.get(parent)?.words);
    }
    for (const c of categories) {
      const parent = iabParentOf(c);
      andNot(pass, exclude.get(c)?.words);
      if (parent !== undefined) andNot(pass, exclude.get(parent)?.words);
    }
    narrow(words, pass, undefined, undefined);
  }

  /**
   * The items the index sets aside for the request (those not in `passing`), the first `limit` by
   * name, each with every indexed rule that refused it. For a traced request only (debug, "Test this
   * tag"): it narrows a bit set per dimension and allocates; the serving path never calls it.
   */
  setAside(
    ctx: RequestContext,
    passing: Uint32Array,
    limit: number,
    nameOf: (item: T) => string,
    targetingOf: (item: T) => CompiledTargeting | null,
  ): IndexedOut<T>[] {
    const alone = new Map<Dimension, Uint32Array>();
    for (const [d] of RULE_OF) {
      const words = new Uint32Array(this.all.words);
      if (d === 'iabCategory') this.narrowByCategories(words, ctx.iabCategories);
      else this.narrowBy(words, d, valueOf(ctx, d));
      alone.set(d, words);
    }
    const out: IndexedOut<T>[] = [];
    for (const pos of this.byName(nameOf)) {
      if (out.length >= limit) break;
      if (passing[pos >>> 5]! & (1 << (pos & 31))) continue;
      const item = this.items[pos]!;
      const t = targetingOf(item);
      const misses: TargetingMiss[] = [];
      for (const [d, rule] of RULE_OF) {
        const words = alone.get(d)!;
        if (t && !(words[pos >>> 5]! & (1 << (pos & 31)))) {
          const miss = targetingMiss(t, ctx, rule);
          // a state rule outside the US and a country rule refuse as one: the country, said once
          if (!misses.some((m) => m.rule === miss.rule)) misses.push(miss);
        }
      }
      out.push({ item, misses });
    }
    return out;
  }

  /** Positions ordered by their items' names (case aside), computed once per index on the first traced request. */
  private byName(nameOf: (item: T) => string): Uint32Array {
    if (!this.nameOrder) {
      const keys = this.items.map((item) => nameOf(item).toLowerCase());
      const order = Uint32Array.from(keys.keys());
      order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
      this.nameOrder = order;
    }
    return this.nameOrder;
  }

  /** Items whose indexed dimensions pass the request, in their original order. */
  candidates(ctx: RequestContext): T[] {
    const { words } = this.passing(ctx);
    const result: T[] = [];
    for (let pos = nextBit(words, 0); pos >= 0; pos = nextBit(words, pos + 1)) result.push(this.items[pos]!);
    return result;
  }
}

const PASSING_CACHE_LIMIT = 4096;
