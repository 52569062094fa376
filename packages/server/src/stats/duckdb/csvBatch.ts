import { DIMENSION_COLUMNS, type HourlyRow, type HourlyRows, METRIC_COLUMNS } from '../hourlyRow.js';
import { checkRow } from '../statsStore.js';

/**
 * A batch of stats rows as the DuckDB store reads it: CSV text, apart from the store so that a
 * worker of `--workers N` encodes its own batches (cluster/ipcStatsStore.ts) and the primary, which
 * alone opens the file, only writes them. Sending the rows as objects cost the primary a third of a
 * core to decode and encode at full load (docs/performance.md, "Workers").
 */
export const CSV_COLUMNS: readonly (keyof HourlyRow)[] = [...DIMENSION_COLUMNS, ...METRIC_COLUMNS];

/** A CSV field: numbers as they are, text always quoted (a quote doubled), so '' stays '' (not null). */
const csvText = (v: unknown): string => {
  const s = String(v);
  return s.includes('"') ? `"${s.replaceAll('"', '""')}"` : `"${s}"`;
};

/**
 * Rows as CSV in table order (DIMENSION_COLUMNS, then METRIC_COLUMNS), no header, each row checked
 * (checkRow) as it is read: a bad row throws and nothing is written. Each line is its fields joined,
 * the text the lines joined: concatenating field by field into one string made a rope that cost 2.5
 * times as much to build and flatten (13 µs a row).
 */
export function batchCsv(rows: HourlyRows): string {
  const lines = new Array<string>(rows.length);
  const fields = new Array<string>(CSV_COLUMNS.length);
  let r = 0;
  for (const row of rows) {
    checkRow(row, r);
    for (let i = 0; i < CSV_COLUMNS.length; i++) {
      const v = row[CSV_COLUMNS[i]!];
      fields[i] = typeof v === 'number' ? String(v) : csvText(v);
    }
    lines[r++] = fields.join(',');
  }
  lines.length = r;
  return r ? `${lines.join('\n')}\n` : '';
}
