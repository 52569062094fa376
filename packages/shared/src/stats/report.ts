/**
 * The report contract (POST /api/rrun, saved reports, files): one zod schema the server validates
 * with and the console builds requests from. An unknown dimension, metric or filter is refused with
 * a 400 naming it.
 */
import { z } from 'zod';
import { timezone, trimmed } from '../schemas/common.js';
import { REPORT_NAME_MAX } from '../constants.js';
import { DIMENSION_BY_ID, type DimensionId, isDimensionId } from './dimensions.js';
import { isMetricId, type MetricId } from './metrics.js';
import { DATE_PRESETS } from './datePresets.js';

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine(
    (v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
    'is not a real date',
  );

const known = <T extends string>(what: string, is: (v: string) => v is T) =>
  z.string().superRefine((v, ctx) => {
    if (!is(v)) ctx.addIssue({ code: 'custom', message: `unknown ${what} '${v}'` });
  }) as unknown as z.ZodType<T, string>;
const dimensionId = known<DimensionId>('dimension', isDimensionId);
/**
 * Other names for a few metrics, read as the catalogue's ids (the answer's keys are the ids): the
 * short names ad-ops tools use (`rev`, `eCPM`, `VTR`, `CTR`).
 */
const METRIC_ALIASES: Readonly<Record<string, MetricId>> = { rev: 'revenue', eCPM: 'ecpm', VTR: 'vtr', CTR: 'ctr' };
const canonicalMetric = (v: string): string => (Object.hasOwn(METRIC_ALIASES, v) ? METRIC_ALIASES[v]! : v);
const metricId = z.string().transform(canonicalMetric).pipe(known<MetricId>('metric', isMetricId));

/** The longest range one report covers (a year and a day: "last 365 days" plus today). */
const REPORT_MAX_DAYS = 366;
/** Rows a report answers at most in the browser; longer ones go to a file. */
export const REPORT_MAX_ROWS = 10_000;

const filterValues = z.array(z.union([z.string().max(200), z.number().int()])).max(1000, 'at most 1,000 values');

export const ReportRequest = z
  .object({
    startDate: isoDate,
    endDate: isoDate,
    /**
     * A rolling period (datePresets.ts): the report covers the preset's local days in `timezone` as of
     * the day it runs, and startDate/endDate are replaced by them (the preset wins over any dates).
     */
    datePreset: z.enum(DATE_PRESETS).optional(),
    /** The user's offset in hours (-12..+12): local days are shifted to UTC hours. */
    timezone: timezone.default(0),
    dimensions: z.array(dimensionId).max(8, 'at most 8 dimensions').default([]),
    metrics: z.array(metricId).min(1, 'pick at least one metric').max(40),
    /** Dimension id -> the values to keep (an empty list keeps all). */
    filters: z.record(z.string(), filterValues).default({}),
    sort: z
      .object({ by: z.string().transform(canonicalMetric), order: z.enum(['asc', 'desc']).default('desc') })
      .optional(),
    /** Rows before the totals row; 0 or absent means up to REPORT_MAX_ROWS. */
    limit: z
      .number({ error: 'must be a whole number of rows' })
      .int('must be a whole number of rows')
      .min(0, `must be between 0 and ${REPORT_MAX_ROWS} rows`)
      .max(REPORT_MAX_ROWS, `must be between 0 and ${REPORT_MAX_ROWS} rows`)
      .optional(),
    /** Leave out rows that only carry errors (no request, impression or revenue). */
    hideErrors: z.boolean().default(false),
    /**
     * Keep only rows of real demand for the report's demand dimensions (a tag's row, never "No demand
     * called" nor the rows without a tag), as a list of the top demand does.
     */
    demandOnly: z.boolean().optional(),
  })
  .superRefine((r, ctx) => {
    for (const key of Object.keys(r.filters)) {
      if (!isDimensionId(key))
        ctx.addIssue({ code: 'custom', path: ['filters', key], message: `unknown filter '${key}'` });
      else if (DIMENSION_BY_ID[key].type === 'time')
        ctx.addIssue({ code: 'custom', path: ['filters', key], message: 'filter dates with startDate and endDate' });
    }
    // a rolling report's dates are replaced by its preset's when it runs: only fixed dates are checked
    if (!r.datePreset && r.startDate > r.endDate)
      ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
    const days = (Date.parse(r.endDate) - Date.parse(r.startDate)) / 86_400_000 + 1;
    if (!r.datePreset && days > REPORT_MAX_DAYS)
      ctx.addIssue({ code: 'custom', path: ['endDate'], message: `a report covers at most ${REPORT_MAX_DAYS} days` });
    if (r.sort && !(r.dimensions as string[]).includes(r.sort.by) && !(r.metrics as string[]).includes(r.sort.by)) {
      ctx.addIssue({
        code: 'custom',
        path: ['sort', 'by'],
        message: `'${r.sort.by}' is not one of the report's dimensions or metrics`,
      });
    }
  });
export type ReportRequestInput = z.input<typeof ReportRequest>;
export type ReportRequest = z.output<typeof ReportRequest>;

/**
 * One row of a report: each dimension's value (entity dimensions also `<id>_name`) and each metric's
 * value. The answer's last row is the totals row, with `total: true` and no dimension values.
 */
export type ReportRow = Record<string, string | number | boolean | null>;

/**
 * GET /api/clock: the server's time (ms since the epoch, from the clock every answer is counted on).
 * The console asks it with a report by hour to know which hour is still being counted (the partial
 * hour: `formatHour(now, report timezone)`), instead of trusting the browser's clock.
 */
export const ServerClock = z.object({ now: z.number().int().nonnegative() });
export type ServerClock = z.infer<typeof ServerClock>;

/** Saved reports and files: what the bell and the Saved Reports page show. */
export type SavedReportKind = 'report' | 'file';

type SavedReportStatus = 'ready' | 'waiting' | 'running' | 'failed';

export interface SavedReport {
  id: number;
  /** When it was saved (or the file finished), 'YYYY-MM-DD HH:mm' UTC. */
  dt: string;
  name: string;
  /** 1 when it is a CSV file (download /api/savedFile/{id}), else 0. */
  file: 0 | 1;
  /** 1 for a post-bid (IVT) report, opened at /pbReport/{id}. */
  ivt: 0 | 1;
  archived: boolean;
  /**
   * Files: 'waiting' in line (`ahead`: the files before it), then 'running' with progress 0..100,
   * then 'ready' or 'failed'.
   */
  status: SavedReportStatus;
  progress: number;
  /** A waiting file: how many files are before it in line (its owner's file being written, and those queued earlier). */
  ahead?: number;
  error: string | null;
  request: ReportRequest | null;
}

export const SaveReportInput = z.object({
  name: trimmed(REPORT_NAME_MAX).min(1, 'is required'),
  request: ReportRequest,
  ivt: z.boolean().default(false),
});
export type SaveReportInput = z.input<typeof SaveReportInput>;

export const UpdateSavedReportInput = z
  .object({
    name: trimmed(REPORT_NAME_MAX).min(1, 'is required').optional(),
    archived: z.boolean().optional(),
    request: ReportRequest.optional(),
  })
  .refine((v) => v.name !== undefined || v.archived !== undefined || v.request !== undefined, {
    message: 'nothing to change: send name, archived or request',
  });

export const ReportFileInput = z.object({
  name: trimmed(REPORT_NAME_MAX).min(1, 'is required'),
  request: ReportRequest,
});
