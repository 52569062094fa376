import { ENTITY_NAME_MAX, type StoredRow } from '@adplane/shared';
import { type z } from 'zod';

/**
 * Field readers for stored documents read without their schema (campaignRead.ts, supplyRead.ts):
 * each answers the value the schema would give for a value it can tell the schema takes, and
 * undefined (or PLAIN_NO) for any other, which sends the whole document to the schema. They may
 * refuse more than the schema does (a string past its bound in UTF-16 units, where the schema
 * counts code points), never less.
 */

/** What a field reader answers for a value it leaves to the schema (undefined being a value some fields take). */
export const PLAIN_NO: unique symbol = Symbol('left to the schema');

const MAX_MICROS = 1e15;
const MAX_IDS = 1000;

export const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
export const isMicros = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_MICROS;
/** A whole number from `min` to `max` (the schema's int: a safe integer). */
export const isWhole = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/** An optional id as the schema reads it (absent or null: null), undefined when the schema would not take it. */
export function optionalId(v: unknown): number | null | undefined {
  if (v === undefined || v === null) return null;
  return isId(v) ? v : undefined;
}

/** A list of ids without repeats (absent: none), undefined when the schema would not take it or would drop a repeat. */
export function idList(v: unknown): number[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > MAX_IDS) return undefined;
  for (let i = 0; i < v.length; i++) {
    if (!isId(v[i])) return undefined;
    for (let j = 0; j < i; j++) if (v[j] === v[i]) return undefined;
  }
  return v as number[];
}

/** A trimmed text of at most `max` characters (absent: ''), PLAIN_NO when the schema must read it. */
export function plainText(v: unknown, max: number): string | typeof PLAIN_NO {
  if (v === undefined || v === '') return '';
  if (typeof v !== 'string') return PLAIN_NO;
  const trimmed = v.trim();
  return trimmed.length <= max ? trimmed : PLAIN_NO;
}

/** A document's object (not an array, not null), undefined for any other value. */
export function documentOf(data: unknown): Record<string, unknown> | undefined {
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
}

/**
 * The row's name as the stored-row parser reads it (the name column, else the document's, else
 * `#<id>`), undefined when the schema's name rule (1 to ENTITY_NAME_MAX characters once trimmed) may refuse it.
 */
export function plainName(row: StoredRow, d: Record<string, unknown>): string | undefined {
  const name = row.name ?? (typeof d.name === 'string' && d.name ? d.name : `#${row.id}`);
  const trimmed = name.trim().length;
  return trimmed < 1 || trimmed > ENTITY_NAME_MAX ? undefined : name;
}

/**
 * A reader of the fields of `shape` that `known` does not name, each by its own schema: a field
 * added to the contract is read as the schema reads it before a plain reader learns it. Null when
 * there are none. It writes into `out` and answers false when a field's schema refuses its value
 * (the whole document then goes to the schema, for its reason).
 */
export function otherFields(
  shape: Readonly<Record<string, z.ZodType>>,
  known: readonly string[],
): ((d: Record<string, unknown>, out: Record<string, unknown>) => boolean) | null {
  const others = Object.keys(shape).filter((key) => !known.includes(key));
  if (!others.length) return null;
  return (d, out) => {
    for (const key of others) {
      const read = shape[key]!.safeParse(d[key]);
      if (!read.success) return false;
      out[key] = read.data;
    }
    return true;
  };
}

/** A field's value read by its own schema, PLAIN_NO when it refuses it. */
export function bySchema<T>(schema: z.ZodType<T>, v: unknown): T | typeof PLAIN_NO {
  const read = schema.safeParse(v);
  return read.success ? read.data : PLAIN_NO;
}
