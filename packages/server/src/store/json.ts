/** JSON columns are text; a damaged document reads as the fallback instead of failing the request. */

import { systemClock } from '../clock.js';
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * A row's stamp (created_at, updated_at, an activity's time), from the machine's clock: the snapshot
 * reads the rows stamped since the newest stamp it saw (edge/snapshot/parsedRows.ts), so every
 * process writing the config store stamps on the one clock they share, never an app's test clock.
 */
export const nowIso = (): string => new Date(systemClock.now()).toISOString();

/** A stored instant (created_at, updated_at) in epoch ms: PostgreSQL hands a Date, SQLite the ISO text; NaN when unreadable. */
export const storedMs = (v: unknown): number => (v instanceof Date ? v.getTime() : Date.parse(String(v)));
