import { type BidRequest } from '@adplane/shared';
import { isObj } from '../openrtb/bidRequestReader.js';

/**
 * What Prebid Server refuses with a 400 beyond the OpenRTB contract (openrtb/bidRequestReader.ts
 * checks that first): the rules of its request validation, so that a request Prebid Server turns
 * away is turned away here too, with the field and the reason. Prebid.js never sends these; a
 * hand-made or broken client does, and should hear about it rather than get an empty auction.
 *
 * - exactly one of site, app and dooh; a site with its id or page, a dooh with its id or venuetype;
 *   site.ext.amp 0 or 1;
 * - regs.gdpr (and the OpenRTB 2.5 regs.ext.gdpr) 0 or 1, regs.ext.us_privacy a string;
 *   user.ext.consent a string; device and geo sizes and accuracy not negative;
 * - ext.prebid.cache asking for bids or vastxml;
 * - every impression offering banner, video, audio or native: a banner with a size (w and h, or
 *   format; an interstitial may leave it to the device) and without the retired wmin/wmax/hmin/hmax,
 *   each format either {w, h} or {wmin, wratio, hratio}; a video or audio with its mimes; a native
 *   with its request; no negative bitrate or sequence.
 *
 * Left as Prebid Server leaves them: empty user.eids entries (it drops them with a warning; the
 * decision does not read them). One difference on purpose: an impression for a bidder adplane does
 * not know is ignored with a warning (prebidAuction.ts), where Prebid Server, which knows every
 * bidder, refuses a misspelt one: a page whose s2s config lists other bidders beside adplane still
 * gets adplane's bids.
 */
export interface RuleBreach {
  field: string;
  reason: string;
}

type Obj = Record<string, unknown>;
const given = (v: unknown): boolean => v !== undefined && v !== null;
/** A number field that is absent or at least 0 (Prebid Server keeps its unsigned checks). */
const negative = (o: Obj, key: string): boolean => typeof o[key] === 'number' && (o[key] as number) < 0;
const nonZero = (o: Obj, key: string): boolean => typeof o[key] === 'number' && o[key] !== 0;
const nonEmptyArray = (v: unknown): boolean => Array.isArray(v) && v.length > 0;

function inventory(request: Obj): RuleBreach | null {
  const kinds = (['site', 'app', 'dooh'] as const).filter((k) => given(request[k]));
  if (kinds.length === 0) return { field: 'site', reason: 'or app or dooh must be defined (one of them)' };
  if (kinds.length > 1) return { field: kinds[1]!, reason: `must not be sent together with ${kinds[0]}: one of site, app and dooh` };
  const site = request.site;
  if (isObj(site)) {
    if (!site.id && !site.page) return { field: 'site', reason: 'must include at least one of site.id or site.page' };
    const amp = isObj(site.ext) ? site.ext.amp : undefined;
    if (given(amp) && amp !== 0 && amp !== 1) return { field: 'site.ext.amp', reason: 'must be 0, 1 or absent' };
  }
  const dooh = request.dooh;
  if (given(dooh) && !isObj(dooh)) return { field: 'dooh', reason: 'must be an object' };
  if (isObj(dooh) && !dooh.id && !nonEmptyArray(dooh.venuetype)) return { field: 'dooh', reason: 'must include at least one of dooh.id or dooh.venuetype' };
  return null;
}

function privacy(request: Obj): RuleBreach | null {
  const regs = isObj(request.regs) ? request.regs : {};
  if (given(regs.gdpr) && regs.gdpr !== 0 && regs.gdpr !== 1) return { field: 'regs.gdpr', reason: 'must be either 0 or 1' };
  if (given(regs.ext)) {
    if (!isObj(regs.ext)) return { field: 'regs.ext', reason: 'must be an object' };
    if (given(regs.ext.gdpr) && regs.ext.gdpr !== 0 && regs.ext.gdpr !== 1) return { field: 'regs.ext.gdpr', reason: 'must be either 0 or 1' };
    if (given(regs.ext.us_privacy) && typeof regs.ext.us_privacy !== 'string') return { field: 'regs.ext.us_privacy', reason: 'must be a string' };
  }
  const user = isObj(request.user) ? request.user : {};
  if (given(user.ext)) {
    if (!isObj(user.ext)) return { field: 'user.ext', reason: 'must be an object' };
    if (given(user.ext.consent) && typeof user.ext.consent !== 'string') return { field: 'user.ext.consent', reason: 'must be a string' };
  }
  if (given(user.consent) && typeof user.consent !== 'string') return { field: 'user.consent', reason: 'must be a string' };
  if (isObj(user.geo) && negative(user.geo, 'accuracy')) return { field: 'user.geo.accuracy', reason: 'must be a positive number' };
  const device = isObj(request.device) ? request.device : {};
  for (const key of ['w', 'h', 'ppi'] as const) if (negative(device, key)) return { field: `device.${key}`, reason: 'must be a positive number' };
  if (isObj(device.geo) && negative(device.geo, 'accuracy')) return { field: 'device.geo.accuracy', reason: 'must be a positive number' };
  return null;
}

function caching(request: Obj): RuleBreach | null {
  const prebid = isObj(request.ext) && isObj(request.ext.prebid) ? request.ext.prebid : {};
  if (isObj(prebid.cache) && !given(prebid.cache.bids) && !given(prebid.cache.vastxml)) return { field: 'ext.prebid.cache', reason: 'requires one of the "bids" or "vastxml" properties' };
  return null;
}

/**
 * Whether a banner states its size as Prebid Server requires: `w` and `h`, or `format` entries; an
 * interstitial may leave it to the device. (The PreBid demand source asks it of the banner it
 * would send: demand/programmaticSources.ts.)
 */
export function bannerHasSize(b: { w?: unknown; h?: unknown; format?: unknown }, interstitial: boolean): boolean {
  const rootSize = typeof b.w === 'number' && typeof b.h === 'number' && b.w > 0 && b.h > 0;
  return rootSize || (Array.isArray(b.format) && b.format.length > 0) || interstitial;
}

function banner(b: Obj, at: string, interstitial: boolean): RuleBreach | null {
  for (const key of ['wmin', 'wmax', 'hmin', 'hmax'] as const) if (nonZero(b, key)) return { field: `${at}.${key}`, reason: 'is not supported: use the "format" array instead' };
  const format = Array.isArray(b.format) ? (b.format as Obj[]) : [];
  if (!bannerHasSize(b, interstitial)) return { field: at, reason: 'has no sizes: define "w" and "h", or include "format" elements' };
  for (let i = 0; i < format.length; i++) {
    const f = format[i]!;
    const fat = `${at}.format[${i}]`;
    for (const key of ['w', 'h', 'wratio', 'hratio', 'wmin'] as const) if (negative(f, key)) return { field: `${fat}.${key}`, reason: 'must be a positive number' };
    const sized = nonZero(f, 'w') || nonZero(f, 'h');
    const ratio = nonZero(f, 'wmin') || nonZero(f, 'wratio') || nonZero(f, 'hratio');
    if (sized && ratio) return { field: fat, reason: 'must define either {w, h} or {wmin, wratio, hratio}, not both (send two formats)' };
    if (!sized && !ratio) return { field: fat, reason: 'must define {w, h} (a fixed size) or {wmin, wratio, hratio} (a flexible one), not zero' };
    if (sized && !(nonZero(f, 'w') && nonZero(f, 'h'))) return { field: fat, reason: 'must define non-zero "w" and "h"' };
    if (ratio && !(nonZero(f, 'wmin') && nonZero(f, 'wratio') && nonZero(f, 'hratio'))) return { field: fat, reason: 'must define non-zero "wmin", "wratio" and "hratio"' };
  }
  return null;
}

function media(imp: Obj, at: string): RuleBreach | null {
  if (!given(imp.banner) && !given(imp.video) && !given(imp.audio) && !given(imp.native)) return { field: at, reason: 'must contain at least one of "banner", "video", "audio" or "native"' };
  if (isObj(imp.banner)) {
    const breach = banner(imp.banner, `${at}.banner`, imp.instl === 1);
    if (breach) return breach;
  }
  for (const kind of ['video', 'audio'] as const) {
    const m = imp[kind];
    if (!isObj(m)) continue;
    if (!nonEmptyArray(m.mimes)) return { field: `${at}.${kind}.mimes`, reason: 'must contain at least one supported MIME type' };
    for (const key of ['minbitrate', 'maxbitrate', 'sequence', 'maxseq'] as const) if (negative(m, key)) return { field: `${at}.${kind}.${key}`, reason: 'must be a positive number' };
  }
  if (given(imp.native) && (!isObj(imp.native) || typeof imp.native.request !== 'string' || !imp.native.request)) return { field: `${at}.native.request`, reason: 'is required (the native request, as a JSON string)' };
  return null;
}

/** Whether an object names a stored request (`ext.prebid.storedrequest.id`). */
function stored(o: Obj): boolean {
  const prebid = isObj(o.ext) && isObj(o.ext.prebid) ? o.ext.prebid : {};
  return isObj(prebid.storedrequest) && given(prebid.storedrequest.id);
}

/**
 * The first rule of Prebid Server's the request breaks, or null. Prebid Server checks a request
 * after merging its stored requests into it; here a stored request id names a channel, which stands
 * in for what it would hold: a request naming one need not state its site or app, and an impression
 * under one (its own, or the request's) need not state its media.
 */
export function pbsRuleBreach(request: BidRequest): RuleBreach | null {
  const r = request as unknown as Obj;
  const storedRequest = stored(r);
  const found = (storedRequest ? null : inventory(r)) ?? privacy(r) ?? caching(r);
  if (found) return found;
  for (let i = 0; i < request.imp.length; i++) {
    const imp = request.imp[i] as unknown as Obj;
    const breach = storedRequest || stored(imp) ? null : media(imp, `imp[${i}]`);
    if (breach) return breach;
  }
  return null;
}
