import { type BidRequest } from '@adplane/shared';
import { isObj } from './bidRequestReader.js';
import { usPrivacyFault } from './privacy.js';

/**
 * What Prebid Server refuses with a 400 beyond the OpenRTB contract (ortb/bidRequestReader.ts
 * checks that first): the rules of its request validation, so that a request Prebid Server turns
 * away is turned away here too, with the field and the reason. Prebid.js never sends these; a
 * hand-made or broken client does, and should hear about it rather than get an empty auction.
 *
 * - exactly one of site, app and dooh; a site with its id or page, a dooh with its id or venuetype;
 *   site.ext.amp 0 or 1;
 * - regs.gdpr (and the OpenRTB 2.5 regs.ext.gdpr) 0 or 1, regs.ext.us_privacy a string;
 *   user.ext.consent a string; user.ext.prebid only with buyeruids (strings, at least one); device
 *   and geo sizes and accuracy not negative; device.sua's browsers and platform each with a brand;
 * - a supply chain (source.schain, or 2.5's source.ext.schain) with its ver and nodes, each node with
 *   its asi and sid; complete 0 or 1;
 * - user.eids (and 2.5's user.ext.eids) an array of {source, uids: [{id}]};
 * - ext.prebid.cache asking for bids or vastxml;
 * - every impression offering banner, video, audio or native: a banner with a size (w and h, or
 *   format; an interstitial may leave it to the device) and without the retired wmin/wmax/hmin/hmax,
 *   each format either {w, h} or {wmin, wratio, hratio}; a video or audio with its mimes; a native
 *   with its request, a JSON object with assets; no negative bitrate or sequence.
 *
 * Done as Prebid Server does it (it is a 200 there): an eid without a source, a uid without an id, and
 * an eid left with no uid are removed from the request, each with a warning (prunedEids), so that
 * demand is not sent them. Differences on purpose (docs/prebid.md, "Bad requests and health"): an
 * impression for a bidder adplane does not know is ignored with a warning (prebidAuction.ts), where
 * Prebid Server, which knows every bidder, refuses a misspelt one: a page whose s2s config lists
 * other bidders beside adplane still gets adplane's bids; so are other bidders' aliases, bid
 * adjustment factors and buyer ids. What adplane does not read is not checked (imp.metric,
 * device.ext.prebid.interstitial, app.ext.prebid, a native request's assets beyond their presence).
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
const nonEmptyString = (v: unknown): boolean => typeof v === 'string' && v !== '';

function inventory(request: Obj): RuleBreach | null {
  const kinds = (['site', 'app', 'dooh'] as const).filter((k) => given(request[k]));
  if (kinds.length === 0) return { field: 'site', reason: 'or app or dooh must be defined (one of them)' };
  if (kinds.length > 1)
    return { field: kinds[1]!, reason: `must not be sent together with ${kinds[0]}: one of site, app and dooh` };
  const site = request.site;
  if (isObj(site)) {
    if (!site.id && !site.page) return { field: 'site', reason: 'must include at least one of site.id or site.page' };
    const amp = isObj(site.ext) ? site.ext.amp : undefined;
    if (given(amp) && amp !== 0 && amp !== 1) return { field: 'site.ext.amp', reason: 'must be 0, 1 or absent' };
  }
  const dooh = request.dooh;
  if (given(dooh) && !isObj(dooh)) return { field: 'dooh', reason: 'must be an object' };
  if (isObj(dooh) && !dooh.id && !nonEmptyArray(dooh.venuetype))
    return { field: 'dooh', reason: 'must include at least one of dooh.id or dooh.venuetype' };
  return null;
}

function privacy(request: Obj): RuleBreach | null {
  const regs = isObj(request.regs) ? request.regs : {};
  if (given(regs.gdpr) && regs.gdpr !== 0 && regs.gdpr !== 1)
    return { field: 'regs.gdpr', reason: 'must be either 0 or 1' };
  if (given(regs.ext)) {
    if (!isObj(regs.ext)) return { field: 'regs.ext', reason: 'must be an object' };
    if (given(regs.ext.gdpr) && regs.ext.gdpr !== 0 && regs.ext.gdpr !== 1)
      return { field: 'regs.ext.gdpr', reason: 'must be either 0 or 1' };
    if (given(regs.ext.us_privacy) && typeof regs.ext.us_privacy !== 'string')
      return { field: 'regs.ext.us_privacy', reason: 'must be a string' };
  }
  const user = isObj(request.user) ? request.user : {};
  if (given(user.ext)) {
    if (!isObj(user.ext)) return { field: 'user.ext', reason: 'must be an object' };
    if (given(user.ext.consent) && typeof user.ext.consent !== 'string')
      return { field: 'user.ext.consent', reason: 'must be a string' };
    const breach = buyerUids(user.ext) ?? eidsShape(user.ext.eids, 'user.ext.eids');
    if (breach) return breach;
  }
  if (given(user.consent) && typeof user.consent !== 'string')
    return { field: 'user.consent', reason: 'must be a string' };
  if (isObj(user.geo) && negative(user.geo, 'accuracy'))
    return { field: 'user.geo.accuracy', reason: 'must be a positive number' };
  const eids = eidsShape(user.eids, 'user.eids');
  if (eids) return eids;
  const device = isObj(request.device) ? request.device : {};
  for (const key of ['w', 'h', 'ppi'] as const)
    if (negative(device, key)) return { field: `device.${key}`, reason: 'must be a positive number' };
  if (isObj(device.geo) && negative(device.geo, 'accuracy'))
    return { field: 'device.geo.accuracy', reason: 'must be a positive number' };
  return given(device.sua) ? userAgentHints(device.sua) : null;
}

/** `user.ext.prebid`: Prebid Server's explicit buyer ids, which it asks to be there only with some. */
function buyerUids(userExt: Obj): RuleBreach | null {
  if (!given(userExt.prebid)) return null;
  if (!isObj(userExt.prebid)) return { field: 'user.ext.prebid', reason: 'must be an object' };
  const uids = userExt.prebid.buyeruids;
  if (given(uids) && !isObj(uids))
    return { field: 'user.ext.prebid.buyeruids', reason: 'must be an object of ids by bidder code' };
  if (!isObj(uids) || !Object.keys(uids).length) {
    return {
      field: 'user.ext.prebid',
      reason:
        'requires a "buyeruids" property with at least one ID defined: if none exist, user.ext.prebid should not be defined',
    };
  }
  for (const [bidder, uid] of Object.entries(uids))
    if (typeof uid !== 'string') return { field: `user.ext.prebid.buyeruids.${bidder}`, reason: 'must be a string' };
  return null;
}

/** An eids list as OpenRTB types it (its empty parts are Prebid Server's to drop, not to refuse: prunedEids). */
function eidsShape(eids: unknown, at: string): RuleBreach | null {
  if (!given(eids)) return null;
  if (!Array.isArray(eids)) return { field: at, reason: 'must be an array' };
  for (let i = 0; i < eids.length; i++) {
    const eid: unknown = eids[i];
    if (!isObj(eid)) return { field: `${at}[${i}]`, reason: 'must be an object' };
    if (given(eid.source) && typeof eid.source !== 'string')
      return { field: `${at}[${i}].source`, reason: 'must be a string' };
    if (!given(eid.uids)) continue;
    if (!Array.isArray(eid.uids)) return { field: `${at}[${i}].uids`, reason: 'must be an array' };
    for (let u = 0; u < eid.uids.length; u++) {
      const uid: unknown = eid.uids[u];
      if (!isObj(uid)) return { field: `${at}[${i}].uids[${u}]`, reason: 'must be an object' };
      if (given(uid.id) && typeof uid.id !== 'string')
        return { field: `${at}[${i}].uids[${u}].id`, reason: 'must be a string' };
    }
  }
  return null;
}

/** device.sua (OpenRTB 2.6 UserAgent): each BrandVersion with its brand. */
function userAgentHints(sua: unknown): RuleBreach | null {
  if (!isObj(sua)) return { field: 'device.sua', reason: 'must be an object' };
  if (given(sua.browsers)) {
    if (!Array.isArray(sua.browsers)) return { field: 'device.sua.browsers', reason: 'must be an array' };
    for (let i = 0; i < sua.browsers.length; i++) {
      const browser: unknown = sua.browsers[i];
      if (!isObj(browser) || !nonEmptyString(browser.brand))
        return { field: `device.sua.browsers[${i}].brand`, reason: 'cannot be empty' };
    }
  }
  if (given(sua.platform) && (!isObj(sua.platform) || !nonEmptyString(sua.platform.brand)))
    return { field: 'device.sua.platform.brand', reason: 'cannot be empty' };
  return null;
}

/**
 * The supply chain the request brings (2.6 source.schain, 2.5 source.ext.schain), which adplane
 * passes on to its demand with its own node: one it could not pass on is refused, as Prebid Server
 * refuses it, rather than silently replaced by a chain that starts at adplane.
 */
function supplyChain(request: Obj): RuleBreach | null {
  const source = isObj(request.source) ? request.source : {};
  const places: [unknown, string][] = [
    [source.schain, 'source.schain'],
    [isObj(source.ext) ? source.ext.schain : undefined, 'source.ext.schain'],
  ];
  for (const [chain, at] of places) {
    if (!given(chain)) continue;
    if (!isObj(chain)) return { field: at, reason: 'must be an object' };
    if (given(chain.complete) && chain.complete !== 0 && chain.complete !== 1)
      return { field: `${at}.complete`, reason: 'must be either 0 or 1' };
    if (!nonEmptyString(chain.ver)) return { field: `${at}.ver`, reason: 'cannot be empty' };
    if (!nonEmptyArray(chain.nodes)) return { field: `${at}.nodes`, reason: 'cannot be empty' };
    const nodes = chain.nodes as unknown[];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      if (!isObj(node)) return { field: `${at}.nodes[${i}]`, reason: 'must be an object' };
      if (!nonEmptyString(node.asi)) return { field: `${at}.nodes[${i}].asi`, reason: 'cannot be empty' };
      if (!nonEmptyString(node.sid)) return { field: `${at}.nodes[${i}].sid`, reason: 'cannot be empty' };
    }
  }
  return null;
}

/** A warning of the request's, as Prebid Server files it under `general`. */
export interface RuleNote {
  code: number;
  message: string;
}

/** Prebid Server's warning code for a privacy consent it ignores (errortypes/code.go). */
const INVALID_CONSENT_WARNING = 10001;

/**
 * Removes a US Privacy string that is not one from `regs.us_privacy` and 2.5's `regs.ext.us_privacy`,
 * as Prebid Server does (it reads the CCPA policy, and on an invalid consent answers warning 10001 and
 * clears the string): the request is served as if it had none, and demand is not sent it. Run after
 * pbsRuleBreach (the shapes are checked).
 */
export function droppedUsPrivacy(request: BidRequest): RuleNote[] {
  const notes: RuleNote[] = [];
  const regs = (request as unknown as Obj).regs;
  if (!isObj(regs)) return notes;
  const check = (holder: Obj, at: string) => {
    const value = holder.us_privacy;
    if (typeof value !== 'string' || value === '') return;
    const fault = usPrivacyFault(value);
    if (!fault) return;
    delete holder.us_privacy;
    notes.push({
      code: INVALID_CONSENT_WARNING,
      message: `CCPA consent is invalid and will be ignored. (${at} ${fault})`,
    });
  };
  check(regs, 'request.regs.us_privacy');
  if (isObj(regs.ext)) check(regs.ext, 'request.regs.ext.us_privacy');
  return notes;
}

/** Prebid Server's warning codes for an eid or a uid it removed (errortypes/code.go). */
const EID_WARNINGS = { eid: 10013, uid: 10014 } as const;

/**
 * Removes what Prebid Server removes from `user.eids` (and 2.5's `user.ext.eids`) before its bidders
 * see the request (endpoints/openrtb2/auction.go validateEIDs): a uid without an id, an eid without a
 * source or left with no uid; one warning for each. Run after pbsRuleBreach (the shapes are checked).
 */
export function prunedEids(request: BidRequest): RuleNote[] {
  const notes: RuleNote[] = [];
  const user = (request as unknown as Obj).user;
  if (!isObj(user)) return notes;
  const prune = (holder: Obj, at: string) => {
    if (!Array.isArray(holder.eids)) return;
    const kept: Obj[] = [];
    (holder.eids as Obj[]).forEach((eid, i) => {
      if (!nonEmptyString(eid.source)) {
        notes.push({ code: EID_WARNINGS.eid, message: `${at}[${i}] removed due to missing source` });
        return;
      }
      const uids = Array.isArray(eid.uids) ? (eid.uids as Obj[]) : [];
      const withIds = uids.filter((uid, u) => {
        if (nonEmptyString(uid.id)) return true;
        notes.push({ code: EID_WARNINGS.uid, message: `${at}[${i}].uids[${u}] removed due to empty ids` });
        return false;
      });
      if (!withIds.length) {
        notes.push({
          code: EID_WARNINGS.eid,
          message: `${at}[${i}] (source: ${eid.source as string}) removed due to empty uids`,
        });
        return;
      }
      kept.push(withIds.length === uids.length ? eid : { ...eid, uids: withIds });
    });
    if (kept.length !== holder.eids.length || kept.some((eid, i) => eid !== (holder.eids as Obj[])[i]))
      holder.eids = kept;
  };
  prune(user, 'user.eids');
  if (isObj(user.ext)) prune(user.ext, 'user.ext.eids');
  return notes;
}

/** `ext.prebid` of a request or an impression, or an empty object. */
const prebidExt = (o: Obj): Obj => (isObj(o.ext) && isObj(o.ext.prebid) ? o.ext.prebid : {});

function caching(request: Obj): RuleBreach | null {
  const prebid = prebidExt(request);
  if (isObj(prebid.cache) && !given(prebid.cache.bids) && !given(prebid.cache.vastxml))
    return { field: 'ext.prebid.cache', reason: 'requires one of the "bids" or "vastxml" properties' };
  return null;
}

/**
 * `ext.prebid.channel`, the integration that sent the request (Prebid.js sends `{ name: 'pbjs' }`):
 * Prebid Server fills it in when absent and refuses one without a name.
 */
function integrationChannel(request: Obj): RuleBreach | null {
  const channel = prebidExt(request).channel;
  if (!given(channel)) return null;
  if (!isObj(channel)) return { field: 'ext.prebid.channel', reason: 'must be an object' };
  if (given(channel.name) && typeof channel.name !== 'string')
    return { field: 'ext.prebid.channel.name', reason: 'must be a string' };
  if (!nonEmptyString(channel.name)) return { field: 'ext.prebid.channel.name', reason: "can't be empty" };
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
  for (const key of ['wmin', 'wmax', 'hmin', 'hmax'] as const)
    if (nonZero(b, key)) return { field: `${at}.${key}`, reason: 'is not supported: use the "format" array instead' };
  const format = Array.isArray(b.format) ? (b.format as Obj[]) : [];
  if (!bannerHasSize(b, interstitial))
    return { field: at, reason: 'has no sizes: define "w" and "h", or include "format" elements' };
  for (let i = 0; i < format.length; i++) {
    const f = format[i]!;
    const fat = `${at}.format[${i}]`;
    for (const key of ['w', 'h', 'wratio', 'hratio', 'wmin'] as const)
      if (negative(f, key)) return { field: `${fat}.${key}`, reason: 'must be a positive number' };
    const sized = nonZero(f, 'w') || nonZero(f, 'h');
    const ratio = nonZero(f, 'wmin') || nonZero(f, 'wratio') || nonZero(f, 'hratio');
    if (sized && ratio)
      return { field: fat, reason: 'must define either {w, h} or {wmin, wratio, hratio}, not both (send two formats)' };
    if (!sized && !ratio)
      return {
        field: fat,
        reason: 'must define {w, h} (a fixed size) or {wmin, wratio, hratio} (a flexible one), not zero',
      };
    if (sized && !(nonZero(f, 'w') && nonZero(f, 'h')))
      return { field: fat, reason: 'must define non-zero "w" and "h"' };
    if (ratio && !(nonZero(f, 'wmin') && nonZero(f, 'wratio') && nonZero(f, 'hratio')))
      return { field: fat, reason: 'must define non-zero "wmin", "wratio" and "hratio"' };
  }
  return null;
}

function media(imp: Obj, at: string): RuleBreach | null {
  if (!given(imp.banner) && !given(imp.video) && !given(imp.audio) && !given(imp.native))
    return { field: at, reason: 'must contain at least one of "banner", "video", "audio" or "native"' };
  if (isObj(imp.banner)) {
    const breach = banner(imp.banner, `${at}.banner`, imp.instl === 1);
    if (breach) return breach;
  }
  for (const kind of ['video', 'audio'] as const) {
    const m = imp[kind];
    if (!isObj(m)) continue;
    if (!nonEmptyArray(m.mimes))
      return { field: `${at}.${kind}.mimes`, reason: 'must contain at least one supported MIME type' };
    for (const key of ['minbitrate', 'maxbitrate', 'sequence', 'maxseq'] as const)
      if (negative(m, key)) return { field: `${at}.${kind}.${key}`, reason: 'must be a positive number' };
  }
  if (given(imp.native)) {
    if (!isObj(imp.native) || typeof imp.native.request !== 'string' || !imp.native.request)
      return { field: `${at}.native.request`, reason: 'is required (the native request, as a JSON string)' };
    return nativeRequest(imp.native.request, `${at}.native.request`);
  }
  return null;
}

/**
 * The native request (a JSON string, Native 1.1+, or 1.0's wrapped in `native`) with its assets, as
 * Prebid Server checks it before anything (fillAndValidateNative). adplane bids no native, so the
 * assets themselves are not checked further.
 */
function nativeRequest(text: string, at: string): RuleBreach | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { field: at, reason: 'must be a JSON object (the native request): it is not valid JSON' };
  }
  if (!isObj(parsed)) return { field: at, reason: 'must be a JSON object (the native request)' };
  const native = isObj(parsed.native) && !given(parsed.assets) ? parsed.native : parsed;
  if (!nonEmptyArray(native.assets) || !(native.assets as unknown[]).every(isObj))
    return { field: `${at}.assets`, reason: 'must be an array containing at least one object' };
  return null;
}

/** Whether an object names a stored request (`ext.prebid.storedrequest.id`). */
function stored(o: Obj): boolean {
  const prebid = prebidExt(o);
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
  const found =
    (storedRequest ? null : inventory(r)) ?? privacy(r) ?? supplyChain(r) ?? caching(r) ?? integrationChannel(r);
  if (found) return found;
  for (let i = 0; i < request.imp.length; i++) {
    const imp = request.imp[i] as unknown as Obj;
    const breach = storedRequest || stored(imp) ? null : media(imp, `imp[${i}]`);
    if (breach) return breach;
  }
  return null;
}
