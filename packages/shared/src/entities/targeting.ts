import { z } from 'zod';
import { TIMEZONE_MAX, TIMEZONE_MIN } from '../constants.js';
import { id, name, Status } from './common.js';

/**
 * Typed targeting, shared by reusable Targetings and by what the edge compiles into its indexes.
 * A filter with no values means "any". Reference ids (countries, IAB categories, regions) are
 * checked against the reference data by `checkTargetingReferences` in ./references.ts.
 */
export const FILTER_MODES = ['include', 'exclude'] as const;

const code = z.string().trim().min(1).max(64);
export const Filter = z
  .object({
    mode: z.enum(FILTER_MODES).default('include'),
    values: z.array(code).max(5000, 'must hold at most 5000 values').default([]),
  })
  .default({ mode: 'include', values: [] })
  .transform((f) => ({ mode: f.mode, values: [...new Set(f.values)] }));
export type Filter = z.infer<typeof Filter>;

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
    hours: z.array(z.number().int().min(0).max(23)).max(24).default(Array.from({ length: 24 }, (_, h) => h)),
  })
  .default({ enabled: false, timezone: 0, days: [0, 1, 2, 3, 4, 5, 6], hours: Array.from({ length: 24 }, (_, h) => h) })
  .refine((d) => !d.enabled || (d.days.length > 0 && d.hours.length > 0), 'must keep at least one day and one hour');

export const PLAYER_SIZES = [
  { id: 'small', label: 'Small (< 400 px wide)' },
  { id: 'medium', label: 'Medium (400-639 px)' },
  { id: 'large', label: 'Large (640-1279 px)' },
  { id: 'xlarge', label: 'Extra large (1280 px and up)' },
] as const;
export const PLAYER_SIZE_IDS = PLAYER_SIZES.map((s) => s.id) as unknown as readonly ['small', 'medium', 'large', 'xlarge'];

export const TargetingRules = z.object({
  countries: Filter,
  /** Region tree selections: region ids (APAC, EMEA, ...) expand to their countries. */
  regions: Filter,
  usStates: Filter,
  devices: Filter,
  os: Filter,
  browsers: Filter,
  tvFamilies: Filter,
  iabCategories: Filter,
  appLists: listRefs,
  pubLists: listRefs,
  creLists: listRefs,
  playerSizes: z.array(z.enum(PLAYER_SIZE_IDS)).default([]),
  dayParting: DayParting,
});
export type TargetingRules = z.infer<typeof TargetingRules>;

export const emptyTargetingRules = (): TargetingRules => TargetingRules.parse({});

/** A reusable targeting profile. */
export const TargetingInput = z.object({
  name,
  status: Status.default(1),
  rules: TargetingRules.default(emptyTargetingRules()),
});
export type TargetingInput = z.input<typeof TargetingInput>;
export type Targeting = z.infer<typeof TargetingInput>;
