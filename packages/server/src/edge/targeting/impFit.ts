import { type BidRequest, type Imp } from '@adplane/shared';
import { adomainOf, type DemandInline, iabCodesOf } from '../vast/vastAnswer.js';
import { type PodSoFar, type RequestContext } from '../request/context.js';
import { type SnapCreative } from '../snapshot/types.js';
import { type VastVersion } from '../vast/vastVersion.js';

/**
 * What an OpenRTB impression accepts of a creative, read from the request as sent (section 3.2.6
 * Banner, 3.2.7 Video, 3.2.1 bcat/badv): a banner only in one of the sizes it permits, a video in
 * a duration and a mime type it plays, and never an advertiser or a category the request blocks.
 * Values of the wrong type read as "not stated" (the contract check in bidRequestReader.ts has
 * refused the ones that matter). Plain loops: this runs for every campaign a request looks at.
 */
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** AdCOM creative attribute 16: "Skippable" (the ad can be skipped). */
export const SKIPPABLE_ATTR = 16;

/** Whether a w x h banner is one of the sizes the impression permits (banner.format, else banner.w/h; none stated: any). */
export function bannerAllows(banner: NonNullable<Imp['banner']>, w: number, h: number): boolean {
  const formats = banner.format;
  let stated = false;
  if (Array.isArray(formats)) {
    for (const f of formats) {
      if (!f || !isNum(f.w) || !isNum(f.h) || f.w <= 0 || f.h <= 0) continue;
      stated = true;
      if (f.w === w && f.h === h) return true;
    }
  }
  if (isNum(banner.w) && isNum(banner.h) && banner.w > 0 && banner.h > 0) {
    stated = true;
    if (banner.w === w && banner.h === h) return true;
  }
  return !stated && withinRanges(banner as Record<string, unknown>, w, h);
}

/** 2.5's size ranges (wmin..wmax, hmin..hmax, removed in 2.6), read only where no size is stated; a bound not stated refuses nothing. */
function withinRanges(banner: Record<string, unknown>, w: number, h: number): boolean {
  const { wmin, wmax, hmin, hmax } = banner;
  return (
    !(isNum(wmax) && wmax > 0 && w > wmax) &&
    !(isNum(hmax) && hmax > 0 && h > hmax) &&
    !(isNum(wmin) && w < wmin) &&
    !(isNum(hmin) && h < hmin)
  );
}

function videoAllows(video: NonNullable<Imp['video']>, creative: SnapCreative): boolean {
  if (creative.duration > 0 ? !durationAllowed(video, creative.duration) : exactLengths(video)) return false;
  if (creative.skipAfter && Array.isArray(video.battr) && video.battr.includes(SKIPPABLE_ATTR)) return false;
  if (creative.videoSource === 'vast') {
    // our wrapper: the player must take wrappers (the protocol list, when stated, names one)
    return (
      !Array.isArray(video.protocols) ||
      !video.protocols.length ||
      video.protocols.some((p) => WRAPPER_PROTOCOLS.has(p))
    );
  }
  if (!Array.isArray(video.mimes) || !video.mimes.length) return creative.mediaFiles.length > 0;
  return playsOneOf(video.mimes, creative.mediaFiles);
}

/**
 * Whether one of the media files is of a type the impression's `mimes` lists. Types compare without
 * case and without their parameters: a player that lists `video/mp4; codecs="avc1.42E01E"` plays an
 * MP4 file (the codec is the player's to check; VAST's MediaFile states only the type).
 */
export function playsOneOf(mimes: readonly unknown[], files: readonly { mime: string }[]): boolean {
  for (const accepted of mimes) {
    if (typeof accepted !== 'string') continue;
    const type = mediaType(accepted);
    for (const f of files) if (mediaType(f.mime) === type) return true;
  }
  return false;
}

/** A mime type without its parameters, in lower case (`Video/MP4; codecs=...` is `video/mp4`). */
function mediaType(mime: string): string {
  const semicolon = mime.indexOf(';');
  return (semicolon < 0 ? mime : mime.slice(0, semicolon)).trim().toLowerCase();
}

/** Whether a domain is blocked by a badv entry (the entry itself or a subdomain of it). */
function domainBlocked(domain: string, blocked: readonly unknown[]): boolean {
  for (const b of blocked) {
    if (typeof b !== 'string' || !b) continue;
    if (
      domain === b ||
      (domain.length > b.length && domain.endsWith(b) && domain[domain.length - b.length - 1] === '.')
    )
      return true;
  }
  return false;
}

/**
 * Whether an IAB category is blocked by a bcat entry (the entry itself or a subcategory: IAB8 blocks
 * IAB8-5). The one matcher of blocked categories: a request's bcat, and a targeting's blocked ad
 * categories (snapshot/categoryBlocks.ts, demandAdRefusal).
 */
export function categoryBlocked(cat: string, blocked: readonly unknown[]): boolean {
  for (const b of blocked) {
    if (typeof b !== 'string' || !b) continue;
    if (cat === b || (cat.length > b.length && cat.startsWith(b) && cat[b.length] === '-')) return true;
  }
  return false;
}

export function ortbCreativeFits(creative: SnapCreative, imp: Imp, request: BidRequest): boolean {
  if (creative.format === 'video') {
    if (!imp.video) return false;
    if (creative.videoSource === 'vast' ? !creative.vastUrl : !creative.mediaFiles.length) return false;
    if (!videoAllows(imp.video, creative)) return false;
  } else if (!imp.banner || !bannerAllows(imp.banner, creative.width, creative.height)) return false;
  const { badv, bcat } = request;
  if (Array.isArray(badv) && badv.length)
    for (const d of creative.adomain) if (domainBlocked(d.toLowerCase(), badv)) return false;
  if (Array.isArray(bcat) && bcat.length)
    for (const c of creative.iabCategories) if (categoryBlocked(c, bcat)) return false;
  return true;
}

/** The video an ad pod knows our creative by (its first media file, or the VAST URL it wraps). */
export const creativeVideo = (creative: SnapCreative): string => creative.mediaFiles[0]?.url ?? creative.vastUrl;
/** The video an ad pod knows a demand's ad by (its first media file), '' when it has none. */
export const demandAdVideo = (ad: DemandInline): string => ad.mediaFiles[0]?.url ?? '';

/**
 * What an ad would repeat, in an ad pod, of an ad the pod already has, as its no-fill reason: the
 * video (`media`: its first file, or its VAST URL), `pod_repeat`; an advertiser (one of `domains`, a
 * subdomain counting as its domain), `pod_separation`; null when neither.
 */
export function podRepeats(
  pod: PodSoFar,
  domains: readonly string[],
  media: string,
): 'pod_repeat' | 'pod_separation' | null {
  if (media && pod.media.has(media)) return 'pod_repeat';
  if (pod.domains.length)
    for (const d of domains) if (domainBlocked(d.toLowerCase(), pod.domains)) return 'pod_separation';
  return null;
}

/**
 * Whether a video of `seconds` is a length the player takes (its tag's min_dur and max_dur; a bound
 * not stated, or a length not known, refuses nothing).
 */
export function lengthFits(seconds: number, ctx: RequestContext): boolean {
  if (!(seconds > 0)) return true;
  const { minDuration, maxDuration } = ctx.query;
  const s = Math.round(seconds);
  return !(minDuration > 0 && s < minDuration) && !(maxDuration > 0 && s > maxDuration);
}

/** Whether the impression takes exact lengths only (rqddurs, live TV's "no dead air"): an ad of unknown length cannot promise one. */
const exactLengths = (video: NonNullable<Imp['video']>): boolean =>
  Array.isArray(video.rqddurs) && video.rqddurs.length > 0;

/** Whether a duration (seconds) is one the video impression takes (minduration, maxduration, rqddurs). */
function durationAllowed(video: NonNullable<Imp['video']>, seconds: number): boolean {
  const d = Math.round(seconds);
  if (isNum(video.minduration) && d < video.minduration) return false;
  if (isNum(video.maxduration) && video.maxduration > 0 && d > video.maxduration) return false;
  return !(Array.isArray(video.rqddurs) && video.rqddurs.length && !video.rqddurs.includes(d));
}

/**
 * Why a demand's VAST ad (a VAST tag's answer, an RTB tag's or ad exchange's bid, read server-side
 * before the auction) may not serve this request, or null; refused, it is the source's no-fill and
 * the auction goes on to the next best. One rule for every demand source:
 * - answering an OpenRTB impression (inbound /rtb, the Prebid auction): its advertiser (a domain in
 *   <Advertiser>) or an IAB category (<Category>) the request blocks (badv, bcat), a skippable ad
 *   where the impression blocks skippable ads (video.battr 16), a duration the impression does not
 *   take, or no media file of a type it plays (video.mimes);
 * - a VAST tag call: a length its player does not take (min_dur, max_dur);
 * - always: an advertiser domain in `blockedDomains` (the channel's and the source's creative lists,
 *   what our own creatives are refused by and exchanges are sent as badv), and an IAB category of its
 *   <Category> in `blockedCategories` (the channel's and the source's blocked ad categories, sent as
 *   bcat), `blocked_category`;
 * - in a later slot of an ad pod: a video (`pod_repeat`) or an advertiser (`pod_separation`) the pod
 *   already has (podRepeats).
 * A request that states nothing refuses nothing.
 */
export function demandAdRefusal(
  ad: DemandInline,
  ctx: RequestContext,
  blockedDomains: readonly string[],
  blockedCategories: readonly string[],
): string | null {
  const domains = adomainOf(ad);
  if (blockedDomains.length && domains.some((d) => domainBlocked(d, blockedDomains))) return 'blocked_adomain';
  if (blockedCategories.length)
    for (const c of iabCodesOf(ad)) if (categoryBlocked(c, blockedCategories)) return 'blocked_category';
  const repeat = ctx.pod ? podRepeats(ctx.pod, domains, demandAdVideo(ad)) : null;
  if (repeat) return repeat;
  if (!ctx.ortb) return lengthFits(ad.duration, ctx) ? null : 'duration_not_allowed';
  const { request, imp } = ctx.ortb;
  const { badv, bcat } = request;
  if (Array.isArray(badv) && badv.length && domains.some((d) => domainBlocked(d, badv))) return 'blocked_adomain';
  if (Array.isArray(bcat) && bcat.length)
    for (const c of iabCodesOf(ad)) if (categoryBlocked(c, bcat)) return 'blocked_category';
  const video = imp.video;
  if (!video) return null;
  if (ad.skipOffset && Array.isArray(video.battr) && video.battr.includes(SKIPPABLE_ATTR)) return 'blocked_attribute';
  if (ad.duration > 0 ? !durationAllowed(video, ad.duration) : exactLengths(video)) return 'duration_not_allowed';
  if (
    Array.isArray(video.mimes) &&
    video.mimes.some((m) => typeof m === 'string') &&
    !playsOneOf(video.mimes, ad.mediaFiles)
  )
    return 'mime_not_allowed';
  return null;
}

/** AdCOM "Creative Subtypes - Audio/Video": the VAST version of each protocol, inline and wrapper. */
const PROTOCOL_VERSION: Readonly<Record<number, VastVersion>> = {
  2: '2.0',
  3: '3.0',
  5: '2.0',
  6: '3.0',
  7: '4.0',
  8: '4.0',
  11: '4.1',
  12: '4.1',
  13: '4.2',
  14: '4.2',
  15: '4.2',
  16: '4.2',
};
const WRAPPER_PROTOCOLS = new Set([4, 5, 6, 8, 10, 12, 14, 16]);
const VERSION_RANK: Readonly<Record<VastVersion, number>> = { '2.0': 0, '3.0': 1, '4.0': 2, '4.1': 3, '4.2': 4 };

/**
 * The highest VAST version the video impression takes (video.protocols, else 2.5's single
 * `protocol`), or null when it states none we write (VAST 1.0 alone, DAAST): then the caller's
 * default. VAST 4.3 players read our 4.2 documents.
 */
export function vastVersionOfImp(video: NonNullable<Imp['video']>): VastVersion | null {
  let best: VastVersion | null = null;
  const list = Array.isArray(video.protocols) ? video.protocols : isNum(video.protocol) ? [video.protocol] : [];
  for (const p of list) {
    const v = PROTOCOL_VERSION[p];
    if (v && (!best || VERSION_RANK[v] > VERSION_RANK[best])) best = v;
  }
  return best;
}

/** The protocol number of a VAST document we answer in a version (Bid.protocol). */
const VERSION_PROTOCOL: Readonly<Record<VastVersion, number>> = { '2.0': 2, '3.0': 3, '4.0': 7, '4.1': 11, '4.2': 13 };
export const protocolOfVersion = (v: VastVersion): number => VERSION_PROTOCOL[v];
