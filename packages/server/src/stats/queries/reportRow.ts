import {
  DIMENSION_BY_ID,
  METRIC_BY_ID,
  metricFromSums,
  type MetricId,
  type ReportRequest,
  type ReportRow,
  STATS_SUM_COLUMNS,
  type StatsSumColumn,
} from '@adplane/shared';
import { dimAlias, sumAlias, SYSTEM_COST_ALIAS } from '../reportSql.js';

/**
 * A grouped row of the engine as a report row: its dimensions' values and its metrics computed from
 * its sums by the catalogue's formulas. Kept apart from getReport so that the report-file thread
 * (reportFileWorker.ts) converts rows with the same code and without the server's other modules.
 */

export type Sums = Record<string, number>;

/** Each summed column with its alias in the query's answer, made once rather than for every row. */
const SUM_ALIASES = STATS_SUM_COLUMNS.map((c) => [c, sumAlias(c)] as const);

/** The request's metrics from one row's sums, by the catalogue's formulas. */
export function metricsOf(metrics: readonly MetricId[], sums: Sums, into: ReportRow): ReportRow {
  const columns: Partial<Record<StatsSumColumn, number>> = {};
  for (const [c, alias] of SUM_ALIASES) columns[c] = sums[alias] ?? 0;
  for (const id of metrics) {
    // The system cost's per-1,000 prices make fractions of a micro-dollar: money is answered whole, as metricFromSums does an eCPM.
    into[id] =
      METRIC_BY_ID[id].compute.kind === 'systemCost'
        ? Math.round(sums[SYSTEM_COST_ALIAS] ?? 0)
        : metricFromSums(id, columns);
  }
  return into;
}

export const numbers = (raw: Record<string, unknown>): Sums => {
  const out: Sums = {};
  for (const [k, v] of Object.entries(raw)) if (k.startsWith('s_')) out[k] = Number(v ?? 0);
  return out;
};

/** One grouped row of the engine as a report row: its dimensions' values and its metrics (names are added after, by addNames). */
export function reportRowOf(
  request: ReportRequest,
  raw: Record<string, unknown>,
  sums: Sums = numbers(raw),
): ReportRow {
  const row: ReportRow = {};
  for (const id of request.dimensions) {
    const v = raw[dimAlias(id)];
    row[id] = DIMENSION_BY_ID[id].type === 'entity' ? Number(v) : String(v ?? '');
  }
  return metricsOf(request.metrics, sums, row);
}
