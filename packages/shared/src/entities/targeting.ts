import { z } from 'zod';
import { TIMEZONE_MAX, TIMEZONE_MIN } from '../constants.js';
import { isCountry } from '../reference/countries.js';
import { isIabCategory } from '../reference/iabCategories.js';
import {
  BROWSER_FAMILY_BY_ID,
  DEVICE_TYPE_BY_ID,
  OPERATING_SYSTEM_BY_ID,
  SMART_TV_FAMILY_BY_ID,
} from '../reference/platforms.js';
import { countriesOfRegion, isRegion } from '../reference/regions.js';
import { isUsState } from '../reference/usStates.js';
import { id } from './common.js';

/**
 * Typed targeting, shared by reusable Targetings and by what the edge compiles into its indexes.
 * A filter with no values means "any". Every code (countries, regions, US states, IAB categories,
 * devices, operating systems, browsers, TV families) must be one of the reference data's ids: the edge
 * matches on exactly these, so an unknown code would silently never match.
 */
export const FILTER_MODES = ['include', 'exclude'] as const;

const code = z.string().trim().min(1).max(64);
const Filter = z
  .object({
    mode: z.enum(FILTER_MODES).default('include'),
    values: z.array(code).max(5000, 'must hold at most 5000 values').default([]),
  })
  .default({ mode: 'include', values: [] })
  .transform((f) => ({ mode: f.mode, values: [...new Set(f.values)] }));
type Filter = z.infer<typeof Filter>;

/** A filter of free text (cities, postal codes, key-values), checked by its own rule (TEXT_FILTERS). */
const TextFilter = z
  .object({
    mode: z.enum(FILTER_MODES).default('include'),
    values: z.array(z.string().trim().min(1).max(160)).max(5000, 'must hold at most 5000 values').default([]),
  })
  .default({ mode: 'include', values: [] })
  .transform((f) => ({ mode: f.mode, values: [...new Set(f.values)] }));

const listRefs = z
  .object({
    mode: z.enum(FILTER_MODES).default('include'),
    ids: z.array(id).max(100).default([]),
  })
  .default({ mode: 'include', ids: [] })
  .transform((f) => ({ mode: f.mode, ids: [...new Set(f.ids)] }));

export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/** Day-parting: hours 0..23 on days 0 (Monday)..6, in the time zone given (the user's, by default). */
export const DayParting = z
  .object({
    enabled: z.boolean().default(false),
    timezone: z.number().int().min(TIMEZONE_MIN).max(TIMEZONE_MAX).default(0),
    days: z.array(z.number().int().min(0).max(6)).max(7).default([0, 1, 2, 3, 4, 5, 6]),
    hours: z
      .array(z.number().int().min(0).max(23))
      .max(24)
      .default(Array.from({ length: 24 }, (_, h) => h)),
  })
  .default({ enabled: false, timezone: 0, days: [0, 1, 2, 3, 4, 5, 6], hours: Array.from({ length: 24 }, (_, h) => h) })
  .refine((d) => !d.enabled || (d.days.length > 0 && d.hours.length > 0), 'must keep at least one day and one hour');

/**
 * Player sizes by the player's width in pixels: a request matches the size whose bounds hold its
 * width (minWidth inclusive, maxWidth exclusive; null = no upper bound).
 */
export const PLAYER_SIZES = [
  { id: 'small', label: 'Small (< 400 px wide)', minWidth: 0, maxWidth: 400 },
  { id: 'medium', label: 'Medium (400-639 px)', minWidth: 400, maxWidth: 640 },
  { id: 'large', label: 'Large (640-1279 px)', minWidth: 640, maxWidth: 1280 },
  { id: 'xlarge', label: 'Extra large (1280 px and up)', minWidth: 1280, maxWidth: null },
] as const satisfies readonly { id: string; label: string; minWidth: number; maxWidth: number | null }[];
const PLAYER_SIZE_IDS = PLAYER_SIZES.map((s) => s.id) as unknown as readonly ['small', 'medium', 'large', 'xlarge'];
export type PlayerSizeId = (typeof PLAYER_SIZE_IDS)[number];

/** The size a player of this width falls in. */
export function playerSizeOf(width: number): PlayerSizeId {
  return PLAYER_SIZES.find((s) => width >= s.minWidth && (s.maxWidth === null || width < s.maxWidth))?.id ?? 'small';
}

/**
 * A city as a targeting names it: the country's ISO code, optionally its region's code (the US
 * state, the ISO 3166-2 suffix elsewhere), and the city's English name as MaxMind writes it:
 * `US:Mountain View`, `US-CA:Mountain View`. Matched without regard to case.
 */
const CITY = /^([A-Z]{2})(-[A-Z0-9]{1,3})?:([^:,;=]{1,100})$/;
export const isCityCode = (v: string): boolean => {
  const m = CITY.exec(v);
  return !!m && isCountry(m[1]!) && m[3]!.trim() === m[3];
};

/** A Nielsen DMA (designated market area) code, as MaxMind's `metro_code` gives it: 500-899 (`807`, San Francisco). */
export const isMetroCode = (v: string): boolean => /^[5-8]\d\d$/.test(v);

/** A postal code with its country: `US:94043`, `GB:E1`, `CA:M5V` (MaxMind gives the first part of a long code). */
const POSTAL = /^([A-Z]{2}):([A-Za-z0-9][A-Za-z0-9 -]{0,9})$/;
export const isPostalCode = (v: string): boolean => {
  const m = POSTAL.exec(v);
  return !!m && isCountry(m[1]!) && m[2]!.trim() === m[2];
};

/**
 * A key-value pair of a tag's custom parameters: `genre=sports`. Keys are letters, digits, `_`, `.`
 * and `-` (up to 40); a value up to 100 characters without `=`, `,`, `;` or `&` (what separates pairs
 * and values in a tag). Matched without regard to case.
 */
const KEY_VALUE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,39}=[^=,;&]{1,100}$/;
export const isKeyValue = (v: string): boolean => KEY_VALUE.test(v) && v.slice(v.indexOf('=') + 1).trim().length > 0;

/** The rule each free-text filter is checked with, and how an error names it. */
const TEXT_FILTERS = {
  cities: { valid: isCityCode, what: 'city (CC:City or CC-RR:City)' },
  metros: { valid: isMetroCode, what: 'metro code (a Nielsen DMA code, 500-899)' },
  postalCodes: { valid: isPostalCode, what: 'postal code (CC:code)' },
  keyValues: { valid: isKeyValue, what: 'key=value pair' },
} as const satisfies Record<string, { valid: (v: string) => boolean; what: string }>;
type TextFilterKey = keyof typeof TEXT_FILTERS;
const TEXT_FILTER_KEYS = Object.keys(TEXT_FILTERS) as TextFilterKey[];

/** The reference list each code filter is checked against, and how an error names it. */
const CODE_FILTERS = {
  countries: { valid: isCountry, what: 'country code' },
  regions: { valid: (v: string) => isRegion(v) || isCountry(v), what: 'region or country' },
  usStates: { valid: isUsState, what: 'US state' },
  devices: { valid: (v: string) => DEVICE_TYPE_BY_ID.has(v), what: 'device type' },
  os: { valid: (v: string) => OPERATING_SYSTEM_BY_ID.has(v), what: 'operating system' },
  browsers: { valid: (v: string) => BROWSER_FAMILY_BY_ID.has(v), what: 'browser family' },
  tvFamilies: { valid: (v: string) => SMART_TV_FAMILY_BY_ID.has(v), what: 'TV family' },
  iabCategories: { valid: isIabCategory, what: 'IAB category' },
} as const satisfies Record<string, { valid: (v: string) => boolean; what: string }>;
type CodeFilterKey = keyof typeof CODE_FILTERS;
const CODE_FILTER_KEYS = Object.keys(CODE_FILTERS) as CodeFilterKey[];

/** `Windoze is not an operating system` / `A, B are not IAB categories`-style message, or null. */
export function unknownCodes(values: readonly string[], valid: (v: string) => boolean, what: string): string | null {
  const bad = values.filter((v) => !valid(v));
  if (!bad.length) return null;
  return bad.length > 1 ? `${bad.slice(0, 10).join(', ')} are not known (${what})` : `${bad[0]} is not a known ${what}`;
}

/**
 * Ad categories a targeting blocks (brand safety): IAB Content Taxonomy 1.0 codes, the reference list
 * of `iabCategories`, a tier-1 code blocking its sub-categories (IAB7 blocks IAB7-39). Unlike
 * `iabCategories`, which is about the request's content and refuses requests, this refuses ads: our
 * creatives by their categories, demand's answers by theirs, and it is sent to programmatic demand as
 * OpenRTB `bcat`. A list, not a filter: there is nothing to include.
 */
const BlockedAdCategories = z
  .array(code)
  .max(500, 'must hold at most 500 categories')
  .default([])
  .transform((v) => [...new Set(v)]);

export const TargetingRules = z
  .object({
    countries: Filter,
    /** Region tree selections: region ids (APAC, EMEA, ...) expand to their countries. */
    regions: Filter,
    usStates: Filter,
    cities: TextFilter,
    metros: TextFilter,
    postalCodes: TextFilter,
    devices: Filter,
    os: Filter,
    browsers: Filter,
    tvFamilies: Filter,
    iabCategories: Filter,
    blockedAdCategories: BlockedAdCategories,
    appLists: listRefs,
    pubLists: listRefs,
    creLists: listRefs,
    /** IP lists (addresses and CIDR ranges) the viewer's address must be in (include) or not (exclude). */
    ipLists: listRefs,
    /** Key-value pairs of the request's custom parameters: include, for each key named, one of its values; exclude, none. */
    keyValues: TextFilter,
    playerSizes: z.array(z.enum(PLAYER_SIZE_IDS)).default([]),
    dayParting: DayParting,
  })
  .superRefine((rules, ctx) => {
    for (const key of CODE_FILTER_KEYS) {
      const { valid, what } = CODE_FILTERS[key];
      const message = unknownCodes(rules[key].values, valid, what);
      if (message) ctx.addIssue({ code: 'custom', path: [key], message });
    }
    for (const key of TEXT_FILTER_KEYS) {
      const { valid, what } = TEXT_FILTERS[key];
      const message = unknownCodes(rules[key].values, valid, what);
      if (message) ctx.addIssue({ code: 'custom', path: [key], message });
    }
    const blocked = unknownCodes(rules.blockedAdCategories, isIabCategory, 'IAB category');
    if (blocked) ctx.addIssue({ code: 'custom', path: ['blockedAdCategories'], message: blocked });
  });
export type TargetingRules = z.infer<typeof TargetingRules>;

export const emptyTargetingRules = (): TargetingRules => TargetingRules.parse({});

/**
 * The geo rule, stated once. Included countries: countries.include plus the countries of
 * regions.include (empty = any country). Excluded countries: countries.exclude plus the countries of
 * regions.exclude. A request passes when its country is in the included set (or that set is empty)
 * and not in the excluded set. US states, include: the request must be in the US and in one of the
 * states; exclude: a US request in one of them fails. An unknown country (or state) fails any
 * non-empty include.
 */
export interface GeoSets {
  include: ReadonlySet<string>;
  exclude: ReadonlySet<string>;
  statesInclude: ReadonlySet<string>;
  statesExclude: ReadonlySet<string>;
}

/** Compile the geo part of a targeting once (the edge keeps this per targeting, not per request). */
export function geoSets(rules: Pick<TargetingRules, 'countries' | 'regions' | 'usStates'>): GeoSets {
  const expand = (values: readonly string[]): string[] =>
    values.flatMap((v): string[] => (isRegion(v) ? [...countriesOfRegion(v)] : [v]));
  const side = (mode: 'include' | 'exclude'): string[] => [
    ...(rules.countries.mode === mode ? rules.countries.values : []),
    ...(rules.regions.mode === mode ? expand(rules.regions.values) : []),
  ];
  return {
    include: new Set(side('include')),
    exclude: new Set(side('exclude')),
    statesInclude: new Set(rules.usStates.mode === 'include' ? rules.usStates.values : []),
    statesExclude: new Set(rules.usStates.mode === 'exclude' ? rules.usStates.values : []),
  };
}

/** Whether a request from `country` (ISO alpha-2, or null when unknown) and `usState` passes the geo rule. */
export function passesGeo(sets: GeoSets, country: string | null, usState: string | null = null): boolean {
  if (sets.include.size > 0 && (country === null || !sets.include.has(country))) return false;
  if (country !== null && sets.exclude.has(country)) return false;
  if (sets.statesInclude.size > 0 && (country !== 'US' || usState === null || !sets.statesInclude.has(usState)))
    return false;
  if (country === 'US' && usState !== null && sets.statesExclude.has(usState)) return false;
  return true;
}
