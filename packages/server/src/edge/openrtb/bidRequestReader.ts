import { type BidRequest, type Imp } from '@adplane/shared';

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
const OBJECTS = ['site', 'app', 'device', 'user', 'regs', 'source', 'ext'] as const;
const IMP_OBJECTS = ['banner', 'video', 'audio', 'native', 'pmp', 'ext'] as const;
export const MAX_IMPS = 100;

const fail = (field: string, reason: string): ReadResult => ({ ok: false, field, reason });
const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string');
const isInts = (v: unknown): boolean => Array.isArray(v) && v.every((n) => Number.isInteger(n));
const isSize = (v: unknown): boolean => v === undefined || (typeof v === 'number' && v >= 0);

/** The fields of banner and video that decide what we may bid with: sizes, formats, mimes, protocols, durations. */
function readMedia(imp: Record<string, unknown>, at: string): ReadResult | null {
  const banner = imp.banner as Record<string, unknown> | undefined;
  if (banner) {
    if (!isSize(banner.w) || !isSize(banner.h)) return fail(`${at}.banner.${isSize(banner.w) ? 'h' : 'w'}`, 'must be a number of at least 0');
    if (banner.format !== undefined && (!Array.isArray(banner.format) || !banner.format.every(isObj))) return fail(`${at}.banner.format`, 'must be an array of objects');
  }
  const video = imp.video as Record<string, unknown> | undefined;
  if (video) {
    if (!isSize(video.w) || !isSize(video.h)) return fail(`${at}.video.${isSize(video.w) ? 'h' : 'w'}`, 'must be a number of at least 0');
    if (video.mimes !== undefined && !isStrings(video.mimes)) return fail(`${at}.video.mimes`, 'must be an array of strings');
    if (video.protocols !== undefined && !isInts(video.protocols)) return fail(`${at}.video.protocols`, 'must be an array of integers');
    for (const key of ['minduration', 'maxduration', 'poddur', 'maxseq', 'mincpmpersec'] as const) if (!isSize(video[key])) return fail(`${at}.video.${key}`, 'must be a number of at least 0');
    if (video.rqddurs !== undefined && !(isInts(video.rqddurs) && (video.rqddurs as number[]).every((d) => d > 0))) return fail(`${at}.video.rqddurs`, 'must be an array of whole seconds above 0');
  }
  return null;
}

export function readBidRequest(body: unknown): ReadResult {
  if (!isObj(body)) return fail('', 'must be a JSON object');
  if (typeof body.id !== 'string' || !body.id) return fail('id', 'must be a non-empty string');
  if (!Array.isArray(body.imp) || body.imp.length === 0) return fail('imp', 'must be a non-empty array');
  if (body.imp.length > MAX_IMPS) return fail('imp', `must hold at most ${MAX_IMPS} impressions`);
  for (const key of OBJECTS) if (body[key] !== undefined && !isObj(body[key])) return fail(key, 'must be an object');
  if (body.site !== undefined && body.app !== undefined) return fail('app', 'must not be sent together with site');
  if (body.tmax !== undefined && (typeof body.tmax !== 'number' || !(body.tmax >= 0))) return fail('tmax', 'must be a number of milliseconds');
  if (body.at !== undefined && !Number.isInteger(body.at)) return fail('at', 'must be an integer');
  if (body.test !== undefined && body.test !== 0 && body.test !== 1) return fail('test', 'must be 0 or 1');
  for (const key of ['bcat', 'badv', 'bapp', 'wseat', 'bseat', 'cur'] as const) {
    const v = body[key];
    if (v !== undefined && (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))) return fail(key, 'must be an array of strings');
  }
  const ids = new Set<string>();
  for (let i = 0; i < body.imp.length; i++) {
    const imp: unknown = body.imp[i];
    const at = `imp[${i}]`;
    if (!isObj(imp)) return fail(at, 'must be an object');
    if (typeof imp.id !== 'string' || !imp.id) return fail(`${at}.id`, 'must be a non-empty string');
    if (ids.has(imp.id)) return fail(`${at}.id`, 'must be unique within the request');
    ids.add(imp.id);
    for (const key of IMP_OBJECTS) if (imp[key] !== undefined && !isObj(imp[key])) return fail(`${at}.${key}`, 'must be an object');
    if (imp.bidfloor !== undefined && (typeof imp.bidfloor !== 'number' || !(imp.bidfloor >= 0))) return fail(`${at}.bidfloor`, 'must be a number of at least 0');
    if (imp.bidfloorcur !== undefined && typeof imp.bidfloorcur !== 'string') return fail(`${at}.bidfloorcur`, 'must be a currency code');
    const media = readMedia(imp, at);
    if (media) return media;
    const pmp = imp.pmp as Record<string, unknown> | undefined;
    if (pmp?.private_auction !== undefined && pmp.private_auction !== 0 && pmp.private_auction !== 1) return fail(`${at}.pmp.private_auction`, 'must be 0 or 1');
    if (pmp?.deals !== undefined) {
      if (!Array.isArray(pmp.deals)) return fail(`${at}.pmp.deals`, 'must be an array');
      for (let d = 0; d < pmp.deals.length; d++) {
        const deal: unknown = pmp.deals[d];
        if (!isObj(deal) || typeof deal.id !== 'string' || !deal.id) return fail(`${at}.pmp.deals[${d}].id`, 'must be a non-empty string');
        if (deal.bidfloor !== undefined && (typeof deal.bidfloor !== 'number' || !(deal.bidfloor >= 0))) return fail(`${at}.pmp.deals[${d}].bidfloor`, 'must be a number of at least 0');
        if (deal.bidfloorcur !== undefined && typeof deal.bidfloorcur !== 'string') return fail(`${at}.pmp.deals[${d}].bidfloorcur`, 'must be a currency code');
        if (deal.at !== undefined && !Number.isInteger(deal.at)) return fail(`${at}.pmp.deals[${d}].at`, 'must be an integer');
        if (deal.wseat !== undefined && !isStrings(deal.wseat)) return fail(`${at}.pmp.deals[${d}].wseat`, 'must be an array of strings');
      }
    }
  }
  return { ok: true, request: body as unknown as BidRequest };
}

/** The impression's media: video, banner, or null for what adplane does not trade (native, audio alone). */
export function impFormat(imp: Imp): 'video' | 'display' | null {
  if (imp.video) return 'video';
  if (imp.banner) return 'display';
  return null;
}

/** USD CPM (OpenRTB prices) to integer micro-dollars CPM, and back. */
export const cpmToMicros = (usdCpm: number): number => Math.round(usdCpm * 1_000_000);
export const microsToCpm = (micros: number): number => Math.round(micros) / 1_000_000;
