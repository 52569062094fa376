import { randomUUID } from 'node:crypto';
import { gppSectionIds } from '../ortb/privacy.js';
import {
  type App,
  type Banner,
  type BidRequest,
  countryAlpha3,
  type Deal,
  type Device,
  type Imp,
  type Regs,
  type Site,
  type SupplyChainNode,
  type User,
  type Video,
  VIDEO_PROTOCOLS,
} from '@adplane/shared';
import { type RequestContext } from '../request/context.js';
import { type SnapChannel, type SnapDeal } from '../snapshot/types.js';
import { type VastVersion } from '../vast/vastVersion.js';
import { outboundSupplyChain } from '../ortb/supplyChain.js';

/**
 * The OpenRTB 2.6 bid request adplane sends to programmatic demand (RTB demand tags, ad exchanges,
 * Prebid Server), built from the request context: one impression (video or banner, per the channel),
 * site or app, device with geo, user, regs with the privacy signals as 2.6 top-level fields (and
 * in their 2.5 `ext` places too: alsoIn25Places), `source.tid` and `source.schain` with our node
 * appended. When the request came as OpenRTB (a
 * supplier's bid request), what it carried is forwarded rather than rebuilt from the flat context:
 * its site or app, device, user, regs, its impression's media fields, its bcat/badv (joined with
 * ours: the blocked ad categories and advertisers of the channel's and the demand's targetings),
 * its transaction id and supply chain.
 */

/**
 * What we keep of the remaining time for ourselves: the network to the demand and back, reading its
 * answer, and rendering ours. `tmax` = the call's deadline minus now minus this.
 */
export const TMAX_MARGIN_MS = 15;
/** Below this there is no point calling: the demand could not answer in time. */
export const MIN_TMAX_MS = 10;

/** What players play: progressive MP4 and WebM on the web and in apps; HLS besides MP4 on TVs. */
const WEB_MIMES = ['video/mp4', 'video/webm'];
const CTV_MIMES = ['video/mp4', 'application/x-mpegURL'];

/** Video protocols a player of each VAST version reads (AdCOM "Creative Subtypes - Audio/Video"): inline and wrapper, that version and older. */
export function videoProtocols(version: VastVersion): number[] {
  const p = VIDEO_PROTOCOLS;
  if (version === '2.0') return [p.vast2, p.vast2Wrapper];
  if (version === '3.0') return [p.vast2, p.vast3, p.vast2Wrapper, p.vast3Wrapper];
  return [p.vast2, p.vast3, p.vast2Wrapper, p.vast3Wrapper, p.vast4, p.vast4Wrapper];
}

/** AdCOM device types from our device ids: 1 mobile/tablet, 2 personal computer, 3 connected TV. */
const ORTB_DEVICE_TYPE: Record<string, number> = { mobile: 1, desktop: 2, smarttv: 3 };

export interface OutboundSpec {
  /** Our id of this request (the demand's `BidResponse.id` must echo it; `${AUCTION_ID}`). */
  id: string;
  impId: string;
  /** The auction's transaction id (`source.tid`), one per decision: see transactionId. */
  tid: string;
  tmax: number;
  /** The floor in the demand's own terms, USD CPM. */
  bidfloor: number;
  /** 1 first price, 2 second price plus. */
  at: 1 | 2;
  /** The node we append to the supply chain. */
  node: SupplyChainNode;
  /** The seller id our node names (also `publisher.id`, as the SupplyChainNode spec asks). */
  sellerId: string;
  /** Our blocks: the ad categories (IAB 1.0) and advertiser domains of the channel's and the demand's targetings. */
  bcat: readonly string[];
  badv: readonly string[];
  deals?: readonly SnapDeal[];
  privateAuction?: boolean;
  wseat?: readonly string[];
}

const ids = new WeakMap<object, string>();
/** One transaction id per decision, shared by every outbound request of it (`source.tid`). */
export function transactionId(decisionKey: object, ctx: RequestContext): string {
  let tid = ids.get(decisionKey);
  if (!tid) {
    const inbound = ctx.ortb ? str(ctx.ortb.request.source?.tid) || str(ctx.ortb.imp.ext?.tid) : '';
    ids.set(decisionKey, (tid = inbound || randomUUID()));
  }
  return tid;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])];
const usd = (micros: number): number => Math.round(micros) / 1_000_000;

/** Drops undefined and '' fields (absent means unknown in OpenRTB: an empty string would claim a value). */
function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined || o[k] === '') delete o[k];
  return o;
}

function pmpOf(spec: OutboundSpec): Imp['pmp'] | undefined {
  if (!spec.deals?.length) return undefined;
  const deals: Deal[] = spec.deals.map((d) => {
    const deal: Deal = { id: d.dealId, bidfloor: usd(d.floorCpm), bidfloorcur: 'USD', at: d.auctionType };
    if (d.buyerSeats.length) deal.wseat = [...d.buyerSeats];
    if (d.advertiserDomains?.length) deal.wadomain = [...d.advertiserDomains];
    return deal;
  });
  return { private_auction: spec.privateAuction ? 1 : 0, deals };
}

function videoOf(ctx: RequestContext, channel: SnapChannel): Video {
  const { width: w, height: h } = ctx.query;
  return compact({
    mimes: channel.environment === 'ctv' ? CTV_MIMES : WEB_MIMES,
    protocols: videoProtocols(channel.vastVersion),
    w: w || undefined,
    h: h || undefined,
    // the ad lengths the player takes, when its tag says (min_dur, max_dur)
    minduration: ctx.query.minDuration || undefined,
    maxduration: ctx.query.maxDuration || undefined,
    // instream: a VAST player plays the ad before, in or after its content (plcmt 1; 2.5's placement 1)
    plcmt: 1,
    placement: 1,
    // one slot of an ad pod (decision/adPod.ts): the pod, and the position we guarantee (AdCOM: 1 first, -1 last, 0 any)
    podid: ctx.pod?.id,
    slotinpod: ctx.pod ? (ctx.pod.sequence === 1 ? 1 : ctx.pod.sequence === ctx.pod.slots ? -1 : 0) : undefined,
    // we render linear ads only
    linearity: 1,
    // pre-roll unless the player says otherwise (a VAST tag carries no start delay)
    startdelay: 0,
  });
}

function bannerOf(ctx: RequestContext): Banner {
  const { width: w, height: h } = ctx.query;
  return w && h ? { format: [{ w, h }], w, h } : {};
}

/** The banner an outbound request carries: the supplier's own, else the tag call's size. */
export function outboundBanner(ctx: RequestContext): Banner {
  const banner = ctx.ortb?.imp.banner;
  return banner ? { ...banner } : bannerOf(ctx);
}

/**
 * The supplier's video as we forward it: without its `mincpmpersec` (in the supplier's currency and
 * before our margin: our auction holds every bid to it), and, for one slot of its pod, without the
 * dynamic pod's `poddur` and `maxseq` (we ask each partner for the one ad of that slot).
 */
function forwardedVideo(video: Video, slotOfPod: boolean): Video {
  const { mincpmpersec: _perSecond, poddur, maxseq, ...rest } = video;
  return slotOfPod ? rest : compact({ ...rest, poddur, maxseq });
}

function impOf(ctx: RequestContext, channel: SnapChannel, spec: OutboundSpec): Imp {
  const inbound = ctx.ortb?.imp;
  const imp: Imp = { id: spec.impId };
  if (inbound) {
    // the supplier's impression, less what is between it and us (its id, floor, deals, tag id, ext)
    const {
      id: _id,
      pmp: _pmp,
      bidfloor: _floor,
      bidfloorcur: _cur,
      tagid: _tag,
      ext: _ext,
      banner: _banner,
      video,
      audio: _audio,
      native: _native,
      ...rest
    } = inbound;
    Object.assign(imp, rest);
    if (channel.format === 'video') imp.video = video ? forwardedVideo(video, !!ctx.pod) : videoOf(ctx, channel);
    else imp.banner = outboundBanner(ctx);
  } else if (channel.format === 'video') imp.video = videoOf(ctx, channel);
  else imp.banner = outboundBanner(ctx);
  imp.tagid = channel.uid;
  imp.bidfloor = spec.bidfloor;
  imp.bidfloorcur = 'USD';
  const pmp = pmpOf(spec);
  if (pmp) imp.pmp = pmp;
  if (!inbound && /^https:/i.test(ctx.query.pageUrl)) imp.secure = 1;
  return imp;
}

function contentOf(ctx: RequestContext): Record<string, unknown> | undefined {
  const q = ctx.query;
  // the tag's content_cat may list several categories, comma-separated: cat is their list
  const cat = q.contentCategory
    ? q.contentCategory
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean)
    : [];
  const content = compact({
    genre: q.contentGenre,
    cat: cat.length ? cat : undefined,
    contentrating: q.contentRating,
    livestream: q.livestream ? 1 : undefined,
  });
  return Object.keys(content).length ? content : undefined;
}

/**
 * App when the request names an app, or comes from a CTV/app channel without a page; site otherwise.
 * Its `id` is the channel's uid, our exchange-specific id for the placement, unless a supplier's
 * request named one: a site needs an id or a page for Prebid Server (and a tag call may give only a
 * domain), and a buyer can key on it.
 */
function placeOf(ctx: RequestContext, channel: SnapChannel, sellerId: string): { site?: Site; app?: App } {
  const inbound = ctx.ortb?.request;
  if (inbound?.site || inbound?.app) {
    const place = { ...(inbound.site ?? inbound.app) } as Site & App;
    place.publisher = { ...obj(place.publisher), id: sellerId };
    if (typeof place.id !== 'string' || !place.id) place.id = channel.uid;
    return inbound.site ? { site: place } : { app: place };
  }
  const q = ctx.query;
  const content = contentOf(ctx);
  const isApp = q.appBundle ? true : q.pageUrl || ctx.domain ? false : channel.environment !== 'web';
  if (isApp)
    return {
      app: compact({
        id: channel.uid,
        bundle: q.appBundle,
        name: q.appName,
        storeurl: q.appStoreUrl,
        publisher: { id: sellerId },
        content,
      }),
    };
  return {
    site: compact({ id: channel.uid, domain: ctx.domain, page: q.pageUrl, publisher: { id: sellerId }, content }),
  };
}

function geoOf(ctx: RequestContext): Device['geo'] | undefined {
  const country = countryAlpha3(ctx.geo.country);
  // type 2: derived from the IP address
  return country ? compact({ country, region: ctx.geo.region, type: 2 }) : undefined;
}

function deviceOf(ctx: RequestContext, channel: SnapChannel): Device {
  const inbound = ctx.ortb?.request.device;
  if (inbound) {
    const device: Device = { ...inbound };
    const geo = obj(device.geo);
    if (!geo.country) device.geo = { ...geo, ...geoOf(ctx) };
    if (!device.ua && ctx.ua) device.ua = ctx.ua;
    return device;
  }
  const q = ctx.query;
  const v6 = ctx.ip.includes(':');
  return compact({
    ua: ctx.ua,
    ip: v6 ? undefined : ctx.ip,
    ipv6: v6 ? ctx.ip : undefined,
    devicetype: q.deviceType || (channel.environment === 'ctv' ? 3 : ORTB_DEVICE_TYPE[ctx.platform.device]),
    ifa: q.deviceId,
    dnt: q.dnt,
    lmt: q.dnt,
    geo: geoOf(ctx),
  });
}

function userOf(ctx: RequestContext): User | undefined {
  const inbound = ctx.ortb?.request.user;
  if (inbound) {
    // the ids are the upstream exchange's (and buyeruid names us as its buyer): meaningless downstream;
    // so are a Prebid request's ids for its bidders (user.ext.prebid.buyeruids), adplane's and its partners'
    const { id: _id, buyeruid: _buyer, ...rest } = inbound;
    const user: User = { ...rest };
    if (user.ext && 'prebid' in obj(user.ext)) {
      const { prebid: _prebid, ...ext } = obj(user.ext);
      if (Object.keys(ext).length) user.ext = ext;
      else delete user.ext;
    }
    const consent = str(user.consent) || str(obj(user.ext).consent);
    if (consent) user.consent = consent;
    return Object.keys(user).length ? user : undefined;
  }
  return ctx.query.gdprConsent ? { consent: ctx.query.gdprConsent } : undefined;
}

function regsOf(ctx: RequestContext): Regs | undefined {
  const q = ctx.query;
  // queryOfBidRequest already read an inbound request's regs (2.5 ext spellings included) into q
  const inbound = ctx.ortb?.request.regs;
  const sid = gppSectionIds(q.gppSid);
  const regs: Regs = compact({
    coppa: q.coppa === 1 ? 1 : inbound?.coppa === 0 ? 0 : undefined,
    gdpr: q.gdpr ?? undefined,
    us_privacy: q.usPrivacy,
    gpp: q.gpp,
    gpp_sid: sid.length ? sid : undefined,
  });
  return Object.keys(regs).length ? regs : undefined;
}

function supplyChainOf(ctx: RequestContext, node: SupplyChainNode) {
  return outboundSupplyChain({ ortb: ctx.ortb?.request, schain: ctx.query.schain }, node);
}

/**
 * `bcat` (and `cattax`, the taxonomy of bcat: IAB 1.0 when absent): the inbound request's blocks
 * joined with ours (`ours`: IAB 1.0 codes). Taxonomies are never mixed: when the inbound request
 * blocks in another taxonomy (cattax neither absent nor 1), its bcat and cattax go as they came and
 * ours are only enforced on the answers (openrtbCall.ts); when it names another taxonomy but blocks
 * nothing, ours go with cattax 1.
 */
function blockedCategoriesOf(request: BidRequest, inbound: BidRequest | undefined, ours: readonly string[]): void {
  const theirs = strings(inbound?.bcat);
  const cattax = inbound?.cattax;
  if (cattax !== undefined && cattax !== 1) {
    if (theirs.length) {
      request.bcat = theirs;
      request.cattax = cattax;
    } else if (ours.length) {
      request.bcat = [...ours];
      request.cattax = 1;
    }
    return;
  }
  const bcat = union(theirs, ours);
  if (!bcat.length) return;
  request.bcat = bcat;
  if (cattax !== undefined) request.cattax = cattax;
}

export function buildBidRequest(ctx: RequestContext, channel: SnapChannel, spec: OutboundSpec): BidRequest {
  const inbound = ctx.ortb?.request;
  const request: BidRequest = {
    id: spec.id,
    imp: [impOf(ctx, channel, spec)],
    ...placeOf(ctx, channel, spec.sellerId),
    device: deviceOf(ctx, channel),
  };
  const user = userOf(ctx);
  if (user) request.user = user;
  if (inbound?.test === 1) request.test = 1;
  request.at = spec.at;
  request.tmax = spec.tmax;
  request.cur = ['USD'];
  if (spec.wseat?.length) request.wseat = [...spec.wseat];
  blockedCategoriesOf(request, inbound, spec.bcat);
  const badv = union(strings(inbound?.badv), spec.badv);
  if (badv.length) request.badv = badv;
  const bapp = strings(inbound?.bapp);
  if (bapp.length) request.bapp = bapp;
  request.source = { tid: spec.tid, schain: supplyChainOf(ctx, spec.node) };
  const regs = regsOf(ctx);
  if (regs) request.regs = regs;
  alsoIn25Places(request);
  return request;
}

/**
 * OpenRTB 2.6 moved the consent string, GDPR, US privacy and the supply chain out of `ext`; many
 * bidders still read them where 2.5 (and Prebid's extensions) put them. So the same values go in
 * both places: `user.ext.consent`, `regs.ext.gdpr`, `regs.ext.us_privacy`, `source.ext.schain`
 * beside `user.consent`, `regs.gdpr`, `regs.us_privacy`, `source.schain`. A 2.6 reader ignores the
 * `ext` copies. New objects throughout: a forwarded inbound request's own are never changed.
 */
function alsoIn25Places(request: BidRequest): void {
  const { user, regs, source } = request;
  if (user?.consent) user.ext = { ...obj(user.ext), consent: user.consent };
  if (regs && (regs.gdpr !== undefined || regs.us_privacy !== undefined)) {
    const ext: Record<string, unknown> = { ...obj(regs.ext) };
    if (regs.gdpr !== undefined) ext.gdpr = regs.gdpr;
    if (regs.us_privacy !== undefined) ext.us_privacy = regs.us_privacy;
    regs.ext = ext;
  }
  if (source?.schain) source.ext = { ...obj(source.ext), schain: source.schain };
}
