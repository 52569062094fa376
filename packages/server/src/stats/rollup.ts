import { DIMENSION_BY_ID, type DimensionId, METRIC_BY_ID, type ReportRequest } from '@adplane/shared';
import { demandCountingOf } from './demandCounting.js';
import { type StatsScope } from './reportSql.js';
import { ROLLUP_KEY } from './rollupTable.js';

export { ROLLUP_KEY, ROLLUP_KEY_0002, ROLLUP_TABLE, rollupBackfillSql, rollupViewSql } from './rollupTable.js';

/** The columns of the rollup's key (rollupTable.ts): a report that touches only these can read it. */
const ROLLUP_COLUMNS = new Set<string>(ROLLUP_KEY);

/** Whether a report can read the rollup: every dimension, filter and scope column is in it, and no metric needs more. */
export function rollupAnswers(request: ReportRequest, scope: StatsScope): boolean {
  void scope; // tenant, subpublisher and advertiser scoping are all rollup columns
  const inRollup = (id: DimensionId) => ROLLUP_COLUMNS.has(DIMENSION_BY_ID[id].column);
  if (!request.dimensions.every(inRollup)) return false;
  if (!Object.keys(request.filters).every((id) => inRollup(id as DimensionId))) return false;
  // A report of demand tells the rows of requests apart by their campaign and ad exchange, which the
  // rollup does not keep, unless a filter keeps only real demand (demandCounting.ts).
  if (demandCountingOf(request).noDemandRow) return false;
  // The system cost splits DSP revenue by campaign, which the rollup does not keep.
  return request.metrics.every((id) => METRIC_BY_ID[id].compute.kind !== 'systemCost');
}
