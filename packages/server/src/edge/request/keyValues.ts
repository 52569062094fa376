import { isTagMacroName, macroText, type RawQuery } from './macros.js';

/**
 * A request's key-values (custom targeting parameters), as `key=value` pairs in lower case, each
 * once: what key-value targeting matches (targeting/compiledTargeting.ts). A VAST tag call carries
 * them as `kv` or `cust_params` (`genre=sports&rating=pg`, URL-encoded once in the tag, as Google Ad
 * Manager's `cust_params`; `;` also separates pairs) and as parameters of their own (`&genre=sports`):
 * every parameter that is not one of the tag's macros. A bid request carries them as first-party
 * data: `imp.ext.data` (Prebid.js's `ortb2Imp.ext.data`) and `site.ext.data` or `app.ext.data`
 * (`ortb2.site.ext.data`). Several values of a key are separated by commas (`genre=sports,news`) or
 * given as an array. Unfilled macros, keys outside KEY and values outside VALUE are left out.
 */
export const NO_KEY_VALUES: readonly string[] = Object.freeze([]);

/** At most this many pairs a request: a tag cannot make targeting scan thousands. */
const MAX_PAIRS = 32;
const KEY = /^[a-z0-9_][a-z0-9_.-]{0,39}$/;
const VALUE = /^[^=,;&]{1,100}$/;
/** The edge's own parameters besides the macros: not key-values. */
const EDGE_PARAMS = new Set(['debug', 'token', 'vast_version', 'kv', 'cust_params']);

function add(out: string[], key: string, value: string): void {
  if (out.length >= MAX_PAIRS) return;
  const k = key.trim().toLowerCase();
  const v = macroText(value).toLowerCase();
  if (!v || !KEY.test(k) || !VALUE.test(v)) return;
  const pair = `${k}=${v}`;
  if (!out.includes(pair)) out.push(pair);
}

/** `key` with each of the comma-separated values of `text`. */
function addValues(out: string[], key: string, text: string): void {
  for (const value of text.split(',')) add(out, key, value);
}

/** `genre=sports&rating=pg` (or `;`-separated) read into pairs. */
function addPairsText(out: string[], text: string): void {
  for (const part of text.split(/[&;]/)) {
    const eq = part.indexOf('=');
    if (eq > 0) addValues(out, part.slice(0, eq), part.slice(eq + 1));
  }
}

const first = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));

/** The key-values of a VAST tag call's query. */
export function keyValuesOfQuery(raw: RawQuery): readonly string[] {
  let out: string[] | null = null;
  for (const name in raw) {
    if (name === 'kv' || name === 'cust_params') addPairsText((out ??= []), first(raw[name]));
    else if (!isTagMacroName(name) && !EDGE_PARAMS.has(name)) addValues((out ??= []), name, first(raw[name]));
  }
  return out?.length ? out : NO_KEY_VALUES;
}

const record = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** The pairs of one first-party data object: text, number and boolean values, and arrays of them. */
function addData(out: string[], data: Record<string, unknown> | null): void {
  if (!data) return;
  for (const key in data) {
    const v = data[key];
    const values = Array.isArray(v) ? v : [v];
    for (const value of values)
      if (typeof value === 'string') addValues(out, key, value);
      else if (typeof value === 'number' || typeof value === 'boolean') add(out, key, String(value));
  }
}

/** The key-values of one impression of a bid request: the impression's first-party data, then the site's or app's. */
export function keyValuesOfBidRequest(
  request: { site?: unknown; app?: unknown },
  imp: { ext?: unknown },
): readonly string[] {
  const out: string[] = [];
  addData(out, record(record(imp.ext)?.data));
  const place = record(request.app) ?? record(request.site);
  addData(out, record(record(place?.ext)?.data));
  return out.length ? out : NO_KEY_VALUES;
}
