import {
  DIMENSION_BY_ID,
  type DimensionId,
  isDemandDimension,
  METRIC_BY_ID,
  type MetricCompute,
  type MetricId,
  NO_DEMAND_ID,
  type ReportRequest,
  type StatsSumColumn,
  type SystemPrices,
} from '@adplane/shared';
import { demandCountingOf, REQUEST_ROW } from './demandCounting.js';
import { ROLLUP_TABLE, rollupAnswers } from './rollup.js';
import { STATS_TABLE } from './statsStore.js';

/**
 * Report SQL from the catalogue, for both stats engines: one builder, and a small dialect object for
 * the few places where DuckDB and ClickHouse differ (time literals, the local day, text quoting).
 * Values are inlined as checked literals: ClickHouse 18 has no query parameters.
 *
 * The query is the shape an engineer would write by hand: it groups by typed keys (a local day is a
 * DATE, a local hour is the stored UTC hour, one to one) and sums only the columns the metrics need.
 * Text is made only from the grouped keys, never per stored row, and ratios, profit and the totals
 * row are computed by getReport from those sums with the catalogue's one formula.
 */
export interface SqlDialect {
  name: 'duckdb' | 'clickhouse';
  /** A UTC 'YYYY-MM-DD HH:00:00' as a timestamp literal. */
  hour(utc: string): string;
  /** The local day of the stored UTC `hour` at `offset` hours, as a typed date to group by. */
  localDay(offset: number): string;
  /** A grouped date as 'YYYY-MM-DD'. */
  dayText(day: string): string;
  /** The stored UTC `hour` (a group key) shifted by `offset`, as 'YYYY-MM-DD HH:00'. */
  localHourText(offset: number): string;
  text(value: string): string;
}

export const duckdbDialect: SqlDialect = {
  name: 'duckdb',
  hour: (utc) => `TIMESTAMP '${utc}'`,
  localDay: (offset) => (offset === 0 ? 'CAST(hour AS DATE)' : `CAST(hour + INTERVAL (${offset}) HOUR AS DATE)`),
  dayText: (day) => `strftime(${day}, '%Y-%m-%d')`,
  localHourText: (offset) => `strftime(hour + INTERVAL (${offset}) HOUR, '%Y-%m-%d %H:00')`,
  text: (value) => `'${value.replaceAll("'", "''")}'`,
};

export const clickhouseDialect: SqlDialect = {
  name: 'clickhouse',
  hour: (utc) => `toDateTime('${utc}', 'UTC')`,
  localDay: (offset) => `toDate(${offset === 0 ? 'hour' : `addHours(hour, ${offset})`}, 'UTC')`,
  dayText: (day) => `toString(${day})`,
  localHourText: (offset) => `formatDateTime(addHours(hour, ${offset}), '%Y-%m-%d %H:00', 'UTC')`,
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

/** `sum(x)` of a column: 64-bit on both engines, read back as a JS number. */
const s = (column: string) => `sum(${column})`;

/** The summed system cost (micro-dollars) of each row's tenant prices; 0 when no tenant has prices. */
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

/**
 * What a report of demand (demandCounting.ts) sums for the per-request counts: a demand row's own
 * requests and opportunities (`reqs` of a request row only when it was offered to no demand source,
 * so that a request is counted once: on the demand it was offered to, or on "No demand called").
 */
const BY_DEMAND: Partial<Record<StatsSumColumn, string>> = {
  reqs: 'source_reqs + CASE WHEN opps = 0 THEN reqs ELSE 0 END',
  opps: 'source_opps',
  ivt: 'CASE WHEN opps = 0 THEN ivt ELSE 0 END',
};

/**
 * The sum of a metric column as the report reads it: `revenue` is summed from the viewer's
 * `revenueColumn` (a subpublisher's revenue is its payout, the stored `cost`: visibility.ts
 * revenueColumnFor); a report of demand sums its per-request counts by demand (BY_DEMAND).
 */
const sumAs = (input: Pick<ReportSqlInput, 'request' | 'revenueColumn'>) => {
  const byDemand = demandCountingOf(input.request).byDemand;
  const revenueColumn = input.revenueColumn ?? 'revenue';
  return (column: StatsSumColumn) =>
    s(column === 'revenue' ? revenueColumn : (byDemand && BY_DEMAND[column]) || column);
};

/** A metric as one SQL expression over sums: what ORDER BY uses when a report sorts by it. */
function metricSql(
  compute: MetricCompute,
  prices: ReadonlyMap<number, SystemPrices>,
  sum: (column: StatsSumColumn) => string,
): string {
  switch (compute.kind) {
    case 'sum':
      return sum(compute.column);
    case 'difference':
      return `(${sum(compute.minuend)} - ${sum(compute.subtrahend)})`;
    case 'ratio': {
      const numerator =
        compute.numerator === 'profit' ? `(${sum('revenue')} - ${sum('cost')})` : sum(compute.numerator);
      const denominator = sum(compute.denominator);
      return `(CASE WHEN ${denominator} = 0 THEN 0 ELSE ${numerator} * ${compute.scale} / ${denominator} END)`;
    }
    case 'systemCost':
      return systemCostSql(prices);
  }
}

/** The summed columns a report's metrics are computed from, each once. */
function sumsOf(metrics: readonly MetricId[]): { columns: StatsSumColumn[]; systemCost: boolean } {
  const columns = new Set<StatsSumColumn>();
  let systemCost = false;
  for (const id of metrics) {
    const c = METRIC_BY_ID[id].compute;
    if (c.kind === 'sum') columns.add(c.column);
    else if (c.kind === 'difference') columns.add(c.minuend).add(c.subtrahend);
    else if (c.kind === 'ratio') {
      if (c.numerator === 'profit') columns.add('revenue').add('cost');
      else columns.add(c.numerator);
      columns.add(c.denominator);
    } else systemCost = true;
  }
  return { columns: [...columns], systemCost };
}

/**
 * A dimension's group key (typed, as stored or a DATE) and the text or id the answer shows. In a
 * report of demand, an entity demand dimension of a request row is NO_DEMAND_ID: "No demand called"
 * is a row of its own, apart from demand without that entity (a campaign's row has no tag).
 */
function dimensionSql(
  dialect: SqlDialect,
  id: DimensionId,
  offset: number,
  noDemandRow: boolean,
): { key: string; shown: string } {
  if (id === 'date') {
    const key = dialect.localDay(offset);
    return { key, shown: dialect.dayText(key) };
  }
  // Shifting every hour by the same offset maps UTC hours one to one onto local hours: group the stored hour.
  if (id === 'hour') return { key: 'hour', shown: dialect.localHourText(offset) };
  const def = DIMENSION_BY_ID[id];
  if (noDemandRow && def.type === 'entity' && isDemandDimension(id)) {
    const key = `CASE WHEN ${REQUEST_ROW} THEN ${int(NO_DEMAND_ID)} ELSE ${def.column} END`;
    return { key, shown: key };
  }
  return { key: def.column, shown: def.column };
}

/** Aliases never equal a column name: ClickHouse would read `sum(imps) AS imps` back into other sums. */
export const dimAlias = (id: string) => `d_${id}`;
export const sumAlias = (column: string) => `s_${column}`;
export const SYSTEM_COST_ALIAS = 's_system_cost';

export interface ReportSqlInput {
  request: ReportRequest;
  scope: StatsScope;
  prices: ReadonlyMap<number, SystemPrices>;
  /** The stored column the answer's `revenue` is summed from (default `revenue`; a subpublisher's is `cost`, its payout). */
  revenueColumn?: StatsSumColumn;
}

function whereSql(dialect: SqlDialect, { request, scope }: ReportSqlInput): string {
  const { from, to } = utcBounds(request.startDate, request.endDate, request.timezone);
  const where = [`hour >= ${dialect.hour(from)}`, `hour < ${dialect.hour(to)}`];
  if (scope.tenantId !== null) where.push(`tenant_id = ${int(scope.tenantId)}`);
  if (scope.subpublisherId !== undefined) where.push(`subpublisher_id = ${int(scope.subpublisherId)}`);
  if (scope.advertiserId !== undefined) where.push(`advertiser_id = ${int(scope.advertiserId)}`);
  // A report of demand leaves out the rows of requests offered to demand: each is counted on the demand it
  // was offered to, and they would make "No demand called" rows of nothing (the system cost keeps them:
  // its fee per request is on the "No demand called" row).
  if (demandCountingOf(request).noDemandRow && !request.metrics.includes('systemCost'))
    where.push(`NOT (${REQUEST_ROW} AND opps > 0)`);
  // Real demand only: each demand dimension's rows of its own (the rollup answers this, as a list's ids do).
  if (request.demandOnly)
    for (const id of request.dimensions) {
      const def = DIMENSION_BY_ID[id];
      if (def.type === 'entity' && isDemandDimension(id)) where.push(`${def.column} > 0`);
    }
  for (const [id, values] of Object.entries(request.filters)) {
    if (values.length === 0) continue;
    const def = DIMENSION_BY_ID[id as DimensionId];
    const list = def.type === 'entity' ? values.map((v) => int(Number(v))) : values.map((v) => dialect.text(String(v)));
    where.push(`${def.column} IN (${list.join(', ')})`);
  }
  return where.join(' AND ');
}

/** The small rollup when it holds every column the report needs, else the full hourly table. */
export const tableOf = (input: ReportSqlInput) =>
  rollupAnswers(input.request, input.scope) ? ROLLUP_TABLE : STATS_TABLE;

/** Rows that carry nothing but errors are left out when the user hides errors (a demand tag's requests are not errors). */
const hideErrorsSql = (input: ReportSqlInput) =>
  `(${(['reqs', 'opps', 'source_reqs', 'imps', 'revenue', 'bids'] as const).map(sumAs(input)).join(' + ')}) > 0`;

function sumsSelect(input: ReportSqlInput): string[] {
  const { columns, systemCost } = sumsOf(input.request.metrics);
  const sum = sumAs(input);
  const select = columns.map((c) => `${sum(c)} AS ${sumAlias(c)}`);
  if (systemCost) select.push(`${systemCostSql(input.prices)} AS ${SYSTEM_COST_ALIAS}`);
  return select;
}

/** The grouped query: one row per combination of the request's dimensions, with the sums its metrics need. */
export function reportRowsSql(dialect: SqlDialect, input: ReportSqlInput, limit: number): string {
  const { request, prices } = input;
  const { noDemandRow } = demandCountingOf(request);
  const dims = request.dimensions.map((id) => ({ id, ...dimensionSql(dialect, id, request.timezone, noDemandRow) }));
  const select = [...dims.map((d) => `${d.shown} AS ${dimAlias(d.id)}`), ...sumsSelect(input)];
  let sql = `SELECT ${select.join(', ')} FROM ${tableOf(input)} WHERE ${whereSql(dialect, input)}`;
  if (dims.length > 0) sql += ` GROUP BY ${dims.map((d) => d.key).join(', ')}`;
  if (request.hideErrors) sql += ` HAVING ${hideErrorsSql(input)}`;
  const sort = request.sort ?? defaultSort(request);
  const order: string[] = [];
  let sortedBy: string | null = null;
  if (sort) {
    const dim = dims.find((d) => d.id === sort.by);
    // Dates and hours sort the same as their text; other text keys sort by their value.
    sortedBy = dim ? dim.id : null;
    const by = dim ? dimAlias(dim.id) : metricSql(METRIC_BY_ID[sort.by as MetricId].compute, prices, sumAs(input));
    order.push(`${by} ${sort.order.toUpperCase()}`);
  }
  // A stable order for ties, so pages and files read the same twice.
  for (const d of dims) if (d.id !== sortedBy) order.push(`${dimAlias(d.id)} ASC`);
  if (order.length > 0 && dims.length > 0) sql += ` ORDER BY ${order.join(', ')}`;
  return `${sql} LIMIT ${int(limit)}`;
}

/** The totals row's sums: the same columns over every row the report covers. */
export function reportTotalsSql(dialect: SqlDialect, input: ReportSqlInput): string {
  return `SELECT ${sumsSelect(input).join(', ')} FROM ${tableOf(input)} WHERE ${whereSql(dialect, input)}`;
}

function defaultSort(request: ReportRequest): { by: string; order: 'asc' | 'desc' } | null {
  const time = request.dimensions.find((d) => d === 'date' || d === 'hour');
  if (time) return { by: time, order: 'asc' };
  return request.dimensions.length > 0 ? { by: request.metrics[0], order: 'desc' } : null;
}
