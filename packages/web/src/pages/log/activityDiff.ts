import { EMPTY_MARK } from '../../format/empty.js';

/** Fields every row carries that say nothing about what a person changed. */
const META = new Set(['id', 'tenantId', 'createdAt', 'updatedAt', 'archivedAt']);

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The fields whose value differs between two versions of a row (a create or delete lists every field). */
export function diffFields(before: unknown, after: unknown): FieldChange[] {
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => !META.has(k));
  return keys
    .filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]))
    .sort()
    .map((field) => ({ field, before: b[field], after: a[field] }));
}

/** A value as one line of text for the changes table. */
export function showValue(v: unknown): string {
  if (v === undefined) return '';
  if (v === null) return EMPTY_MARK;
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** The name of the row an entry is about, from whichever version has one. */
export function entryName(before: unknown, after: unknown): string {
  for (const v of [after, before]) if (isRecord(v) && typeof v.name === 'string') return v.name;
  for (const v of [after, before]) if (isRecord(v) && typeof v.key === 'string') return v.key;
  return '';
}
