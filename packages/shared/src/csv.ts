/**
 * The cells of every file adplane writes for a spreadsheet (report CSVs of the console and of report
 * files, the finance export, allow/block lists): one rule for all of them.
 *
 * Text can come from anyone (an app bundle or a domain arrives on an unauthenticated ad request), and
 * a spreadsheet reads a cell that starts with `=`, `+`, `-`, `@`, a tab, a carriage return or a NUL
 * as a formula whatever follows (`-1+cmd|' /C calc'!A0`, `-2-HYPERLINK(...)`). So a text cell that
 * starts with one of them gets a leading `'` (the spreadsheet then reads it as text) and is quoted
 * (OWASP's CSV injection advice). A text cell is text even when it looks like a number: `-1` as an
 * app bundle is written `"'-1"`. Text holding `"`, `,`, `;`, a tab or a line break is quoted too, so
 * that no part of it starts a cell of its own (`;` separates cells in some locales' spreadsheets).
 *
 * Numbers are written as numbers (`-1.5`, never quoted nor prefixed): only a number value is one, so
 * a caller with a number in hand passes the number, not text it formatted.
 */

/** What makes a spreadsheet read a cell as a formula when the cell starts with it. */
const FORMULA_START = /^[=+\-@\t\r\0]/;
/** What only a quoted cell may hold. */
const NEEDS_QUOTES = /[",;\t\n\r]/;

/** A text cell: neutralised when a spreadsheet would read it as a formula, quoted when it must be. */
export function csvText(value: string): string {
  if (FORMULA_START.test(value)) return `"'${value.replaceAll('"', '""')}"`;
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A number cell: the number itself (`decimals` fixed when given), empty for a value that is not finite. */
export function csvNumber(value: number, decimals?: number): string {
  if (!Number.isFinite(value)) return '';
  return decimals === undefined ? String(value) : value.toFixed(decimals);
}

/** A cell of any value: numbers as numbers, null and undefined empty, anything else as text. */
export function csvCell(value: unknown): string {
  if (typeof value === 'number') return csvNumber(value);
  if (typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return '';
  return csvText(String(value));
}

/**
 * A text cell as it was before `csvText` neutralised it (the leading `'` dropped), for an import that
 * reads back a file adplane wrote: quotes already removed by the caller.
 */
export const csvTextValue = (cell: string): string =>
  cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
