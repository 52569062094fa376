import {
  BROWSER_FAMILY_BY_ID,
  DEVICE_TYPE_BY_ID,
  OPERATING_SYSTEM_BY_ID,
  PLAYER_SIZES,
  REGION_BY_ID,
  SMART_TV_FAMILY_BY_ID,
  US_STATE_BY_ID,
  countryName,
  iabCategoryLabel,
  type TargetingRules,
} from '@adplane/shared';
import { describeDayParting } from './dayParting.js';
import { iabLeaves } from './trees.js';

/**
 * One line per targeting for the list page ('Countries: US, CA · Devices: SmartTV · IAB −2 ·
 * Blocked ads: 3 · Day-parting') and the longer lines of its tooltip. An include filter reads 'Label: values', an
 * exclude filter 'Label −values'; up to three values are named, more are counted ('+9').
 */

type FilterLike = { mode?: string; values?: readonly string[] };
type ListLike = { mode?: string; ids?: readonly number[] };
/** Rules as rows carry them; missing filters read as "any". */
export type RulesLike = Partial<Omit<TargetingRules, 'dayParting'>> & {
  dayParting?: Partial<TargetingRules['dayParting']>;
};

const SHOWN = 3;
const PLAYER_SHORT: Record<string, string> = { small: 'Small', medium: 'Medium', large: 'Large', xlarge: 'XL' };
const regionShort = (id: string) => (id === 'MINA' ? 'MENA' : id);
/** `US-CA:Mountain View` -> `Mountain View`, `US:94043` -> `94043`. */
const afterColon = (v: string) => v.slice(v.indexOf(':') + 1);
const nameOf = (map: ReadonlyMap<string, { name: string }>) => (id: string) => map.get(id)?.name ?? id;

function shortList(values: readonly string[], label: (v: string) => string): string {
  const named = values.slice(0, SHOWN).map(label).join(', ');
  return values.length > SHOWN ? `${named} +${values.length - SHOWN}` : named;
}

function part(label: string, mode: string | undefined, text: string): string {
  return mode === 'exclude' ? `${label} −${text}` : `${label}: ${text}`;
}

const FILTERS: { key: keyof RulesLike; label: string; short: (v: string) => string; count?: boolean }[] = [
  { key: 'countries', label: 'Countries', short: (v) => v },
  { key: 'regions', label: 'Regions', short: regionShort },
  { key: 'usStates', label: 'US states', short: (v) => v },
  { key: 'cities', label: 'Cities', short: afterColon },
  { key: 'metros', label: 'Metros', short: (v) => v },
  { key: 'postalCodes', label: 'Postal codes', short: afterColon },
  { key: 'devices', label: 'Devices', short: nameOf(DEVICE_TYPE_BY_ID) },
  { key: 'os', label: 'OS', short: nameOf(OPERATING_SYSTEM_BY_ID) },
  { key: 'browsers', label: 'Browsers', short: nameOf(BROWSER_FAMILY_BY_ID) },
  { key: 'tvFamilies', label: 'TV', short: nameOf(SMART_TV_FAMILY_BY_ID) },
  { key: 'iabCategories', label: 'IAB', short: (v) => v, count: true },
  { key: 'keyValues', label: 'Key-values', short: (v) => v },
];
type ListKey = 'appLists' | 'pubLists' | 'creLists' | 'ipLists';
const LISTS: { key: ListKey; label: string; long: string }[] = [
  { key: 'appLists', label: 'App lists', long: 'app lists' },
  { key: 'pubLists', label: 'Publisher lists', long: 'publisher lists' },
  { key: 'creLists', label: 'Creative lists', long: 'creative lists' },
  { key: 'ipLists', label: 'IP lists', long: 'IP lists' },
];

/** The parts of the one-line summary, in the order of the form. */
export function targetingParts(rules: RulesLike | null | undefined): string[] {
  if (!rules) return [];
  const parts: string[] = [];
  for (const f of FILTERS) {
    const filter = rules[f.key] as FilterLike | undefined;
    const values = filter?.values ?? [];
    if (values.length === 0) continue;
    parts.push(part(f.label, filter?.mode, f.count ? String(values.length) : shortList(values, f.short)));
  }
  // blocked ad categories refuse ads, not requests: a list of their own, counted
  const blocked = rules.blockedAdCategories ?? [];
  if (blocked.length) parts.push(`Blocked ads: ${blocked.length}`);
  for (const l of LISTS) {
    const list = rules[l.key] as ListLike | undefined;
    const ids = list?.ids ?? [];
    if (ids.length) parts.push(part(l.label, list?.mode, String(ids.length)));
  }
  const sizes = rules.playerSizes ?? [];
  if (sizes.length) parts.push(`Player: ${shortList(sizes, (s) => PLAYER_SHORT[s] ?? s)}`);
  if (rules.dayParting?.enabled) parts.push('Day-parting');
  return parts;
}

/** 'Countries: US, CA · Devices: SmartTV · IAB −2 · Day-parting'; 'Any traffic' when no rule is set. */
export function summarizeTargeting(rules: RulesLike | null | undefined): string {
  const parts = targetingParts(rules);
  return parts.length ? parts.join(' · ') : 'Any traffic (no rules)';
}

const LONG_SHOWN = 12;
function longList(values: readonly string[], label: (v: string) => string): string {
  const named = values.slice(0, LONG_SHOWN).map(label).join(', ');
  return values.length > LONG_SHOWN ? `${named} and ${values.length - LONG_SHOWN} more` : named;
}

const iabLong = (id: string) => {
  const leaves = iabLeaves([id]);
  return leaves.size > 1 ? `${iabCategoryLabel(id)} (all ${leaves.size})` : iabCategoryLabel(id);
};

const LONG: Record<string, { what: string; label: (v: string) => string }> = {
  countries: { what: 'countries', label: countryName },
  regions: { what: 'regions', label: (v) => REGION_BY_ID.get(v)?.name ?? countryName(v) },
  usStates: { what: 'US states', label: nameOf(US_STATE_BY_ID) },
  cities: { what: 'cities', label: (v) => v },
  metros: { what: 'metros (Nielsen DMA)', label: (v) => v },
  postalCodes: { what: 'postal codes', label: (v) => v },
  keyValues: { what: 'key-values', label: (v) => v },
  devices: { what: 'devices', label: nameOf(DEVICE_TYPE_BY_ID) },
  os: { what: 'operating systems', label: nameOf(OPERATING_SYSTEM_BY_ID) },
  browsers: { what: 'browsers', label: nameOf(BROWSER_FAMILY_BY_ID) },
  tvFamilies: { what: 'TV families', label: nameOf(SMART_TV_FAMILY_BY_ID) },
  iabCategories: { what: 'IAB categories', label: iabLong },
};

/** The tooltip of the summary: one full sentence per rule ('Exclude IAB categories: Automotive (all 22), ...'). */
export function describeTargeting(
  rules: RulesLike | null | undefined,
  listName: (kind: ListKey, id: number) => string = (_k, id) => `#${id}`,
): string[] {
  if (!rules) return [];
  const lines: string[] = [];
  for (const f of FILTERS) {
    const filter = rules[f.key] as FilterLike | undefined;
    const values = filter?.values ?? [];
    if (values.length === 0) continue;
    const l = LONG[f.key];
    lines.push(`${filter?.mode === 'exclude' ? 'Exclude' : 'Include'} ${l.what}: ${longList(values, l.label)}`);
  }
  const blocked = rules.blockedAdCategories ?? [];
  if (blocked.length) lines.push(`Blocked ad categories: ${longList(blocked, iabLong)}`);
  for (const l of LISTS) {
    const list = rules[l.key] as ListLike | undefined;
    const ids = list?.ids ?? [];
    if (ids.length)
      lines.push(
        `${list?.mode === 'exclude' ? 'Exclude' : 'Include'} ${l.long}: ${ids.map((id) => listName(l.key, id)).join(', ')}`,
      );
  }
  const sizes = rules.playerSizes ?? [];
  if (sizes.length)
    lines.push(`Player sizes: ${sizes.map((s) => PLAYER_SIZES.find((p) => p.id === s)?.label ?? s).join(', ')}`);
  const dp = rules.dayParting;
  if (dp?.enabled) {
    lines.push(
      `Day-parting: ${describeDayParting({ enabled: true, timezone: dp.timezone ?? 0, days: dp.days ?? [], hours: dp.hours ?? [] })}`,
    );
  }
  return lines;
}
