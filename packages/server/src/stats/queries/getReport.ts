import { type Kysely } from 'kysely';
import {
  DIMENSION_BY_ID,
  type DimensionId,
  nameField,
  NO_DEMAND_ID,
  NO_DEMAND_NAME,
  REPORT_MAX_ROWS,
  type ReportRequest,
  type ReportRow,
  reportRefusals,
  revenueColumnFor,
  type StatsViewer,
  type SystemPrices,
} from '@adplane/shared';
import { badField } from '../../http/errors.js';
import { type Database } from '../../store/schema.js';
import { reportRowsSql, reportTotalsSql, type StatsScope } from '../reportSql.js';
import { selectInChunks, type StatsStore } from '../statsStore.js';
import { entityNames } from './entityNames.js';
import { metricsOf, numbers, reportRowOf, type Sums } from './reportRow.js';

export interface ReportContext {
  stats: StatsStore;
  /** The config store, for entity names; null leaves names out (engine tests). */
  db: Kysely<Database> | null;
  scope: StatsScope;
  prices: ReadonlyMap<number, SystemPrices>;
  /** Who the numbers are for: which metrics and dimensions it may read, and what its revenue is (visibility.ts). */
  viewer: StatsViewer;
}

/**
 * What a caller may not run: a metric, dimension or filter outside its user type's rule
 * (visibility.ts), an entity filter whose values are not ids. Refused with the field named, `at`
 * before it (`request.` where the report sits in a body: a file or a saved report, checked before it
 * is kept, as a run checks it).
 */
export function checkRunnable(request: ReportRequest, viewer: StatsViewer, at = ''): void {
  const [refused] = reportRefusals(viewer, request);
  if (refused) throw badField(`${at}${refused[0]}`, refused[1]);
  for (const [id, values] of Object.entries(request.filters)) {
    const def = DIMENSION_BY_ID[id as DimensionId];
    if (def.type === 'entity' && values.some((v) => !Number.isSafeInteger(Number(v)) || Number(v) < 0)) {
      throw badField(`${at}filters.${id}`, 'must be a list of ids');
    }
  }
}

export interface ReportOptions {
  /** Rows before the totals; default the request's limit, else REPORT_MAX_ROWS. */
  limit?: number;
  /** false leaves the totals row out (the dashboard's top lists, a file's parts). Default true. */
  totals?: boolean;
  /**
   * A report file: the rows (at most `limit`, no totals) are handed over a chunk at a time as the
   * engine reads them, and getReport answers none; a long answer never sits whole in the heap nor
   * holds the event loop in one stretch.
   */
  onRows?: (rows: ReportRow[]) => Promise<void>;
}

/**
 * The SQL of a report's rows (at most `limit`, no totals row) as getReport runs it for a file, for
 * the report-file thread (reportFiles.ts); null for a report without dimensions (its one row is the totals).
 */
export function reportRowsQuery(ctx: ReportContext, request: ReportRequest, limit: number): string | null {
  checkRunnable(request, ctx.viewer);
  if (request.dimensions.length === 0) return null;
  return reportRowsSql(
    ctx.stats.dialect,
    { request, scope: ctx.scope, prices: ctx.prices, revenueColumn: revenueColumnFor(ctx.viewer) },
    limit,
  );
}

/**
 * Run a report: rows (at most `limit`, else REPORT_MAX_ROWS) then the totals row last, which the
 * month-to-date system cost of the console reads. Entity dimensions get their names beside the ids.
 *
 * One scan when it can: the grouped query asks for one row more than the limit, and when every group
 * came back (and none was hidden as errors-only) the totals are the sum of the groups' sums. Only a
 * cut or filtered answer reads the range a second time for its totals.
 */
export async function getReport(
  ctx: ReportContext,
  request: ReportRequest,
  options: ReportOptions = {},
): Promise<ReportRow[]> {
  checkRunnable(request, ctx.viewer);
  const input = { request, scope: ctx.scope, prices: ctx.prices, revenueColumn: revenueColumnFor(ctx.viewer) };
  const dialect = ctx.stats.dialect;
  const wantTotals = options.totals ?? true;
  const limit = options.limit ?? (request.limit && request.limit > 0 ? request.limit : REPORT_MAX_ROWS);
  if (request.dimensions.length === 0) {
    if (!wantTotals) return [];
    const [raw] = await ctx.stats.select(reportTotalsSql(dialect, input));
    return [metricsOf(request.metrics, numbers(raw ?? {}), { total: true })];
  }
  if (options.onRows) {
    for await (const raw of selectInChunks(ctx.stats, reportRowsSql(dialect, input, limit))) {
      const rows = raw.map((r) => reportRowOf(request, r));
      if (ctx.db) await addNames(ctx.db, request.dimensions, rows);
      await options.onRows(rows);
    }
    return [];
  }
  // An explicit limit or hidden rows will most likely need the totals query: run it beside the rows.
  const early =
    wantTotals && (request.hideErrors || (request.limit ?? 0) > 0)
      ? ctx.stats.select(reportTotalsSql(dialect, input))
      : null;
  // Handled here so a failed rows query never leaves it unhandled; awaited below when used.
  early?.catch(() => undefined);
  const raw = await ctx.stats.select(reportRowsSql(dialect, input, limit + 1));
  const complete = raw.length <= limit;
  if (!complete) raw.length = limit;
  const rowSums = raw.map(numbers);
  const rows: ReportRow[] = raw.map((r, i) => reportRowOf(request, r, rowSums[i]));
  if (ctx.db) await addNames(ctx.db, request.dimensions, rows);
  if (!wantTotals) return rows;
  let totalSums: Sums;
  if (complete && !request.hideErrors) {
    totalSums = {};
    for (const sums of rowSums) for (const k in sums) totalSums[k] = (totalSums[k] ?? 0) + sums[k];
  } else {
    const [t] = await (early ?? ctx.stats.select(reportTotalsSql(dialect, input)));
    totalSums = numbers(t ?? {});
  }
  rows.push(metricsOf(request.metrics, totalSums, { total: true }));
  return rows;
}

/** Entity dimensions' names beside their ids (`<id>_name`), read from the config store. */
async function addNames(db: Kysely<Database>, dimensions: readonly DimensionId[], rows: ReportRow[]): Promise<void> {
  for (const id of dimensions) {
    const kind = DIMENSION_BY_ID[id].entityKind;
    if (!kind) continue;
    const names = await entityNames(
      db,
      kind,
      rows.map((r) => r[id] as number),
    );
    for (const r of rows)
      r[nameField(id)] =
        (r[id] as number) === 0
          ? ''
          : (r[id] as number) === NO_DEMAND_ID
            ? NO_DEMAND_NAME
            : (names.get(r[id] as number) ?? `#${String(r[id])}`);
  }
}
