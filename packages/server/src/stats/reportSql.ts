import {
  DIMENSION_BY_ID, type DimensionId, METRIC_BY_ID, type MetricCompute, type MetricId, type ReportRequest, type SystemPrices,
} from '@adplane/shared';
import { ROLLUP_TABLE, rollupAnswers } from './rollup.js';
import { STATS_TABLE } from './statsStore.js';

/**
 * Report SQL from the catalogue, for both stats engines: one builder, and a small dialect object for
 * the few places where DuckDB and ClickHouse differ (time literals, the shifted day and hour, text
 * quoting). Values are inlined as checked literals: ClickHouse 18 has no query parameters.
 */
export interface SqlDialect {
  name: 'duckdb' | 'clickhouse';
  /** A UTC 'YYYY-MM-DD HH:00:00' as a timestamp literal. */
  hour(utc: string): string;
  /** 'YYYY-MM-DD' of the hour shifted by `offset` hours. */
  shiftedDate(offset: number): string;
  /** 'YYYY-MM-DD HH:00' of the hour shifted by `offset` hours. */
  shiftedHour(offset: number): string;
  text(value: string): string;
}

export const duckdbDialect: SqlDialect = {
  name: 'duckdb',
  hour: (utc) => `TIMESTAMP '${utc}'`,
  shiftedDate: (offset) => `strftime(hour + INTERVAL (${offset}) HOUR, '%Y-%m-%d')`,
  shiftedHour: (offset) => `strftime(hour + INTERVAL (${offset}) HOUR, '%Y-%m-%d %H:00')`,
  text: (value) => `'${value.replaceAll("'", "''")}'`,
};

export const clickhouseDialect: SqlDialect = {
  name: 'clickhouse',
  hour: (utc) => `toDateTime('${utc}', 'UTC')`,
  shiftedDate: (offset) => `formatDateTime(addHours(hour, ${offset}), '%Y-%m-%d', 'UTC')`,
  shiftedHour: (offset) => `formatDateTime(addHours(hour, ${offset}), '%Y-%m-%d %H:00', 'UTC')`,
  text: (value) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`,
};

/** Who is asking, already resolved to rows: null tenant = every tenant (admins). */
export interface StatsScope {
  tenantId: number | null;
  /** A sub user sees only its channels' rows. */
  subpublisherId?: number;
  /** An adv user sees only its own rows. */
  advertiserId?: number;
}

/** UTC bounds of local days startDate..endDate at `offset`: [from, to). */
export function utcBounds(startDate: string, endDate: string, offset: number): { from: string; to: string } {
  const at = (date: string, plusDays: number) => {
    const t = Date.parse(`${date}T00:00:00Z`) + plusDays * 86_400_000 - offset * 3_600_000;
    return new Date(t).toISOString().slice(0, 19).replace('T', ' ');
  };
  return { from: at(startDate, 0), to: at(endDate, 1) };
}

const int = (value: number) => {
  if (!Number.isSafeInteger(value)) throw new Error(`not a whole number: ${value}`);
  return String(value);
};
const num = (value: number) => {
  if (!Number.isFinite(value)) throw new Error(`not a number: ${value}`);
  return String(value);
};

/** `sum(x)` of a column, as a double so ratios and sums read the same on both engines. */
const s = (column: string) => `sum(${column})`;

function systemCostSql(prices: ReadonlyMap<number, SystemPrices>): string {
  if (prices.size === 0) return '0';
  const perRow = [...prices].map(
    ([tenant, p]) =>
      `WHEN tenant_id = ${int(tenant)} THEN (reqs * ${num(p.priceReq)} + imps * ${num(p.priceImp)} + postbid_imps * ${num(p.pricePostbid)}) / 1000` +
      ` + (CASE WHEN campaign_id > 0 THEN revenue ELSE 0 END) * ${num(p.priceDsp)} / 100`,
  );
  // Searched CASE: ClickHouse 18 turns `CASE x WHEN` into transform(), which wants constant results.
  return `sum(CASE ${perRow.join(' ')} ELSE 0 END)`;
}

export function metricSql(compute: MetricCompute, prices: ReadonlyMap<number, SystemPrices>): string {
  switch (compute.kind) {
    case 'sum':
      return s(compute.column);
    case 'difference':
      return `(${s(compute.minuend)} - ${s(compute.subtrahend)})`;
    case 'ratio': {
      const numerator = compute.numerator === 'profit' ? `(${s('revenue')} - ${s('cost')})` : s(compute.numerator);
      const denominator = s(compute.denominator);
      return `(CASE WHEN ${denominator} = 0 THEN 0 ELSE ${numerator} * ${compute.scale} / ${denominator} END)`;
    }
    case 'systemCost':
      return systemCostSql(prices);
  }
}

export function dimensionSql(dialect: SqlDialect, id: DimensionId, offset: number): string {
  if (id === 'date') return dialect.shiftedDate(offset);
  if (id === 'hour') return dialect.shiftedHour(offset);
  return DIMENSION_BY_ID[id].column;
}

/** Aliases never equal a column name: ClickHouse would read `sum(imps) AS imps` back into other sums. */
export const dimAlias = (id: string) => `d_${id}`;
export const metricAlias = (id: string) => `m_${id}`;

export interface ReportSqlInput {
  request: ReportRequest;
  scope: StatsScope;
  prices: ReadonlyMap<number, SystemPrices>;
}

function whereSql(dialect: SqlDialect, { request, scope }: ReportSqlInput): string {
  const { from, to } = utcBounds(request.startDate, request.endDate, request.timezone);
  const where = [`hour >= ${dialect.hour(from)}`, `hour < ${dialect.hour(to)}`];
  if (scope.tenantId !== null) where.push(`tenant_id = ${int(scope.tenantId)}`);
  if (scope.subpublisherId !== undefined) where.push(`subpublisher_id = ${int(scope.subpublisherId)}`);
  if (scope.advertiserId !== undefined) where.push(`advertiser_id = ${int(scope.advertiserId)}`);
  for (const [id, values] of Object.entries(request.filters)) {
    if (values.length === 0) continue;
    const def = DIMENSION_BY_ID[id as DimensionId];
    const list = def.type === 'entity' ? values.map((v) => int(Number(v))) : values.map((v) => dialect.text(String(v)));
    where.push(`${def.column} IN (${list.join(', ')})`);
  }
  return where.join(' AND ');
}

/** The small rollup when it holds every column the report needs, else the full hourly table. */
export const tableOf = (input: ReportSqlInput) => (rollupAnswers(input.request, input.scope) ? ROLLUP_TABLE : STATS_TABLE);

/** Rows that carry nothing but errors are left out when the user hides errors. */
const HIDE_ERRORS = `(${['reqs', 'opps', 'imps', 'revenue', 'bids'].map(s).join(' + ')}) > 0`;

/** The grouped query: one row per combination of the request's dimensions. */
export function reportRowsSql(dialect: SqlDialect, input: ReportSqlInput, limit: number): string {
  const { request, prices } = input;
  const dims = request.dimensions.map((id) => ({ id, sql: dimensionSql(dialect, id, request.timezone) }));
  const select = [
    ...dims.map((d) => `${d.sql} AS ${dimAlias(d.id)}`),
    ...request.metrics.map((id: MetricId) => `${metricSql(METRIC_BY_ID[id].compute, prices)} AS ${metricAlias(id)}`),
  ];
  let sql = `SELECT ${select.join(', ')} FROM ${tableOf(input)} WHERE ${whereSql(dialect, input)}`;
  if (dims.length > 0) sql += ` GROUP BY ${dims.map((d) => d.sql).join(', ')}`;
  if (request.hideErrors) sql += ` HAVING ${HIDE_ERRORS}`;
  const sort = request.sort ?? defaultSort(request);
  const order: string[] = [];
  if (sort) {
    const alias = (request.dimensions as string[]).includes(sort.by) ? dimAlias(sort.by) : metricAlias(sort.by);
    order.push(`${alias} ${sort.order.toUpperCase()}`);
  }
  // A stable order for ties, so pages and files read the same twice.
  for (const d of dims) if (!order[0]?.startsWith(`${dimAlias(d.id)} `)) order.push(`${dimAlias(d.id)} ASC`);
  if (order.length > 0 && dims.length > 0) sql += ` ORDER BY ${order.join(', ')}`;
  return `${sql} LIMIT ${int(limit)}`;
}

/** The totals row: the same metrics over every row the report covers. */
export function reportTotalsSql(dialect: SqlDialect, input: ReportSqlInput): string {
  const metrics = input.request.metrics.map((id: MetricId) => `${metricSql(METRIC_BY_ID[id].compute, input.prices)} AS ${metricAlias(id)}`);
  return `SELECT ${metrics.join(', ')} FROM ${tableOf(input)} WHERE ${whereSql(dialect, input)}`;
}

function defaultSort(request: ReportRequest): { by: string; order: 'asc' | 'desc' } | null {
  const time = request.dimensions.find((d) => d === 'date' || d === 'hour');
  if (time) return { by: time, order: 'asc' };
  return request.dimensions.length > 0 ? { by: request.metrics[0], order: 'desc' } : null;
}
