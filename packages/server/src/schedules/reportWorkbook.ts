import ExcelJS from 'exceljs';
import { csvTextValue, DIMENSION_BY_ID, type ReportRequest } from '@adplane/shared';

/** The cells of one CSV line as adplane writes them (shared/csv.ts): quoted cells unquoted, `""` as `"`. */
export function csvCells(line: string): { text: string; quoted: boolean }[] {
  const cells: { text: string; quoted: boolean }[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let text = '';
      i++;
      for (;;) {
        const quote = line.indexOf('"', i);
        if (quote < 0) throw new Error('Unterminated quoted CSV cell');
        text += line.slice(i, quote);
        if (line[quote + 1] === '"') {
          text += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
      cells.push({ text, quoted: true });
    } else {
      const comma = line.indexOf(',', i);
      cells.push({ text: line.slice(i, comma < 0 ? line.length : comma), quoted: false });
      i = comma < 0 ? line.length : comma;
    }
    if (i >= line.length) return cells;
    i++; // the comma
  }
}

/** Which columns of a report's CSV hold numbers: entity ids and every metric; the other dimensions are text. */
function numberColumns(request: Pick<ReportRequest, 'dimensions' | 'metrics'>): boolean[] {
  const columns: boolean[] = [];
  for (const id of request.dimensions) {
    if (DIMENSION_BY_ID[id].type === 'entity') columns.push(true, false);
    else columns.push(false);
  }
  for (const _m of request.metrics) columns.push(true);
  return columns;
}

/**
 * The report file's CSV (header, rows, totals last) as an XLSX workbook of one sheet: numbers as
 * numbers, text as text (a text cell is never a formula in a workbook, so the CSV's guard `'` is
 * dropped), the header bold and frozen.
 */
export async function reportWorkbook(
  csv: string,
  request: Pick<ReportRequest, 'dimensions' | 'metrics'>,
  sheetName: string,
): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'adplane';
  const sheet = workbook.addWorksheet(sheetName.replace(/[[\]*?:/\\]/g, ' ').slice(0, 31) || 'Report', {
    views: [{ state: 'frozen', ySplit: 1 }],
  });
  const numeric = numberColumns(request);
  const lines = csv.split('\n').filter((l) => l !== '');
  for (const [n, line] of lines.entries()) {
    const cells = csvCells(line);
    const values = cells.map(({ text, quoted }, column) => {
      if (n > 0 && numeric[column] && !quoted && text !== '' && Number.isFinite(Number(text))) return Number(text);
      return csvTextValue(text);
    });
    const row = sheet.addRow(values);
    if (n === 0 || n === lines.length - 1) row.font = { bold: true };
  }
  sheet.columns.forEach((column) => {
    column.width = 16;
  });
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}
