import { z } from 'zod';
import { formatUsdMicros } from '../format.js';

/**
 * Floor rules in the shape of Prebid's floors module data: a schema of fields, the rules' values
 * (a key per rule: one value or `*` per field, joined by the delimiter, and its floor CPM in
 * dollars) and a default. A request's floor is the most specific rule that matches it, selected as
 * Prebid's floors module selects one:
 *
 * - each field gives the request's value (lower-cased) and `*`; a field the request has no value for
 *   gives `*` only;
 * - every combination is tried, those with fewer `*` first, ties in the order the combinations are
 *   made (the first field's own value before its `*`, then the second's...), so a `*` in a later
 *   field is tried before one in an earlier field;
 * - the first key that is a rule gives its floor; none: the rule set's `default`, else none.
 *
 * Fields: Prebid's names `mediaType` (`video` or `banner`), `size` (`<w>x<h>`), `domain` (the site's),
 * `bundle` (the app's), `country` (ISO 3166-1 alpha-2, as the edge's geo lookup gives it),
 * `deviceType` (`mobile`, `desktop` or `smarttv`), and adplane's `hourOfDay` (0 to 23, UTC) and
 * `deal` (the first deal id of an OpenRTB impression's `pmp`).
 */
export const FLOOR_FIELDS = [
  'mediaType',
  'size',
  'domain',
  'bundle',
  'country',
  'deviceType',
  'hourOfDay',
  'deal',
] as const;
export type FloorField = (typeof FLOOR_FIELDS)[number];

const MAX_RULES = 5000;
const MAX_FLOOR = 10_000;

const floorDollars = z
  .number({ error: 'must be a CPM in dollars' })
  .min(0, 'must not be negative')
  .max(MAX_FLOOR, `must be at most ${MAX_FLOOR}`);

export const FloorRules = z
  .object({
    schema: z.object({
      fields: z
        .array(z.enum(FLOOR_FIELDS, { error: `must be one of ${FLOOR_FIELDS.join(', ')}` }))
        .min(1, 'must name at least one field')
        .refine((f) => new Set(f).size === f.length, 'names a field twice'),
      delimiter: z
        .string()
        .length(1, 'must be one character')
        .refine((d) => d !== '*', 'must not be *')
        .default('|'),
    }),
    values: z
      .record(z.string().max(512, 'must be at most 512 characters'), floorDollars)
      .refine((v) => Object.keys(v).length <= MAX_RULES, `must hold at most ${MAX_RULES} rules`),
    default: floorDollars.optional(),
    currency: z.literal('USD', { error: "must be 'USD'" }).default('USD'),
  })
  .superRefine((r, ctx) => {
    const n = r.schema.fields.length;
    const seen = new Set<string>();
    for (const key of Object.keys(r.values)) {
      const parts = key.split(r.schema.delimiter);
      if (parts.length !== n) {
        ctx.addIssue({
          code: 'custom',
          path: ['values', key],
          message: `must have ${n} part${n === 1 ? '' : 's'} (${r.schema.fields.join(r.schema.delimiter)}), has ${parts.length}`,
        });
        continue;
      }
      const empty = parts.findIndex((p) => p.trim() === '');
      if (empty >= 0)
        ctx.addIssue({
          code: 'custom',
          path: ['values', key],
          message: `has no value for ${r.schema.fields[empty]} (use * for any)`,
        });
      const lower = key.toLowerCase();
      if (seen.has(lower))
        ctx.addIssue({ code: 'custom', path: ['values', key], message: 'repeats a rule (keys are case-insensitive)' });
      seen.add(lower);
    }
  });
export type FloorRules = z.output<typeof FloorRules>;
export type FloorRulesInput = z.input<typeof FloorRules>;

/** A request's value per field; '' (or absent) when it has none. */
export type FloorFacts = Partial<Record<FloorField, string>>;

/**
 * A rule set compiled once: the rules by lower-cased key, and the wildcard patterns to try in order
 * (bit i of a pattern: field i is `*`), only those some rule has, so a request costs a few lookups.
 */
export interface CompiledFloorRules {
  fields: readonly FloorField[];
  delimiter: string;
  /** Floor CPM in micro-dollars by lower-cased rule key. */
  rules: ReadonlyMap<string, number>;
  /** Patterns in Prebid's order, restricted to those a rule has. */
  patterns: readonly number[];
  /** The rule set's default in micro-dollars, null when it has none. */
  defaultCpm: number | null;
}

export interface FloorMatch {
  /** The rule's key as the rule set writes it (lower-cased), or null when the default applied. */
  rule: string | null;
  floorCpm: number;
}

const toMicros = (dollars: number): number => Math.round(dollars * 1_000_000);

const bitCount = (n: number): number => {
  let c = 0;
  for (let v = n; v; v &= v - 1) c++;
  return c;
};

/**
 * Prebid's order of wildcard patterns for `n` fields: the combinations as made (first field outermost,
 * its value before its `*`), then sorted stably by their number of `*`.
 */
export function wildcardOrder(n: number): number[] {
  const made: number[] = [];
  // combination index i, first field as its most significant bit; a 1 bit is that field's `*`
  for (let i = 0; i < 1 << n; i++) {
    let pattern = 0;
    for (let f = 0; f < n; f++) if (i & (1 << (n - 1 - f))) pattern |= 1 << f;
    made.push(pattern);
  }
  return made
    .map((p, i) => ({ p, i, c: bitCount(p) }))
    .sort((a, b) => a.c - b.c || a.i - b.i)
    .map((x) => x.p);
}

export function compileFloorRules(r: FloorRules): CompiledFloorRules {
  const { fields, delimiter } = r.schema;
  const rules = new Map<string, number>();
  const present = new Set<number>();
  for (const [key, floor] of Object.entries(r.values)) {
    const parts = key.toLowerCase().split(delimiter);
    if (parts.length !== fields.length) continue;
    let pattern = 0;
    parts.forEach((p, f) => {
      if (p === '*') pattern |= 1 << f;
    });
    present.add(pattern);
    rules.set(parts.join(delimiter), toMicros(floor));
  }
  return {
    fields,
    delimiter,
    rules,
    patterns: wildcardOrder(fields.length).filter((p) => present.has(p)),
    defaultCpm: r.default === undefined ? null : toMicros(r.default),
  };
}

/** The floor a request's facts get under a compiled rule set: the first matching rule, else the default, else null. */
export function matchFloor(c: CompiledFloorRules, facts: FloorFacts): FloorMatch | null {
  const n = c.fields.length;
  const values: string[] = new Array(n);
  let missing = 0;
  for (let f = 0; f < n; f++) {
    const v = facts[c.fields[f]!];
    values[f] = v ? v.toLowerCase() : '*';
    if (!v) missing |= 1 << f;
  }
  for (const pattern of c.patterns) {
    // a field without a value is `*` in every combination tried
    if ((pattern & missing) !== missing) continue;
    let key = '';
    for (let f = 0; f < n; f++) key += (f ? c.delimiter : '') + (pattern & (1 << f) ? '*' : values[f]);
    const floor = c.rules.get(key);
    if (floor !== undefined) return { rule: key, floorCpm: floor };
  }
  return c.defaultCpm === null ? null : { rule: null, floorCpm: c.defaultCpm };
}

/**
 * The floor a decision held demand to, and why: the channel's rule set's rule (`rule`, its key) or
 * default (`rule` null), its dynamic floors' (`dynamic`: how they were computed), the account's, or
 * the channel's static `floorCpm` when no rule set applies or its rules and default match nothing.
 */
export interface FloorInForce {
  source: 'channel' | 'account' | 'static' | 'dynamic';
  rule: string | null;
  floorCpm: number;
  /** `source` 'dynamic': how the channel's clearing prices gave this floor (dynamicFloors.ts). */
  dynamic?: DynamicFloorBasis;
}

/** Which way a measured percentile was moved to stay in a dynamic floor's bounds. */
export type FloorClamp = 'min' | 'max' | null;

/** How a dynamic floor in force was reached (the decision trace's `channel.floor.dynamic`). */
export interface DynamicFloorBasis {
  percentile: number;
  windowHours: number;
  minImpressions: number;
  impressions: number;
  measuredCpm: number | null;
  clamped: FloorClamp;
  /** When the table was computed (ISO); null: not yet, the channel's floor within its bounds applies. */
  computedAt: string | null;
}

const ordinal = (n: number): string => {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
};

/** Why a dynamic floor is what it is, in words (the channel's floor table, the trace, the tag test). */
export function dynamicFloorWhy(b: DynamicFloorBasis, bounds?: { minCpm: number; maxCpm: number }): string {
  const window = `the last ${b.windowHours} h`;
  const clamp =
    b.clamped === 'min'
      ? `, raised to the minimum${bounds ? ` ${formatUsdMicros(bounds.minCpm)}` : ''}`
      : b.clamped === 'max'
        ? `, lowered to the maximum${bounds ? ` ${formatUsdMicros(bounds.maxCpm)}` : ''}`
        : '';
  if (b.computedAt === null) return `not computed yet: the channel's floor CPM within its minimum and maximum${clamp}`;
  if (b.measuredCpm === null)
    return `too few impressions over ${window} (${b.impressions.toLocaleString('en-US')}, a floor needs ${b.minImpressions.toLocaleString('en-US')}): the channel's floor CPM${clamp}`;
  return `the ${ordinal(b.percentile)} percentile of ${b.impressions.toLocaleString('en-US')} impressions' clearing prices over ${window} (${formatUsdMicros(b.measuredCpm)})${clamp}`;
}

/** The floor in force and why, in a sentence (the console's trace view and the rules editor's preview). */
export function floorInForceText(f: FloorInForce): string {
  const amount = f.floorCpm > 0 ? formatUsdMicros(f.floorCpm) : 'No floor';
  if (f.source === 'static') return `${amount}: the channel's floor CPM (no floor rule applies to this request)`;
  if (f.source === 'dynamic')
    return `${amount}: the channel's dynamic floor${f.rule === null ? '' : ` for ${f.rule}`}${f.dynamic ? `: ${dynamicFloorWhy(f.dynamic)}` : ''}`;
  const whose = f.source === 'channel' ? "the channel's" : "the account's";
  return f.rule === null
    ? `${amount}: the default of ${whose} floor rules (no rule matches this request)`
    : `${amount}: ${whose} floor rule ${f.rule} (the most specific rule this request matches)`;
}
