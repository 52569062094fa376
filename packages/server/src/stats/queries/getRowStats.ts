import { type Kysely } from 'kysely';
import {
  type DimensionId,
  isMetricVisible,
  type MetricId,
  ReportRequest,
  ROW_STATS_KINDS,
  type RowStatsAnswer,
  type RowStatsKindId,
  type RowStatsPeriod,
  rowStatsRange,
} from '@adplane/shared';
import { ENTITY_TABLES, type EntityTables } from '../../store/entityTables.js';
import { parseJson } from '../../store/json.js';
import { type Database } from '../../store/schema.js';
import { getReport, type ReportContext } from './getReport.js';

export interface RowStatsInput {
  kind: RowStatsKindId;
  period: RowStatsPeriod;
  /** The rows asked about; undefined: every row with numbers in the period. */
  ids: number[] | undefined;
  timezone: number;
  /** Which tenant's rows a deal lookup may read (null: every tenant, admins). */
  tenantId: number | null;
  /** The time the period is counted back from (the app's clock). */
  now: number;
}

/**
 * A deal's numbers (a DSP deal's or a supply deal's) are keyed by its OpenRTB deal id (and its
 * tenant): the rows asked about, as those keys.
 */
async function dealKeys(
  db: Kysely<Database>,
  kind: 'deals' | 'supplydeals',
  tenantId: number | null,
  ids: number[] | undefined,
): Promise<Map<string, number[]>> {
  let q = db.withTables<EntityTables>().selectFrom(ENTITY_TABLES[kind]).select(['id', 'tenant_id', 'data']);
  if (tenantId !== null) q = q.where('tenant_id', '=', tenantId);
  if (ids) q = q.where('id', 'in', ids);
  const keys = new Map<string, number[]>();
  for (const r of await q.execute()) {
    const dealId = parseJson<{ dealId?: unknown }>(r.data, {}).dealId;
    if (typeof dealId !== 'string' || dealId === '') continue;
    const key = `${r.tenant_id ?? 0}|${dealId}`;
    keys.set(key, [...(keys.get(key) ?? []), Number(r.id)]);
  }
  return keys;
}

/**
 * Each row's key metrics for a list (GET /api/rowStats): one grouped report over the rows' dimension,
 * in the user's scope and time zone, through the same engine as POST /api/rrun, so the numbers equal a
 * report by that dimension over the same days. Channels, tags, subpublishers and advertisers read the
 * hourly rollup.
 */
export async function getRowStats(
  ctx: ReportContext,
  db: Kysely<Database>,
  input: RowStatsInput,
): Promise<RowStatsAnswer> {
  const spec = ROW_STATS_KINDS[input.kind];
  // A list's numbers are those of its kind the viewer may see (visibility.ts).
  const metrics = spec.metrics.filter((m) => isMetricVisible(ctx.viewer, m));
  const range = rowStatsRange(input.period, input.timezone, input.now);
  const answer: RowStatsAnswer = {
    kind: input.kind,
    period: input.period,
    ...range,
    timezone: input.timezone,
    metrics,
    rows: {},
  };
  if (input.ids && input.ids.length === 0) return answer;

  const dimension: DimensionId = spec.dimension;
  let dimensions: DimensionId[] = [dimension];
  let filters: Record<string, (string | number)[]> = input.ids ? { [dimension]: input.ids } : {};
  let deals: Map<string, number[]> | null = null;
  if (input.kind === 'deals' || input.kind === 'supplydeals') {
    deals = await dealKeys(db, input.kind, input.tenantId, input.ids);
    if (deals.size === 0) return answer;
    filters = { deal: [...new Set([...deals.keys()].map((k) => k.slice(k.indexOf('|') + 1)))] };
    // Two tenants may use the same deal id: an admin's view keeps them apart.
    if (input.tenantId === null) dimensions = ['tenant', 'deal'];
  }
  const request = ReportRequest.parse({ ...range, timezone: input.timezone, dimensions, metrics, filters });
  // Names are the list's own: no lookup in the config store.
  const rows = await getReport({ ...ctx, db: null }, request, { totals: false });
  for (const row of rows) {
    const values: Partial<Record<MetricId, number>> = {};
    for (const m of metrics) values[m] = Number(row[m] ?? 0);
    if (deals) {
      const tenant = input.tenantId ?? Number(row.tenant ?? 0);
      for (const id of deals.get(`${tenant}|${String(row.deal)}`) ?? []) answer.rows[String(id)] = values;
    } else if (Number(row[dimension]) > 0) {
      answer.rows[String(row[dimension])] = values;
    }
  }
  return answer;
}
