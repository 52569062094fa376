/**
 * A report as CSV, the same for the console's export and the server's report files: one column per
 * dimension (entity dimensions: id and name), one per metric in people's units (USD and percent with
 * 2 decimals), the totals row last. Cells follow the one rule of `../csv.ts`: a text dimension's value
 * (an app bundle, a domain, a name) is text even when it looks like a number; metrics are numbers.
 */
import { csvCell, csvNumber, csvText } from '../csv.js';
import { type FinanceAnswer } from './dashboard.js';
import { DIMENSION_BY_ID, type DimensionId, nameField } from './dimensions.js';
import { METRIC_BY_ID, type MetricId, metricCsvValue } from './metrics.js';
import { type ReportRow } from './report.js';

const textOf = (value: unknown): string => csvText(value === null || value === undefined ? '' : String(value));

export function reportCsvHeader(dimensions: readonly DimensionId[], metrics: readonly MetricId[]): string {
  const cells: string[] = [];
  for (const id of dimensions) {
    const def = DIMENSION_BY_ID[id];
    cells.push(def.type === 'entity' ? `${def.label} Id` : def.label);
    if (def.type === 'entity') cells.push(def.label);
  }
  for (const id of metrics) cells.push(METRIC_BY_ID[id].label);
  return cells.map(csvText).join(',');
}

export function reportCsvLine(
  dimensions: readonly DimensionId[],
  metrics: readonly MetricId[],
  row: ReportRow,
): string {
  const cells: string[] = [];
  for (const id of dimensions) {
    const type = DIMENSION_BY_ID[id].type;
    if (row.total) {
      cells.push(cells.length === 0 ? 'Total' : '');
      if (type === 'entity') cells.push('');
      continue;
    }
    cells.push(type === 'text' ? textOf(row[id]) : csvCell(row[id]));
    if (type === 'entity') cells.push(textOf(row[nameField(id)]));
  }
  if (dimensions.length === 0 && row.total) cells.length = 0;
  for (const id of metrics) cells.push(metricCsvValue(id, row[id] as number));
  return cells.join(',');
}

export function reportCsv(
  dimensions: readonly DimensionId[],
  metrics: readonly MetricId[],
  rows: readonly ReportRow[],
): string {
  return (
    [reportCsvHeader(dimensions, metrics), ...rows.map((r) => reportCsvLine(dimensions, metrics, r))].join('\n') + '\n'
  );
}

const FINANCE_HEADER = [
  'Demand',
  'Time zone',
  'Price per 1,000 requests',
  'Price per 1,000 impressions',
  'Price per 1,000 post-bid impressions',
  'DSP revenue share %',
  'Requests',
  'Impressions',
  'Post-bid impressions',
  'Revenue',
  'System Cost',
];
/** Micro-dollars as dollars with 2 decimals. */
const dollars = (micros: number): string => csvNumber(micros / 1_000_000, 2);

/** The Financial Report as CSV: a line per demand account (its time zone as its offset from UTC in hours, prices and money in dollars), the totals last. */
export function financeCsv(answer: FinanceAnswer): string {
  const lines = [FINANCE_HEADER.map(csvText).join(',')];
  for (const r of answer.rows) {
    lines.push(
      [
        csvText(r.name),
        csvNumber(r.timezone),
        dollars(r.priceReq),
        dollars(r.priceImp),
        dollars(r.pricePostbid),
        csvNumber(r.priceDsp, 2),
        csvNumber(r.reqs),
        csvNumber(r.imps),
        csvNumber(r.postbidImps),
        dollars(r.revenue),
        dollars(r.systemCost),
      ].join(','),
    );
  }
  const t = answer.totals;
  lines.push(
    [
      'Total',
      '',
      '',
      '',
      '',
      '',
      csvNumber(t.reqs),
      csvNumber(t.imps),
      csvNumber(t.postbidImps),
      dollars(t.revenue),
      dollars(t.systemCost),
    ].join(','),
  );
  return `${lines.join('\n')}\n`;
}
