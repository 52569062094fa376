import { z } from 'zod';
import { micros } from '../entities/common.js';
import { type FloorClamp, type FloorField, type FloorRules } from './floorRules.js';

/**
 * Dynamic floors: a channel's floor set from its own recent clearing prices. Every hour the api role
 * reads the channel's impressions of the last `windowHours` from the stats store, per country and
 * device type (the `dimensions` chosen), takes the `percentile` of their clearing prices, clamps it
 * to `minCpm`..`maxCpm`, and stores the result as a floor table; the edge applies that table as a
 * floor rule set (floorRules.ts), so a request's dynamic floor is picked and enforced exactly as a
 * rule's. Money is micro-dollars CPM, as the channel's `floorCpm`.
 */

/** How a channel's floor is set: its `floorCpm` (or its account's rules), its own floor rules, or its clearing prices. */
export const FLOOR_MODES = ['static', 'rules', 'dynamic'] as const;
export type FloorMode = (typeof FLOOR_MODES)[number];

/** The request facts a dynamic floor may be kept per: floor rule fields (floorRules.ts) the stats store counts by. */
export const DYNAMIC_FLOOR_DIMENSIONS = ['country', 'deviceType'] as const satisfies readonly FloorField[];
export type DynamicFloorDimension = (typeof DYNAMIC_FLOOR_DIMENSIONS)[number];

/** The highest floor a rule may hold ($10,000 CPM, floorRules.ts), in micro-dollars. */
const MAX_FLOOR_MICROS = 10_000_000_000;
const floorMicros = micros.max(MAX_FLOOR_MICROS, 'must be at most 10000000000 ($10,000 CPM)');

export const DynamicFloorSettings = z
  .object({
    /** Which percentile of the clearing prices is the floor (50: the median impression's price). */
    percentile: z
      .number({ error: 'must be a whole number from 1 to 99' })
      .int('must be a whole number from 1 to 99')
      .min(1, 'must be a whole number from 1 to 99')
      .max(99, 'must be a whole number from 1 to 99')
      .default(50),
    /** The lowest floor the computation may set (micro-dollars CPM). */
    minCpm: floorMicros.default(0),
    /** The highest floor the computation may set (micro-dollars CPM). */
    maxCpm: floorMicros,
    /** How many hours of clearing prices are read, up to the hour it runs in. */
    windowHours: z
      .number({ error: 'must be a whole number of hours from 1 to 168' })
      .int('must be a whole number of hours from 1 to 168')
      .min(1, 'must be a whole number of hours from 1 to 168')
      .max(168, 'must be a whole number of hours from 1 to 168')
      .default(24),
    /** Kept per country and/or device type; none: one floor for the whole channel. */
    dimensions: z
      .array(z.enum(DYNAMIC_FLOOR_DIMENSIONS, { error: `must be one of ${DYNAMIC_FLOOR_DIMENSIONS.join(', ')}` }))
      .refine((d) => new Set(d).size === d.length, 'names a dimension twice')
      .default(['country', 'deviceType']),
    /** Impressions a country or device needs in the window before it gets a floor of its own. */
    minImpressions: z
      .number({ error: 'must be a whole number from 1 to 1000000' })
      .int('must be a whole number from 1 to 1000000')
      .min(1, 'must be a whole number from 1 to 1000000')
      .max(1_000_000, 'must be a whole number from 1 to 1000000')
      .default(100),
  })
  .superRefine((s, ctx) => {
    if (s.maxCpm < s.minCpm)
      ctx.addIssue({ code: 'custom', path: ['maxCpm'], message: 'must not be under the minimum (minCpm)' });
  });
export type DynamicFloorSettings = z.output<typeof DynamicFloorSettings>;
export type DynamicFloorSettingsInput = z.input<typeof DynamicFloorSettings>;

/** One floor of a computed table: a country and/or device type (or '*' for any), and how it was reached. */
export const DynamicFloorCell = z.object({
  /** The rule key as the edge matches it (lower-case values joined by '|', '*' for any), '*' alone for the channel's default. */
  key: z.string(),
  /** The floor in force, micro-dollars CPM (the percentile clamped; a fallback: the channel's floor clamped). */
  floorCpm: z.number(),
  /** The percentile of the clearing prices before clamping; null for a fallback (too few impressions). */
  measuredCpm: z.number().nullable(),
  /** The impressions the percentile was taken over. */
  impressions: z.number(),
  clamped: z.enum(['min', 'max']).nullable(),
});
export type DynamicFloorCell = z.infer<typeof DynamicFloorCell>;

/** What the api role computed for a channel: every floor it keeps, and the default for a request that matches none. */
export const DynamicFloorTable = z.object({
  /** When it was computed (ISO). */
  computedAt: z.string(),
  percentile: z.number(),
  windowHours: z.number(),
  minImpressions: z.number(),
  /** The floor rule fields the keys are made of (the settings' dimensions; `country` alone when none). */
  fields: z.array(z.enum(DYNAMIC_FLOOR_DIMENSIONS)),
  /** The channel's impressions in the window (every country and device). */
  impressions: z.number(),
  cells: z.array(DynamicFloorCell),
  /** For a request no cell matches: the whole channel's percentile, or with too few impressions the channel's floor clamped. */
  default: DynamicFloorCell,
});
export type DynamicFloorTable = z.infer<typeof DynamicFloorTable>;

/** One group of the clearing prices a computation reads: impressions at an average clearing price (micro-dollars CPM). */
export interface ClearingPriceCell {
  /** Upper-case ISO country ('' unknown) and device type ('' unknown), as the stats store counts them. */
  country: string;
  device: string;
  impressions: number;
  /** The average clearing price of these impressions, micro-dollars CPM. */
  cpm: number;
}

/**
 * The `p`th percentile of the impressions' clearing prices (nearest rank by impressions): the price
 * of the impression at rank ceil(p% of all), each group's impressions at its average price. Null
 * when there are none.
 */
export function weightedPercentile(cells: readonly ClearingPriceCell[], p: number): number | null {
  const total = cells.reduce((sum, c) => sum + c.impressions, 0);
  if (total <= 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  const sorted = [...cells].filter((c) => c.impressions > 0).sort((a, b) => a.cpm - b.cpm);
  let seen = 0;
  for (const c of sorted) {
    seen += c.impressions;
    if (seen >= rank) return Math.round(c.cpm);
  }
  return Math.round(sorted.at(-1)!.cpm);
}

const clamp = (cpm: number, s: DynamicFloorSettings): { floorCpm: number; clamped: FloorClamp } =>
  cpm < s.minCpm
    ? { floorCpm: s.minCpm, clamped: 'min' }
    : cpm > s.maxCpm
      ? { floorCpm: s.maxCpm, clamped: 'max' }
      : { floorCpm: cpm, clamped: null };

const FACT_OF: Record<DynamicFloorDimension, (c: ClearingPriceCell) => string> = {
  country: (c) => c.country.toLowerCase(),
  deviceType: (c) => c.device.toLowerCase(),
};

/**
 * A channel's floor table from its clearing prices: a floor for each combination of the dimensions'
 * values with at least `minImpressions` impressions, at every level (a country and device, a country
 * on any device, a device in any country), so a request whose own combination has too few falls to
 * the coarser floor it matches; the whole channel's as the default, or, with too few impressions
 * even there, the channel's static floor within the bounds. An unknown country or device ('') is
 * counted in the levels that do not name it.
 */
export function computeFloorTable(
  settings: DynamicFloorSettings,
  staticFloorCpm: number,
  prices: readonly ClearingPriceCell[],
  computedAt: string,
): DynamicFloorTable {
  const fields: DynamicFloorDimension[] = settings.dimensions.length ? [...settings.dimensions] : ['country'];
  const byDimensions = settings.dimensions.length > 0;
  const groups = new Map<string, ClearingPriceCell[]>();
  if (byDimensions)
    for (const c of prices) {
      const values = fields.map((f) => FACT_OF[f](c));
      // every pattern of the fields, but the one of all `*` (the default): a field whose value is unknown is `*` only
      for (let pattern = 0; pattern < (1 << fields.length) - 1; pattern++) {
        let known = true;
        const key = values
          .map((v, i) => {
            if (pattern & (1 << i)) return '*';
            if (!v) known = false;
            return v;
          })
          .join('|');
        if (!known) continue;
        const list = groups.get(key) ?? [];
        list.push(c);
        groups.set(key, list);
      }
    }
  const cellOf = (key: string, list: readonly ClearingPriceCell[]): DynamicFloorCell | null => {
    const impressions = list.reduce((sum, c) => sum + c.impressions, 0);
    if (impressions < settings.minImpressions) return null;
    const measured = weightedPercentile(list, settings.percentile);
    if (measured === null) return null;
    return { key, ...clamp(measured, settings), measuredCpm: measured, impressions };
  };
  const cells = [...groups]
    .map(([key, list]) => cellOf(key, list))
    .filter((c): c is DynamicFloorCell => c !== null)
    .sort((a, b) => a.key.localeCompare(b.key));
  const impressions = prices.reduce((sum, c) => sum + c.impressions, 0);
  return {
    computedAt,
    percentile: settings.percentile,
    windowHours: settings.windowHours,
    minImpressions: settings.minImpressions,
    fields,
    impressions,
    cells,
    default: cellOf('*', prices) ?? fallbackCell(settings, staticFloorCpm, impressions),
  };
}

/** The default of a channel with too few impressions: its static floor within the bounds. */
function fallbackCell(settings: DynamicFloorSettings, staticFloorCpm: number, impressions: number): DynamicFloorCell {
  return { key: '*', ...clamp(staticFloorCpm, settings), measuredCpm: null, impressions };
}

/** The table of a dynamic channel not computed yet: its static floor within the bounds, for every request. */
export function fallbackFloorTable(settings: DynamicFloorSettings, staticFloorCpm: number): DynamicFloorTable {
  return {
    computedAt: '',
    percentile: settings.percentile,
    windowHours: settings.windowHours,
    minImpressions: settings.minImpressions,
    fields: ['country'],
    impressions: 0,
    cells: [],
    default: fallbackCell(settings, staticFloorCpm, 0),
  };
}

/** A table as the floor rule set the edge matches requests with (floorRules.ts): each cell a rule, the default its default. */
export function floorRulesOfTable(table: DynamicFloorTable): FloorRules {
  return {
    schema: { fields: table.fields, delimiter: '|' },
    values: Object.fromEntries(table.cells.map((c) => [c.key, c.floorCpm / 1_000_000])),
    default: table.default.floorCpm / 1_000_000,
    currency: 'USD',
  };
}

/** GET /api/demand/channels/:id/floors: the floors a dynamic channel's requests get now, and why. */
export const channelFloorsPath = (channelId: number | string): string => `/api/demand/channels/${channelId}/floors`;

export const ChannelFloors = z.object({
  mode: z.enum(FLOOR_MODES),
  /** The dynamic settings in force (mode `dynamic`), else null. */
  settings: DynamicFloorSettings.nullable(),
  /** The last computed table; null when none yet (or the channel is not dynamic). */
  table: DynamicFloorTable.nullable(),
  /** When the next computation is due (ISO); null when none is planned. */
  nextRunAt: z.string().nullable(),
});
export type ChannelFloors = z.infer<typeof ChannelFloors>;
