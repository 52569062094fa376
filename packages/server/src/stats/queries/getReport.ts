import { type Kysely } from 'kysely';
import {
  DIMENSION_BY_ID, type DimensionId, nameField, REPORT_MAX_ROWS, type ReportRequest, type ReportRow, type SystemPrices,
} from '@adplane/shared';
import { badField } from '../../http/errors.js';
import { type Database } from '../../store/schema.js';
import { dimAlias, metricAlias, reportRowsSql, reportTotalsSql, type StatsScope } from '../reportSql.js';
import { type StatsStore } from '../statsStore.js';
import { entityNames } from './entityNames.js';

export interface ReportContext {
  stats: StatsStore;
  /** The config store, for entity names; null leaves names out (engine tests). */
  db: Kysely<Database> | null;
  scope: StatsScope;
  prices: ReadonlyMap<number, SystemPrices>;
  /** Admins may break down by tenant. */
  isAdmin: boolean;
}

/** Entity filters take ids; a value that is not one is refused with the filter named. */
function checkFilters(request: ReportRequest, isAdmin: boolean): void {
  for (const id of request.dimensions) {
    if (DIMENSION_BY_ID[id].adminOnly && !isAdmin) throw badField('dimensions', `'${id}' is for admins only`);
  }
  for (const [id, values] of Object.entries(request.filters)) {
    const def = DIMENSION_BY_ID[id as DimensionId];
    if (def.adminOnly && !isAdmin) throw badField(`filters.${id}`, 'is for admins only');
    if (def.type === 'entity' && values.some((v) => !Number.isSafeInteger(Number(v)) || Number(v) < 0)) {
      throw badField(`filters.${id}`, 'must be a list of ids');
    }
  }
}

/**
 * Run a report: rows (at most `limit`, else REPORT_MAX_ROWS) then the totals row last, which the
 * month-to-date system cost of the console reads. Entity dimensions get their names beside the ids.
 */
export async function getReport(ctx: ReportContext, request: ReportRequest, limitOverride?: number): Promise<ReportRow[]> {
  checkFilters(request, ctx.isAdmin);
  const input = { request, scope: ctx.scope, prices: ctx.prices };
  const limit = limitOverride ?? (request.limit && request.limit > 0 ? request.limit : REPORT_MAX_ROWS);
  const [raw, totalsRaw] = await Promise.all([
    request.dimensions.length > 0 ? ctx.stats.select(reportRowsSql(ctx.stats.dialect, input, limit)) : Promise.resolve([]),
    ctx.stats.select(reportTotalsSql(ctx.stats.dialect, input)),
  ]);
  const rows: ReportRow[] = raw.map((r) => {
    const row: ReportRow = {};
    for (const id of request.dimensions) {
      const v = r[dimAlias(id)];
      row[id] = DIMENSION_BY_ID[id].type === 'entity' ? Number(v) : String(v ?? '');
    }
    for (const id of request.metrics) row[id] = Number(r[metricAlias(id)] ?? 0);
    return row;
  });
  if (ctx.db) await addNames(ctx.db, request.dimensions, rows);
  const totals: ReportRow = { total: true };
  for (const id of request.metrics) totals[id] = Number(totalsRaw[0]?.[metricAlias(id)] ?? 0);
  rows.push(totals);
  return rows;
}

async function addNames(db: Kysely<Database>, dimensions: readonly DimensionId[], rows: ReportRow[]): Promise<void> {
  for (const id of dimensions) {
    const kind = DIMENSION_BY_ID[id].entityKind;
    if (!kind) continue;
    const names = await entityNames(db, kind, rows.map((r) => r[id] as number));
    for (const r of rows) r[nameField(id)] = (r[id] as number) === 0 ? '' : (names.get(r[id] as number) ?? `#${String(r[id])}`);
  }
}
