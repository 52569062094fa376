/** JSON columns are text; a damaged document reads as the fallback instead of failing the request. */
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

export const nowIso = (): string => new Date().toISOString();

/** A stored instant (created_at, updated_at) in epoch ms: PostgreSQL hands a Date, SQLite the ISO text; NaN when unreadable. */
export const storedMs = (v: unknown): number => (v instanceof Date ? v.getTime() : Date.parse(String(v)));
