import { type BidRequest } from '@adplane/shared';

/**
 * Checks a parsed JSON body against what OpenRTB 2.5/2.6 requires of a bid request before anything
 * reads it: `id` a string, `imp` a non-empty array of objects each with a string `id`, the optional
 * numbers numbers (tmax, bidfloor, at) and the optional objects objects. Field values the decision
 * reads are read by type again later (request/openrtbContext.ts), so this is the contract check, not
 * a full schema: a request that fails it gets a 400 naming the field and the reason.
 */
export type ReadResult = { ok: true; request: BidRequest } | { ok: false; field: string; reason: string };

/** A JSON object (not an array, not null): what the readers of bid requests and answers check a field is. */
export const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const OBJECTS = ['site', 'app', 'dooh', 'device', 'user', 'regs', 'source'] as const;
const IMP_OBJECTS = ['banner', 'video', 'audio', 'native', 'pmp'] as const;
const MAX_IMPS = 100;

const fail = (field: string, reason: string): ReadResult => ({ ok: false, field, reason });
const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string');
const isInts = (v: unknown): boolean => Array.isArray(v) && v.every((n) => Number.isInteger(n));
const isSize = (v: unknown): boolean => v === undefined || (typeof v === 'number' && v >= 0);

/**
 * What real exchanges write that the spec spells otherwise, read as the spec means it, in place (the
 * body is ours, just parsed; nothing is allocated for a request that needs none of it):
 * - `null` is a field not sent (JSON's "nothing here"; Go and Java encoders write it for unset pointers);
 * - a number written as a string ("0.50", "300": Go's `,string` tags, PHP encoders) is that number;
 * - an id written as a number (`"id": 1`, a deal's `"id": 448812`: encoders that keep ids as integers)
 *   is its text, which the answer echoes (bid.impid, dealid) as the spec's string;
 * - a flag written as a boolean (`"test": true`, `"private_auction": false`) is 1 or 0.
 * `present`, `numeric`, `idText` and `flag` return the field's value after that reading.
 */
const NUMERIC = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
function present(o: Record<string, unknown>, key: string): unknown {
  const v = o[key];
  if (v !== null) return v;
  delete o[key];
  return undefined;
}
function numeric(o: Record<string, unknown>, key: string): unknown {
  const v = o[key];
  if (typeof v === 'string') {
    if (!NUMERIC.test(v)) return v;
    return (o[key] = Number(v));
  }
  return v === null ? present(o, key) : v;
}
/** An id field: a whole number written as a number is its text (a fraction or a float's exponent is no id: left to fail). */
function idText(o: Record<string, unknown>, key: string): unknown {
  const v = o[key];
  return typeof v === 'number' && Number.isSafeInteger(v) ? (o[key] = String(v)) : v;
}
/** A 0/1 flag: true and false are 1 and 0, a number written as a string that number. */
function flag(o: Record<string, unknown>, key: string): unknown {
  const v = o[key];
  return typeof v === 'boolean' ? (o[key] = v ? 1 : 0) : numeric(o, key);
}
/** A list of numbers whose entries may be written as strings ("15"): each read as its number, in place. */
function numbers(o: Record<string, unknown>, key: string): unknown {
  const v = present(o, key);
  if (Array.isArray(v))
    for (let i = 0; i < v.length; i++)
      if (typeof v[i] === 'string' && NUMERIC.test(v[i] as string)) v[i] = Number(v[i]);
  return v;
}
/** A currency code field: null or '' is none (USD, the spec's default). */
function currency(o: Record<string, unknown>, key: string): unknown {
  const v = o[key];
  if (v === null || (typeof v === 'string' && !v.trim())) {
    delete o[key];
    return undefined;
  }
  return v;
}
/** `ext` is the sender's own: one of another type than an object is dropped, not a reason to refuse the request. */
function dropOddExt(o: Record<string, unknown>): void {
  if (o.ext !== undefined && !isObj(o.ext)) delete o.ext;
}

/** The fields of banner and video that decide what we may bid with: sizes, formats, mimes, protocols, durations. */
function readMedia(imp: Record<string, unknown>, at: string): ReadResult | null {
  const banner = imp.banner as Record<string, unknown> | undefined;
  if (banner) {
    if (!isSize(numeric(banner, 'w')) || !isSize(numeric(banner, 'h')))
      return fail(`${at}.banner.${isSize(banner.w) ? 'h' : 'w'}`, 'must be a number of at least 0');
    const format = present(banner, 'format');
    if (format !== undefined && (!Array.isArray(format) || !format.every(isObj)))
      return fail(`${at}.banner.format`, 'must be an array of objects');
    if (format) {
      for (const f of format as Record<string, unknown>[]) {
        numeric(f, 'w');
        numeric(f, 'h');
      }
    }
  }
  const video = imp.video as Record<string, unknown> | undefined;
  if (video) {
    if (!isSize(numeric(video, 'w')) || !isSize(numeric(video, 'h')))
      return fail(`${at}.video.${isSize(video.w) ? 'h' : 'w'}`, 'must be a number of at least 0');
    const mimes = present(video, 'mimes');
    if (mimes !== undefined && !isStrings(mimes)) return fail(`${at}.video.mimes`, 'must be an array of strings');
    const protocols = numbers(video, 'protocols');
    if (protocols !== undefined && !isInts(protocols))
      return fail(`${at}.video.protocols`, 'must be an array of integers');
    for (const key of ['minduration', 'maxduration', 'poddur', 'maxseq', 'mincpmpersec'] as const)
      if (!isSize(numeric(video, key))) return fail(`${at}.video.${key}`, 'must be a number of at least 0');
    const rqddurs = numbers(video, 'rqddurs');
    if (rqddurs !== undefined && !(isInts(rqddurs) && (rqddurs as number[]).every((d) => d > 0)))
      return fail(`${at}.video.rqddurs`, 'must be an array of whole seconds above 0');
    present(video, 'durfloors');
  }
  return null;
}

function readPmp(pmp: Record<string, unknown>, at: string): ReadResult | null {
  const privateAuction = flag(pmp, 'private_auction');
  if (privateAuction !== undefined && privateAuction !== 0 && privateAuction !== 1)
    return fail(`${at}.pmp.private_auction`, 'must be 0 or 1');
  const deals = present(pmp, 'deals');
  if (deals === undefined) return null;
  if (!Array.isArray(deals)) return fail(`${at}.pmp.deals`, 'must be an array');
  for (let d = 0; d < deals.length; d++) {
    const deal: unknown = deals[d];
    if (!isObj(deal) || typeof idText(deal, 'id') !== 'string' || !deal.id)
      return fail(`${at}.pmp.deals[${d}].id`, 'must be a non-empty string');
    const floor = numeric(deal, 'bidfloor');
    if (floor !== undefined && (typeof floor !== 'number' || !(floor >= 0)))
      return fail(`${at}.pmp.deals[${d}].bidfloor`, 'must be a number of at least 0');
    const cur = currency(deal, 'bidfloorcur');
    if (cur !== undefined && typeof cur !== 'string')
      return fail(`${at}.pmp.deals[${d}].bidfloorcur`, 'must be a currency code');
    const dealAt = numeric(deal, 'at');
    if (dealAt !== undefined && !Number.isInteger(dealAt))
      return fail(`${at}.pmp.deals[${d}].at`, 'must be an integer');
    const wseat = present(deal, 'wseat');
    if (wseat !== undefined && !isStrings(wseat))
      return fail(`${at}.pmp.deals[${d}].wseat`, 'must be an array of strings');
    numeric(deal, 'mincpmpersec');
  }
  return null;
}

export function readBidRequest(body: unknown): ReadResult {
  if (!isObj(body)) return fail('', 'must be a JSON object');
  if (typeof idText(body, 'id') !== 'string' || !body.id) return fail('id', 'must be a non-empty string');
  if (!Array.isArray(body.imp) || body.imp.length === 0) return fail('imp', 'must be a non-empty array');
  if (body.imp.length > MAX_IMPS) return fail('imp', `must hold at most ${MAX_IMPS} impressions`);
  for (const key of OBJECTS) {
    const v = present(body, key);
    if (v !== undefined && !isObj(v)) return fail(key, 'must be an object');
  }
  dropOddExt(body);
  if (body.site !== undefined && body.app !== undefined) return fail('app', 'must not be sent together with site');
  const tmax = numeric(body, 'tmax');
  if (tmax !== undefined && (typeof tmax !== 'number' || !(tmax >= 0)))
    return fail('tmax', 'must be a number of milliseconds');
  const auction = numeric(body, 'at');
  if (auction !== undefined && !Number.isInteger(auction)) return fail('at', 'must be an integer');
  const test = flag(body, 'test');
  if (test !== undefined && test !== 0 && test !== 1) return fail('test', 'must be 0 or 1');
  // a single currency written as a string instead of a list of one; an empty code names none (USD)
  if (typeof body.cur === 'string') body.cur = [body.cur];
  if (Array.isArray(body.cur) && body.cur.includes('')) {
    const named = body.cur.filter((c) => c !== '');
    if (named.length) body.cur = named;
    else delete body.cur;
  }
  for (const key of ['bcat', 'badv', 'bapp', 'wseat', 'bseat', 'cur'] as const) {
    const v = present(body, key);
    if (v !== undefined && (!Array.isArray(v) || v.some((s) => typeof s !== 'string')))
      return fail(key, 'must be an array of strings');
  }
  if (body.device) numeric(body.device as Record<string, unknown>, 'devicetype');
  const ids = new Set<string>();
  for (let i = 0; i < body.imp.length; i++) {
    const imp: unknown = body.imp[i];
    const at = `imp[${i}]`;
    if (!isObj(imp)) return fail(at, 'must be an object');
    const id = idText(imp, 'id');
    if (typeof id !== 'string' || !id) return fail(`${at}.id`, 'must be a non-empty string');
    if (ids.has(id)) return fail(`${at}.id`, 'must be unique within the request');
    ids.add(id);
    for (const key of IMP_OBJECTS) {
      const v = present(imp, key);
      if (v !== undefined && !isObj(v)) return fail(`${at}.${key}`, 'must be an object');
    }
    dropOddExt(imp);
    const floor = numeric(imp, 'bidfloor');
    if (floor !== undefined && (typeof floor !== 'number' || !(floor >= 0)))
      return fail(`${at}.bidfloor`, 'must be a number of at least 0');
    const cur = currency(imp, 'bidfloorcur');
    if (cur !== undefined && typeof cur !== 'string') return fail(`${at}.bidfloorcur`, 'must be a currency code');
    const media = readMedia(imp, at);
    if (media) return media;
    const pmp = imp.pmp as Record<string, unknown> | undefined;
    const deals = pmp ? readPmp(pmp, at) : null;
    if (deals) return deals;
  }
  return { ok: true, request: body as unknown as BidRequest };
}

/** USD CPM (OpenRTB prices) to integer micro-dollars CPM, and back. */
export const cpmToMicros = (usdCpm: number): number => Math.round(usdCpm * 1_000_000);
export const microsToCpm = (micros: number): number => Math.round(micros) / 1_000_000;
