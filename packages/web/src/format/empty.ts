/**
 * The console's one mark for "no value": an em dash, in lists, read-only forms, descriptions and
 * tooltips alike (EmptyValue draws it in the secondary grey). Use this, never a hyphen or "None",
 * so the mark cannot drift from page to page again.
 */
export const EMPTY_MARK = '—';

/** Whether a value shows as the empty mark: absent, null, blank text or an empty list. */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/** A value as text, or the empty mark (tooltips, chart labels, plain-text cells). */
export function textOrEmpty(value: string | number | null | undefined): string {
  return isEmptyValue(value) ? EMPTY_MARK : String(value);
}
