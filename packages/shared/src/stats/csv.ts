/**
 * A report as CSV, the same for the console's export and the server's report files: one column per
 * dimension (entity dimensions: id and name), one per metric in people's units (USD and percent with
 * 2 decimals), the totals row last.
 */
import { DIMENSION_BY_ID, type DimensionId, nameField } from './dimensions.js';
import { METRIC_BY_ID, type MetricId, metricCsvValue } from './metrics.js';
import { type ReportRow } from './report.js';

export function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  // Quote what a spreadsheet would split or read as a formula.
  const safe = /^[=+\-@]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function reportCsvHeader(dimensions: readonly DimensionId[], metrics: readonly MetricId[]): string {
  const cells: string[] = [];
  for (const id of dimensions) {
    const def = DIMENSION_BY_ID[id];
    cells.push(def.type === 'entity' ? `${def.label} Id` : def.label);
    if (def.type === 'entity') cells.push(def.label);
  }
  for (const id of metrics) cells.push(METRIC_BY_ID[id].label);
  return cells.map(csvCell).join(',');
}

export function reportCsvLine(dimensions: readonly DimensionId[], metrics: readonly MetricId[], row: ReportRow): string {
  const cells: string[] = [];
  for (const id of dimensions) {
    const entity = DIMENSION_BY_ID[id].type === 'entity';
    if (row.total) {
      cells.push(cells.length === 0 ? 'Total' : '');
      if (entity) cells.push('');
      continue;
    }
    cells.push(csvCell(row[id]));
    if (entity) cells.push(csvCell(row[nameField(id)]));
  }
  if (dimensions.length === 0 && row.total) cells.length = 0;
  for (const id of metrics) cells.push(metricCsvValue(id, row[id] as number));
  return cells.join(',');
}

export function reportCsv(dimensions: readonly DimensionId[], metrics: readonly MetricId[], rows: readonly ReportRow[]): string {
  return [reportCsvHeader(dimensions, metrics), ...rows.map((r) => reportCsvLine(dimensions, metrics, r))].join('\n') + '\n';
}
