import {
  geoSets,
  type GeoSets,
  passesGeo,
  TARGETING_MISS_VALUES,
  type TargetingMiss,
  type TargetingRules,
} from '@adplane/shared';
import { iabParentOf } from '../request/contentCategories.js';
import { type RequestContext } from '../request/context.js';
import { NO_KEY_VALUES } from '../request/keyValues.js';
import { type IpList, ipListHas, parseViewerAddress } from './ipLists.js';

/**
 * A targeting compiled once per snapshot into sets and a 168-hour mask, matched per request with
 * the first rule that refuses named (the decision trace and the no-fill counters show it).
 */
export interface CodeSet {
  include: boolean;
  values: ReadonlySet<string>;
}

export interface CompiledTargeting {
  id: number;
  geo: GeoSets;
  devices: CodeSet | null;
  os: CodeSet | null;
  browsers: CodeSet | null;
  tvFamilies: CodeSet | null;
  iabCategories: CodeSet | null;
  /**
   * Ad categories it blocks (IAB 1.0, a tier-1 code blocking its sub-categories): never matched
   * against the request, but against ads (impFit.ts categoryBlocked) and sent as OpenRTB `bcat`.
   * Our creatives are checked through the set of blocked creative ids the snapshot compiles from it
   * (snapshot/categoryBlocks.ts). Null: none.
   */
  blockedAdCategories: readonly string[] | null;
  /** App bundles of the referenced app lists. */
  apps: CodeSet | null;
  /** Domains and publisher ids of the referenced publisher lists. */
  publishers: CodeSet | null;
  /** Creative ids and advertiser domains of the referenced creative lists (checked against a creative). */
  creatives: CodeSet | null;
  playerSizes: ReadonlySet<string> | null;
  /** Cities, `cc:city` or `cc-rr:city` in lower case (a request's `cityKeys`); MaxMind's answer alone knows the viewer's. */
  cities: CodeSet | null;
  /** Nielsen DMA codes (`807`). */
  metros: CodeSet | null;
  /** Postal codes, `cc:code` in lower case. */
  postalCodes: CodeSet | null;
  /** The IP lists it names (include: the viewer's address must be in one; exclude: in none). */
  ipLists: IpListRule | null;
  /** Key-value pairs, `key=value` in lower case: include, for each key, one of its values; exclude, none of the pairs. */
  keyValues: KeyValueRule | null;
  /** Bit (day * 24 + hour) set when serving is allowed, in UTC: the rule's time zone is applied at compile. */
  dayParts: Uint8Array | null;
}

export interface IpListRule {
  include: boolean;
  lists: readonly IpList[];
}

interface KeyValueRule extends CodeSet {
  /** Include: the rule's pairs by key (a request must carry one pair of each key). */
  byKey: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Items of the allow/block lists, by list id (kind-specific maps); IP lists compiled (ipLists.ts), absent: none. */
export interface ListItems {
  apps: ReadonlyMap<number, readonly string[]>;
  publishers: ReadonlyMap<number, readonly string[]>;
  creatives: ReadonlyMap<number, readonly string[]>;
  ips?: ReadonlyMap<number, IpList>;
}

const codeSet = (f: { mode: 'include' | 'exclude'; values: readonly string[] }): CodeSet | null =>
  f.values.length ? { include: f.mode === 'include', values: new Set(f.values) } : null;

function listSet(
  refs: { mode: 'include' | 'exclude'; ids: readonly number[] },
  items: ReadonlyMap<number, readonly string[]>,
): CodeSet | null {
  if (!refs.ids.length) return null;
  const values = new Set<string>();
  for (const id of refs.ids) for (const item of items.get(id) ?? []) values.add(item);
  return { include: refs.mode === 'include', values };
}

/** A filter of free-text codes (cities, postal codes, key-values), matched in lower case. */
const lowerSet = (f: { mode: 'include' | 'exclude'; values: readonly string[] }): CodeSet | null =>
  f.values.length ? { include: f.mode === 'include', values: new Set(f.values.map((v) => v.toLowerCase())) } : null;

function ipListRule(
  refs: { mode: 'include' | 'exclude'; ids: readonly number[] },
  lists: ListItems['ips'],
): IpListRule | null {
  if (!refs.ids.length) return null;
  const named: IpList[] = [];
  for (const id of refs.ids) {
    const list = lists?.get(id);
    if (list) named.push(list);
  }
  return { include: refs.mode === 'include', lists: named };
}

/** A pair as requests spell it: key and value trimmed, in lower case (request/keyValues.ts). */
const pairOf = (p: string): string => {
  const eq = p.indexOf('=');
  return `${p.slice(0, eq).trim()}=${p.slice(eq + 1).trim()}`.toLowerCase();
};

function keyValueRule(f: { mode: 'include' | 'exclude'; values: readonly string[] }): KeyValueRule | null {
  const set = lowerSet({ mode: f.mode, values: f.values.map(pairOf) });
  if (!set) return null;
  const byKey = new Map<string, Set<string>>();
  if (set.include)
    for (const pair of set.values) {
      const key = pair.slice(0, pair.indexOf('='));
      let values = byKey.get(key);
      if (!values) byKey.set(key, (values = new Set()));
      values.add(pair);
    }
  return { ...set, byKey };
}

function dayPartMask(d: TargetingRules['dayParting']): Uint8Array | null {
  if (!d.enabled) return null;
  const mask = new Uint8Array(168);
  for (const day of d.days) {
    for (const hour of d.hours) {
      // local (day, hour) at offset tz is UTC (day, hour - tz), wrapping around the week
      const utc = (((day * 24 + hour - d.timezone) % 168) + 168) % 168;
      mask[utc] = 1;
    }
  }
  return mask;
}

export function compileTargeting(id: number, rules: TargetingRules, lists: ListItems): CompiledTargeting {
  return {
    id,
    geo: geoSets(rules),
    devices: codeSet(rules.devices),
    os: codeSet(rules.os),
    browsers: codeSet(rules.browsers),
    tvFamilies: codeSet(rules.tvFamilies),
    iabCategories: codeSet(rules.iabCategories),
    blockedAdCategories: rules.blockedAdCategories.length ? [...rules.blockedAdCategories] : null,
    apps: listSet(rules.appLists, lists.apps),
    publishers: listSet(rules.pubLists, lists.publishers),
    creatives: listSet(rules.creLists, lists.creatives),
    playerSizes: rules.playerSizes.length ? new Set(rules.playerSizes) : null,
    cities: lowerSet(rules.cities),
    metros: codeSet(rules.metros),
    postalCodes: lowerSet(rules.postalCodes),
    ipLists: ipListRule(rules.ipLists, lists.ips),
    keyValues: keyValueRule(rules.keyValues),
    dayParts: dayPartMask(rules.dayParting),
  };
}

/** A set passes a value: include needs it (an unknown value fails), exclude refuses it. */
function passesSet(set: CodeSet | null, value: string): boolean {
  if (!set) return true;
  if (!value) return !set.include;
  return set.values.has(value) === set.include;
}

/**
 * A category rule passes a request's IAB categories: a rule on X matches a category that is X or a
 * sub-category of X (IAB1 matches IAB1-5, as the console promises). Include needs one category to
 * match (a request without any fails); exclude refuses the request when any one matches.
 */
function passesCategories(set: CodeSet | null, categories: readonly string[]): boolean {
  if (!set) return true;
  for (let i = 0; i < categories.length; i++) {
    const c = categories[i]!;
    const parent = iabParentOf(c);
    if (set.values.has(c) || (parent !== undefined && set.values.has(parent))) return set.include;
  }
  return !set.include;
}

/** A rule passes a request with several values (a city's two spellings): include needs one in the rule, exclude none. */
function passesAny(set: CodeSet | null, values: readonly string[]): boolean {
  if (!set) return true;
  for (let i = 0; i < values.length; i++) if (set.values.has(values[i]!)) return set.include;
  return !set.include;
}

/** Whether the viewer's address is in one of the rule's lists ('' and lists that are not live: in none). */
function inIpLists(rule: IpListRule, address: string): boolean {
  const family = parseViewerAddress(address);
  for (const list of rule.lists) if (ipListHas(list, address, family)) return true;
  return false;
}

/** Include: for each key the rule names, one of its pairs among the request's; exclude: none of its pairs. */
function passesKeyValues(rule: KeyValueRule | null, pairs: readonly string[]): boolean {
  if (!rule) return true;
  if (!rule.include) return passesAny(rule, pairs);
  for (const values of rule.byKey.values()) {
    let hit = false;
    for (let i = 0; i < pairs.length && !hit; i++) hit = values.has(pairs[i]!);
    if (!hit) return false;
  }
  return true;
}

/** The request's city as city rules match it (`cc:city`, `cc-rr:city`); none without a MaxMind City answer. */
const NO_CITY: readonly string[] = Object.freeze([]);
export const cityKeysOf = (ctx: RequestContext): readonly string[] => ctx.geo.place?.cityKeys ?? NO_CITY;

/** Monday = 0 hour-of-week in UTC. */
export function hourOfWeek(now: number): number {
  const d = new Date(now);
  return ((d.getUTCDay() + 6) % 7) * 24 + d.getUTCHours();
}

/** Why a request does not match, as a rule name ('country', 'device', ...), or null when it matches. */
export function refusal(t: CompiledTargeting, ctx: RequestContext): string | null {
  if (!passesGeo(t.geo, ctx.geo.country || null, ctx.geo.usState || null)) {
    return t.geo.statesInclude.size || t.geo.statesExclude.size ? 'geo' : 'country';
  }
  if (!passesAny(t.cities, cityKeysOf(ctx))) return 'city';
  if (!passesSet(t.metros, ctx.geo.place?.metro ?? '')) return 'metro';
  if (!passesSet(t.postalCodes, ctx.geo.place?.postalKey ?? '')) return 'postal_code';
  if (t.ipLists && inIpLists(t.ipLists, ctx.ip) !== t.ipLists.include) return 'ip_list';
  if (!passesSet(t.devices, ctx.platform.device)) return 'device';
  if (!passesSet(t.os, ctx.platform.os)) return 'os';
  if (!passesSet(t.browsers, ctx.platform.browser)) return 'browser';
  if (!passesSet(t.tvFamilies, ctx.platform.tvFamily)) return 'tv_family';
  if (t.playerSizes && !t.playerSizes.has(ctx.playerSize)) return 'player_size';
  if (!passesSet(t.apps, ctx.appBundle)) return 'app_list';
  if (
    t.publishers &&
    !passesSet(t.publishers, ctx.domain) &&
    !(ctx.appBundle && passesSet(t.publishers, ctx.appBundle))
  )
    return 'publisher_list';
  if (!passesKeyValues(t.keyValues, ctx.keyValues ?? NO_KEY_VALUES)) return 'key_value';
  if (!passesCategories(t.iabCategories, ctx.iabCategories)) return 'iab_category';
  if (t.dayParts && !t.dayParts[hourOfWeek(ctx.now)]) return 'day_part';
  return null;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** An hour of the week (Monday 00:00 UTC = 0) as words: "Tue 14:00 UTC". */
const hourOfWeekText = (h: number): string =>
  `${WEEKDAYS[Math.floor(h / 24)]} ${String(h % 24).padStart(2, '0')}:00 UTC`;

/** A rule's values as a miss lists them: the first TARGETING_MISS_VALUES (a list may hold thousands), and how many more. */
function missOf(rule: string, set: { include: boolean; values: ReadonlySet<string> }, viewer: string): TargetingMiss {
  const values: string[] = [];
  for (const v of set.values) {
    if (values.length === TARGETING_MISS_VALUES) break;
    values.push(v);
  }
  return { rule, include: set.include, values, more: set.values.size - values.length, viewer };
}

/**
 * The rule `refusal` named, with its values and the request's (a traced request's trace: allocates).
 * A `geo` refusal is told as the part of it that refused: the country (`country`) or the US state (`geo`).
 */
export function targetingMiss(t: CompiledTargeting, ctx: RequestContext, rule: string): TargetingMiss {
  const { geo, platform } = ctx;
  switch (rule) {
    case 'country':
    case 'geo': {
      const country = geo.country;
      if (t.geo.include.size && !t.geo.include.has(country))
        return missOf('country', { include: true, values: t.geo.include }, country);
      if (country && t.geo.exclude.has(country))
        return missOf('country', { include: false, values: t.geo.exclude }, country);
      const state = country === 'US' ? geo.usState : '';
      return t.geo.statesInclude.size
        ? missOf('geo', { include: true, values: t.geo.statesInclude }, state)
        : missOf('geo', { include: false, values: t.geo.statesExclude }, state);
    }
    case 'city': {
      const place = geo.place;
      return missOf(rule, t.cities!, place?.city ? place.cityKeys[place.cityKeys.length - 1]! : '');
    }
    case 'metro':
      return missOf(rule, t.metros!, geo.place?.metro ?? '');
    case 'postal_code':
      return missOf(rule, t.postalCodes!, geo.place?.postalKey ?? '');
    case 'ip_list': {
      const { include, lists } = t.ipLists!;
      return missOf(rule, { include, values: new Set(lists.map((l) => l.name)) }, ctx.ip);
    }
    case 'key_value':
      return missOf(rule, t.keyValues!, (ctx.keyValues ?? NO_KEY_VALUES).join(','));
    case 'device':
      return missOf(rule, t.devices!, platform.device);
    case 'os':
      return missOf(rule, t.os!, platform.os);
    case 'browser':
      return missOf(rule, t.browsers!, platform.browser);
    case 'tv_family':
      return missOf(rule, t.tvFamilies!, platform.tvFamily);
    case 'player_size':
      return missOf(rule, { include: true, values: t.playerSizes! }, ctx.playerSize);
    case 'app_list':
      return missOf(rule, t.apps!, ctx.appBundle);
    case 'publisher_list':
      return missOf(rule, t.publishers!, ctx.domain || ctx.appBundle);
    case 'iab_category':
      return missOf(rule, t.iabCategories!, ctx.iabCategories.join(','));
    default:
      return { rule, include: true, values: [], more: 0, viewer: hourOfWeekText(hourOfWeek(ctx.now)) };
  }
}

/** A creative list refuses a creative by id or by one of its advertiser domains. */
export function creativeRefusal(
  t: CompiledTargeting | null,
  creativeId: number,
  adomains: readonly string[],
): string | null {
  if (!t?.creatives) return null;
  const hit = t.creatives.values.has(String(creativeId)) || adomains.some((d) => t.creatives!.values.has(d));
  return hit === t.creatives.include ? null : 'creative_list';
}
