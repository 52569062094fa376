import { iabParentOf } from '../request/contentCategories.js';
import { type RequestContext } from '../request/context.js';
import { NO_KEY_VALUES } from '../request/keyValues.js';
import { andNot, Bitset, countBits, narrow, nextBit, or } from './bitset.js';
import { type TargetingMiss } from '@adplane/shared';
import {
  cityKeysOf,
  type CodeSet,
  type CompiledTargeting,
  hourOfWeek,
  type IpListRule,
  targetingMiss,
} from './compiledTargeting.js';
import { type IpList, ipListHas, parseViewerAddress } from './ipLists.js';
import { type ChannelAssignment } from './channelAssignment.js';

/**
 * Inverted bit sets over one tenant's campaigns, per targeting dimension, so that finding the
 * campaigns a request may see costs a few word-wise ANDs instead of a scan: for each dimension,
 * `any` holds the campaigns with no include rule there, `include[v]` those that include v and
 * `exclude[v]` those that exclude v. Indexed: country (with regions), US state, city, metro,
 * postal code, IP list, device, OS, browser, TV family, player size, day-part (the hour of the
 * week), key-values, IAB content category and app bundle. A request has several IAB categories,
 * and a rule on a tier-1 category also matches its sub-categories: a request passes `any`, or
 * `include[v]` for one of its categories or their tier-1 parents, and no `exclude[v]` of those.
 * Cities (a city has two spellings: with and without its region) and IP lists (the lists the
 * viewer's address is in, each list asked once per request, never once per campaign) are read the
 * same way. Key-values include by key: each key some rule includes has its own `any` and
 * `include[pair]`, so that a rule naming two keys needs a pair of each. What the index cannot decide
 * alone (publisher lists, which match a domain or a bundle; flight, budget, creatives) is checked
 * on the campaigns that survive, best bid first.
 *
 * The channel a request came on is one more dimension (channelAssignment.ts): `any` holds the
 * campaigns of every channel (and those that exclude some), `include[id]` those assigned to channel
 * `id`, `exclude[id]` those that leave it out. An index whose campaigns all run on every channel has
 * none; otherwise the channel is part of the passing cache's key, so that a channel's requests
 * meet its campaigns alone for the price of the cached set, never a scan.
 */
interface DimensionIndex {
  any: Bitset;
  include: Map<string, Bitset>;
  exclude: Map<string, Bitset>;
}

type Dimension =
  | 'country'
  | 'usState'
  | 'city'
  | 'metro'
  | 'postalCode'
  | 'ipList'
  | 'device'
  | 'os'
  | 'browser'
  | 'tvFamily'
  | 'playerSize'
  | 'dayPart'
  | 'keyValue'
  | 'iabCategory'
  | 'appBundle';
/** Dimensions of several values per request, each narrowed its own way (narrowDimension). */
type MultiDimension = 'city' | 'ipList' | 'keyValue' | 'iabCategory';
/** Dimensions of one value per request. */
type SingleDimension = Exclude<Dimension, MultiDimension>;
/** Dimensions whose values repeat all day: their passing set is cached by those values (and by the request's categories). */
const CACHED: SingleDimension[] = [
  'country',
  'usState',
  'metro',
  'device',
  'os',
  'browser',
  'tvFamily',
  'playerSize',
  'dayPart',
];
/**
 * Too many values to cache by as they come (app bundles, postal codes, cities, addresses,
 * key-values): only those some campaign of the tenant has a rule on are looked at, and the passing
 * cache's key holds only the values those rules name (perRequestKey).
 */
type PerRequestDimension = 'appBundle' | 'postalCode' | 'city' | 'ipList' | 'keyValue';
const PER_REQUEST: readonly PerRequestDimension[] = ['appBundle', 'postalCode', 'city', 'ipList', 'keyValue'];
const DIMENSIONS: Dimension[] = [...CACHED, 'iabCategory', ...PER_REQUEST];

/** Each dimension's rule as a refusal names it (compiledTargeting.ts refusal), in the order refusal checks them. */
const RULE_OF: readonly (readonly [Dimension, string])[] = [
  ['country', 'country'],
  ['usState', 'geo'],
  ['city', 'city'],
  ['metro', 'metro'],
  ['postalCode', 'postal_code'],
  ['ipList', 'ip_list'],
  ['device', 'device'],
  ['os', 'os'],
  ['browser', 'browser'],
  ['tvFamily', 'tv_family'],
  ['playerSize', 'player_size'],
  ['appBundle', 'app_list'],
  ['keyValue', 'key_value'],
  ['iabCategory', 'iab_category'],
  ['dayPart', 'day_part'],
];

/** A campaign the index set aside for a request, with the rules that refused it (CampaignIndex.setAside). */
interface IndexedOut<T> {
  item: T;
  /** Its channel assignment leaves out the request's channel. */
  offChannel: boolean;
  misses: TargetingMiss[];
}

/** The channel dimension: as DimensionIndex, by channel id. */
interface ChannelIndex {
  any: Bitset;
  include: Map<number, Bitset>;
  exclude: Map<number, Bitset>;
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

/** An IP list's key in the index: its id. */
const ipListKey = (list: IpList): string => String(list.id);

/** An IP list rule as the lists' keys, once per rule (kept with its compiled targeting). */
const ipListRules = new WeakMap<IpListRule, CodeSet>();
function ipListCodes(rule: IpListRule): CodeSet {
  let codes = ipListRules.get(rule);
  if (!codes) ipListRules.set(rule, (codes = { include: rule.include, values: new Set(rule.lists.map(ipListKey)) }));
  return codes;
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
    case 'city':
      return t.cities;
    case 'metro':
      return t.metros;
    case 'postalCode':
      return t.postalCodes;
    case 'ipList':
      return t.ipLists ? ipListCodes(t.ipLists) : null;
    case 'keyValue':
      // the exclude side; an include rule is indexed by key (kvByKey)
      return t.keyValues && !t.keyValues.include ? t.keyValues : null;
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
    case 'metro':
      return ctx.geo.place?.metro ?? '';
    case 'postalCode':
      return ctx.geo.place?.postalKey ?? '';
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
  /** The per-request dimensions some campaign has a rule on (the others are skipped). */
  private readonly perRequest: PerRequestDimension[];
  private readonly categories: DimensionIndex;
  /** Key-value include rules, by key: `any` those without an include rule on the key. */
  private readonly kvByKey = new Map<string, DimensionIndex>();
  /** Every key-value pair some rule names, included or excluded: the pairs of a request that change its answer. */
  private readonly kvRuled = new Set<string>();
  /** The IP lists the campaigns' rules name, each asked once per request; which held the address (scratch). */
  private readonly ipLists: IpList[];
  private readonly ipKeys: string[];
  private readonly ipHits: Uint8Array;
  /** Where a request's categories are combined (one at a time: passing() runs to its end synchronously). */
  private readonly scratch: Uint32Array;
  /** Positions by name (byName), made on the first traced request. */
  private nameOrder: Uint32Array | null = null;
  /** The channel dimension; null when every campaign runs on every channel. */
  private readonly channels: ChannelIndex | null;

  constructor(
    readonly items: readonly T[],
    targetingOf: (item: T) => CompiledTargeting | null,
    channelsOf: (item: T) => ChannelAssignment | null = () => null,
  ) {
    const n = items.length;
    this.all = new Bitset(n);
    for (let i = 0; i < n; i++) this.all.set(i);
    this.channels = channelIndexOf(items, channelsOf);
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
    const lists = new Map<number, IpList>();
    items.forEach((item, i) => {
      const t = targetingOf(item);
      for (const list of t?.ipLists?.lists ?? []) lists.set(list.id, list);
      if (!t?.keyValues?.include) return;
      for (const [key, pairs] of t.keyValues.byKey) {
        let index = this.kvByKey.get(key);
        if (!index) {
          index = { any: new Bitset(n), include: new Map(), exclude: new Map() };
          this.kvByKey.set(key, index);
        }
        for (const pair of pairs) {
          let b = index.include.get(pair);
          if (!b) index.include.set(pair, (b = new Bitset(n)));
          b.set(i);
        }
      }
    });
    // `any` of a key: the campaigns whose include rule does not name it
    for (const index of this.kvByKey.values()) {
      const named = new Uint32Array(this.all.words.length);
      for (const b of index.include.values()) or(named, b.words);
      index.any.words.set(this.all.words);
      andNot(index.any.words, named);
    }
    const kv = this.dims.get('keyValue')!;
    for (const map of [kv.include, kv.exclude, ...[...this.kvByKey.values()].map((index) => index.include)])
      for (const pair of map.keys()) this.kvRuled.add(pair);
    this.ipLists = [...lists.values()];
    this.ipKeys = this.ipLists.map(ipListKey);
    this.ipHits = new Uint8Array(this.ipLists.length);
    // a dimension narrows when some campaign is not in its `any` (an include rule, even one whose
    // lists are all paused: it passes nobody) or excludes something
    this.perRequest = PER_REQUEST.filter((d) => {
      const index = this.dims.get(d)!;
      return index.exclude.size > 0 || countBits(index.any.words) < n || (d === 'keyValue' && this.kvByKey.size > 0);
    });
    this.categories = this.dims.get('iabCategory')!;
    this.scratch = new Uint32Array(this.all.words.length);
  }

  /**
   * Positions whose indexed dimensions pass the request, as a bit set over `items` (read-only: it
   * is cached by the request's indexed values, which players repeat all day), and how many there are.
   */
  passing(ctx: RequestContext, channelId: number): { words: Uint32Array; count: number } {
    const { channels } = this;
    let key = channels ? `${channelId}\u001f` : '';
    for (const d of CACHED) key += valueOf(ctx, d) + '\u001f';
    // only a category that some rule names (itself or its parent) changes the answer: the others stay out of the key
    const categories = ctx.iabCategories;
    for (let i = 0; i < categories.length; i++) if (this.ruled(categories[i]!)) key += categories[i] + ',';
    if (this.perRequest.length) key += this.perRequestKey(ctx);
    let hit = this.passingCache.get(key);
    if (!hit) {
      const words = new Uint32Array(this.all.words);
      if (channels) narrowByChannel(words, channels, channelId);
      for (const d of CACHED) this.narrowBy(words, d, valueOf(ctx, d));
      this.narrowByCategories(words, categories);
      for (const d of this.perRequest) this.narrowDimension(words, d, ctx);
      hit = { words, count: countBits(words) };
      if (this.passingCache.size >= PASSING_CACHE_LIMIT) this.passingCache.clear();
      this.passingCache.set(key, hit);
    }
    return hit;
  }

  /**
   * What the request's per-request dimensions add to the passing cache's key: of their many values
   * (addresses, key-values, cities, postal codes, app bundles), only those some rule of the tenant
   * names change the answer (an unnamed value passes `any` alone, as no value does), and of the
   * viewer's address only which of the rules' IP lists hold it. So the key stays within what the
   * rules name, however many values the traffic brings, and a request pays for a key, not a copy
   * of the set narrowed again.
   */
  private perRequestKey(ctx: RequestContext): string {
    let key = '\u001e';
    for (const d of this.perRequest) {
      switch (d) {
        case 'ipList': {
          const family = parseViewerAddress(ctx.ip);
          for (let i = 0; i < this.ipLists.length; i++) key += ipListHas(this.ipLists[i]!, ctx.ip, family) ? '1' : '0';
          break;
        }
        case 'keyValue': {
          const pairs = ctx.keyValues ?? NO_KEY_VALUES;
          for (let i = 0; i < pairs.length; i++) if (this.kvRuled.has(pairs[i]!)) key += pairs[i] + ',';
          break;
        }
        case 'city': {
          const index = this.dims.get('city')!;
          const cities = cityKeysOf(ctx);
          for (let i = 0; i < cities.length; i++) if (named(index, cities[i]!)) key += cities[i] + ',';
          break;
        }
        default: {
          const v = valueOf(ctx, d);
          if (named(this.dims.get(d)!, v)) key += v;
        }
      }
      key += '\u001f';
    }
    return key;
  }

  /** words AND what the request passes of dimension `d`. */
  private narrowDimension(words: Uint32Array, d: Dimension, ctx: RequestContext): void {
    switch (d) {
      case 'iabCategory':
        return this.narrowByCategories(words, ctx.iabCategories);
      case 'city':
        return this.narrowByValues(words, this.dims.get('city')!, cityKeysOf(ctx));
      case 'ipList':
        return this.narrowByIpLists(words, ctx.ip);
      case 'keyValue': {
        const pairs = ctx.keyValues ?? NO_KEY_VALUES;
        this.narrowByValues(words, this.dims.get('keyValue')!, pairs);
        for (const index of this.kvByKey.values()) this.narrowByValues(words, index, pairs);
        return;
      }
      default:
        return this.narrowBy(words, d, valueOf(ctx, d));
    }
  }

  /** words AND (any OR include[v] for some v) AND NOT exclude[v] for every v of the request's. */
  private narrowByValues(words: Uint32Array, index: DimensionIndex, values: readonly string[]): void {
    if (!values.length) {
      narrow(words, index.any.words, undefined, undefined);
      return;
    }
    const pass = this.scratch;
    pass.set(index.any.words);
    for (let i = 0; i < values.length; i++) or(pass, index.include.get(values[i]!)?.words);
    for (let i = 0; i < values.length; i++) andNot(pass, index.exclude.get(values[i]!)?.words);
    narrow(words, pass, undefined, undefined);
  }

  /** The lists holding the viewer's address as the request's values of the IP list dimension: each list asked once. */
  private narrowByIpLists(words: Uint32Array, address: string): void {
    const { any, include, exclude } = this.dims.get('ipList')!;
    const family = parseViewerAddress(address);
    const hits = this.ipHits;
    const pass = this.scratch;
    pass.set(any.words);
    for (let i = 0; i < this.ipLists.length; i++) {
      hits[i] = ipListHas(this.ipLists[i]!, address, family) ? 1 : 0;
      if (hits[i]) or(pass, include.get(this.ipKeys[i]!)?.words);
    }
    for (let i = 0; i < this.ipLists.length; i++) if (hits[i]) andNot(pass, exclude.get(this.ipKeys[i]!)?.words);
    narrow(words, pass, undefined, undefined);
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
    channelId: number,
    passing: Uint32Array,
    limit: number,
    nameOf: (item: T) => string,
    targetingOf: (item: T) => CompiledTargeting | null,
  ): IndexedOut<T>[] {
    const onChannel = new Uint32Array(this.all.words);
    if (this.channels) narrowByChannel(onChannel, this.channels, channelId);
    const alone = new Map<Dimension, Uint32Array>();
    for (const [d] of RULE_OF) {
      const words = new Uint32Array(this.all.words);
      this.narrowDimension(words, d, ctx);
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
      out.push({ item, offChannel: !(onChannel[pos >>> 5]! & (1 << (pos & 31))), misses });
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

  /** Items whose indexed dimensions pass the request on channel `channelId`, in their original order. */
  candidates(ctx: RequestContext, channelId: number): T[] {
    const { words } = this.passing(ctx, channelId);
    const result: T[] = [];
    for (let pos = nextBit(words, 0); pos >= 0; pos = nextBit(words, pos + 1)) result.push(this.items[pos]!);
    return result;
  }
}

const PASSING_CACHE_LIMIT = 4096;

/** Whether some rule of the dimension includes or excludes the value. */
const named = (index: DimensionIndex, v: string): boolean => index.include.has(v) || index.exclude.has(v);

/** The channel dimension of `items`, or null when none of them is assigned to channels. */
function channelIndexOf<T>(
  items: readonly T[],
  channelsOf: (item: T) => ChannelAssignment | null,
): ChannelIndex | null {
  const n = items.length;
  let index: ChannelIndex | null = null;
  for (let i = 0; i < n; i++) {
    const assignment = channelsOf(items[i]!);
    if (!assignment) continue;
    index ??= { any: new Bitset(n), include: new Map(), exclude: new Map() };
    const map = assignment.include ? index.include : index.exclude;
    for (const id of assignment.ids) {
      let b = map.get(id);
      if (!b) map.set(id, (b = new Bitset(n)));
      b.set(i);
    }
  }
  if (index) for (let i = 0; i < n; i++) if (!channelsOf(items[i]!)?.include) index.any.set(i);
  return index;
}

/** words AND what channel `channelId` passes: the campaigns of every channel, those assigned to it, not those that leave it out. */
function narrowByChannel(words: Uint32Array, index: ChannelIndex, channelId: number): void {
  narrow(words, index.any.words, index.include.get(channelId)?.words, index.exclude.get(channelId)?.words);
}
