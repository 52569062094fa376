import {
  DIMENSION_BY_ID,
  type DimensionId,
  isDemandDimension,
  isDemandReport,
  type ReportRequest,
} from '@adplane/shared';

/**
 * How a report counts requests (docs/reports.md, "Requests and fill by scope"). The edge writes a
 * request once, on a row without demand (tag, campaign and ad exchange 0: its `reqs`, `opps`, `ivt`),
 * and each demand source's fate on a row of its own (`source_reqs`, `source_opps`, calls, bids,
 * wins), its impressions on the rows of the demand that served them.
 *
 * - `byDemand`: the report is broken down or filtered by a demand dimension. Each demand row's requests and
 *   opportunities are its own (`source_reqs`, `source_opps`), so its fill is over the times it was
 *   called; a request offered to no demand source is counted on the "No demand called" row, and a
 *   request that was offered to demand is not counted again beside the demand it was offered to.
 * - `noDemandRow`: a report of demand whose rows may hold such requests (none does when a filter keeps
 *   only real demand, e.g. a list's tag ids, or the report asks for real demand only, `demandOnly`):
 *   the entity demand dimensions answer NO_DEMAND_ID for them.
 */
interface DemandCounting {
  byDemand: boolean;
  noDemandRow: boolean;
}

/** A stored row that carries a request, not a demand source's fate or an impression of demand. */
export const REQUEST_ROW = '(tag_id = 0 AND campaign_id = 0 AND adexchange_id = 0)';

export function demandCountingOf(
  request: Pick<ReportRequest, 'dimensions' | 'filters'> & { demandOnly?: boolean },
): DemandCounting {
  const demandFilters = Object.entries(request.filters).filter(
    ([id, values]) => values.length > 0 && isDemandDimension(id as DimensionId),
  );
  const byDemand = isDemandReport(request.dimensions) || demandFilters.length > 0;
  // `demandOnly` keeps real demand alone (reportSql.ts whereSql): no row of requests is read
  if (!byDemand || request.demandOnly) return { byDemand, noDemandRow: false };
  const demandOnly = demandFilters.some(([id, values]) => {
    const entity = DIMENSION_BY_ID[id as DimensionId].type === 'entity';
    return values.every((v) => (entity ? Number(v) > 0 : String(v) !== ''));
  });
  return { byDemand, noDemandRow: !demandOnly };
}
