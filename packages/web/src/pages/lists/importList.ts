import { type ListKind, type ParsedList, parseListText } from '@adplane/shared';

/**
 * The entries of an allow/block list as the form holds them (a textarea, one entry per line), and
 * the CSV import that merges a file into them. Parsing is `parseListText` of the shared contract:
 * first column, trimmed, quotes removed, deduplicated, invalid lines reported with their numbers.
 */

export interface ImportReport {
  /** Entries of the file that were not in the list yet. */
  added: number;
  /** Lines dropped as repeats: inside the file, or already in the list. */
  duplicates: number;
  /** Lines of the file that are not an entry of this kind (a header line is one of them). */
  invalid: ParsedList['invalid'];
  /** Entries in the list after the import. */
  total: number;
}

/** The entries the text holds, as they will be saved (normalised, deduplicated). */
export function listEntries(kind: ListKind, text: string): ParsedList {
  return parseListText(kind, text);
}

/** Merge the file's entries after the ones already typed; the textarea keeps what was typed as it was. */
export function mergeImport(
  kind: ListKind,
  currentText: string,
  fileText: string,
): { text: string; report: ImportReport } {
  const current = parseListText(kind, currentText);
  const incoming = parseListText(kind, fileText);
  const have = new Set(current.items);
  const added = incoming.items.filter((item) => !have.has(item));
  const kept = currentText.replace(/\s+$/, '');
  return {
    text: [kept, ...added].filter((part) => part !== '').join('\n'),
    report: {
      added: added.length,
      duplicates: incoming.duplicates + (incoming.items.length - added.length),
      invalid: incoming.invalid,
      total: current.items.length + added.length,
    },
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** '2 added, 1 duplicate removed, 2 invalid lines' */
export function reportHeadline(report: ImportReport): string {
  return [
    `${report.added} added`,
    `${plural(report.duplicates, 'duplicate')} removed`,
    plural(report.invalid.length, 'invalid line'),
  ].join(', ');
}

/** 'line 4 "not a bundle!" is not an app bundle (com.example.app) or store id', the first `max` of them. */
export function invalidLines(invalid: ParsedList['invalid'], max = 20): string[] {
  const lines = invalid.slice(0, max).map((i) => `line ${i.line} "${i.value}" ${i.reason}`);
  if (invalid.length > max) lines.push(`and ${plural(invalid.length - max, 'more invalid line')}`);
  return lines;
}

/** The whole report in one sentence, as the panel reads it. */
export function formatReport(report: ImportReport): string {
  const head = reportHeadline(report);
  return report.invalid.length ? `${head}: ${invalidLines(report.invalid).join('; ')}` : head;
}

/** The validator's message for a textarea holding lines that are not entries of this kind. */
export function invalidMessage(invalid: ParsedList['invalid']): string | null {
  if (invalid.length === 0) return null;
  const first = invalidLines(invalid, 3).join('; ');
  return `${plural(invalid.length, 'line is', 'lines are')} not valid, fix or remove ${invalid.length === 1 ? 'it' : 'them'}: ${first}`;
}
