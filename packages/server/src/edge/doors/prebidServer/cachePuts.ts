import { type CachedDoc } from './bidCache.js';

/**
 * `POST /cache` as Prebid Cache answers it, so that Prebid.js's `cache.url` (its videoCache module:
 * a client-side video bid's VAST, or every bid's with `ignoreBidderCacheKey`) and any other Prebid
 * Cache client can store documents in the same cache the auction fills:
 *
 *   {"puts": [{"type": "xml", "value": "<VAST ...>", "ttlseconds": 300}, {"type": "json", "value": {...}}]}
 *   -> {"responses": [{"uuid": "..."}, {"uuid": "..."}]}  (same order; each served at GET /cache?uuid=)
 *
 * As Prebid Cache's defaults: at most MAX_PUTS documents a request, an `xml` value must be a string,
 * a `json` value any JSON (stored as written), each at most MAX_VALUE_BYTES; a `key` of the caller's
 * own is not honoured (Prebid Cache's allow_setting_keys is off by default): every entry gets a
 * random UUID. Other fields of a put (Prebid.js sends bidid, bidder, timestamp, aid) are ignored.
 * `ttlseconds` as for the auction's entries: 5 minutes by default, 15 at most.
 */
const MAX_PUTS = 10;
const MAX_VALUE_BYTES = 100 * 1024;

interface CachePut {
  doc: CachedDoc;
  ttlSeconds: number | null;
}

/** A `puts` list read, or the first refusal's message. */
export type PutsRead<T> = { ok: true; puts: T[] } | { ok: false; message: string };
export type CachePutsRead = PutsRead<CachePut>;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What POST /cache and /vtrack both hold a put to: a value of at most MAX_VALUE_BYTES, and a
 * `ttlseconds` that is absent or a non-negative number (whole seconds kept). The put's `ttlSeconds`
 * (null: the default), or the message naming `at`'s field.
 */
export function putLimits(at: string, text: string, ttl: unknown): { ttlSeconds: number | null } | { message: string } {
  if (Buffer.byteLength(text) > MAX_VALUE_BYTES)
    return { message: `${at}.value is larger than ${MAX_VALUE_BYTES / 1024} KB` };
  if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0))
    return { message: `${at}.ttlseconds must be a non-negative number` };
  return { ttlSeconds: typeof ttl === 'number' ? Math.floor(ttl) : null };
}

/**
 * A `puts` list as POST /cache and /vtrack both read it: at most MAX_PUTS, each an object, read by
 * `readOne` with its path (`puts[i]`), which answers the put or the message refusing it.
 */
export function readPuts<T>(
  list: unknown[],
  readOne: (put: Record<string, unknown>, at: string) => T | string,
): PutsRead<T> {
  if (list.length > MAX_PUTS)
    return { ok: false, message: `puts has ${list.length} elements; at most ${MAX_PUTS} are allowed` };
  const puts: T[] = [];
  for (let i = 0; i < list.length; i++) {
    const at = `puts[${i}]`;
    const p: unknown = list[i];
    if (!isObject(p)) return { ok: false, message: `${at} must be an object` };
    const put = readOne(p, at);
    if (typeof put === 'string') return { ok: false, message: put };
    puts.push(put);
  }
  return { ok: true, puts };
}

export function readCachePuts(body: unknown): CachePutsRead {
  if (!isObject(body) || !Array.isArray(body.puts))
    return { ok: false, message: 'the body must be an object with a "puts" array' };
  if (body.puts.length === 0) return { ok: false, message: 'puts must not be empty' };
  return readPuts(body.puts, (p, at) => {
    if (p.type !== 'xml' && p.type !== 'json') return `${at}.type must be "xml" or "json"`;
    if (p.value === undefined || p.value === null) return `${at}.value is missing`;
    if (p.type === 'xml' && typeof p.value !== 'string') return `${at}.value must be a string of XML for type "xml"`;
    const text = typeof p.value === 'string' && p.type === 'xml' ? p.value : JSON.stringify(p.value);
    if (!text.trim()) return `${at}.value is empty`;
    const limits = putLimits(at, text, p.ttlseconds);
    if ('message' in limits) return limits.message;
    return { doc: { type: p.type, body: text }, ttlSeconds: limits.ttlSeconds };
  });
}
