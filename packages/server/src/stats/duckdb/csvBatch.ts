import { type HourlyRows } from '../hourlyRow.js';
import { type ColumnKind, fits, HOUR, ID, kindOf, METRIC, ROW_COLUMNS, rowError } from '../statsStore.js';

/**
 * A batch of stats rows as the DuckDB store reads it: CSV text, apart from the store so that a
 * worker of `--workers N` encodes its own batches (cluster/ipcStatsStore.ts) and the primary, which
 * alone opens the file, only writes them. Sending the rows as objects cost the primary a third of a
 * core to decode and encode at full load (docs/performance.md, "Workers").
 */
export const CSV_COLUMNS = ROW_COLUMNS;

const KINDS: readonly ColumnKind[] = CSV_COLUMNS.map(kindOf);
/**
 * Per column, whether it holds a number (an id or a metric) and the least it takes (ids 0, metrics
 * any whole number: statsStore.ts fits), and where the hour is: the loop reads these, not the kinds
 * through an imported function.
 */
const IS_NUMBER: readonly boolean[] = KINDS.map((k) => k === ID || k === METRIC);
const LEAST: readonly number[] = KINDS.map((k) => (k === ID ? 0 : -Infinity));
const HOUR_AT = KINDS.indexOf(HOUR);
const UNSEEN = {};

/** A CSV text field: always quoted (a quote doubled), so '' stays '' (not null). */
const csvText = (s: string): string => (s.includes('"') ? `"${s.replaceAll('"', '""')}"` : `"${s}"`);

/**
 * Rows as CSV in table order (DIMENSION_COLUMNS, then METRIC_COLUMNS), no header, each field checked
 * as checkRow would as it is read: a bad row throws and nothing is written. Each line is its fields
 * joined, the text the lines joined: concatenating field by field into one string made a rope that
 * cost 2.5 times as much to build and flatten (13 µs a row). A text is quoted once per batch, and
 * an hour checked once per batch: hours, countries, devices and reasons repeat on most rows.
 */
export function batchCsv(rows: HourlyRows): string {
  const lines = new Array<string>(rows.length);
  const fields = new Array<string>(CSV_COLUMNS.length);
  const quoted = new Map<string, string>();
  /** The last hour checked (a row's hour is most often its predecessor's). */
  let hour: unknown = UNSEEN;
  let r = 0;
  for (const row of rows) {
    for (let i = 0; i < CSV_COLUMNS.length; i++) {
      const v = row[CSV_COLUMNS[i]!];
      if (IS_NUMBER[i]) {
        if (!Number.isSafeInteger(v) || (v as number) < LEAST[i]!) throw rowError(r, CSV_COLUMNS[i]!, KINDS[i]!, v);
        fields[i] = String(v);
        continue;
      }
      if (i === HOUR_AT && v !== hour) {
        if (!fits(KINDS[i]!, v)) throw rowError(r, CSV_COLUMNS[i]!, KINDS[i]!, v);
        hour = v;
      }
      let q = quoted.get(v as string);
      if (q === undefined) {
        if (typeof v !== 'string') throw rowError(r, CSV_COLUMNS[i]!, KINDS[i]!, v);
        quoted.set(v, (q = csvText(v)));
      }
      fields[i] = q;
    }
    lines[r++] = fields.join(',');
  }
  lines.length = r;
  return r ? `${lines.join('\n')}\n` : '';
}
