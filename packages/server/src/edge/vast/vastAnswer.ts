import {
  childNamed as child,
  childrenNamed as children,
  descendantsNamed as descendants,
  parseXmlTree,
  textOf as text,
  type XmlTreeNode as XmlElement,
} from './xmlTree.js';
import { VAST_ERRORS } from './vastVersion.js';
import { type CompanionsRequired, type VastCompanion } from './companions.js';
import { ICON_X, ICON_Y, type VastIcon, XS_TIME } from './icons.js';
import { type MediaExtras, NO_MEDIA_EXTRAS } from './mediaExtras.js';
import { type VastResource } from './resources.js';
import { AD_EXPIRES_S } from './adLifetime.js';
import {
  type AdCategory,
  type AdParameters,
  type InlineAd,
  type NonLinearResource,
  type TrackingEvent,
  type Trackers,
  VAST_EVENTS,
  VAST_OFFSET,
  type VastMediaFile,
  type Verification,
  type ViewableTrackers,
} from './vastWriter.js';
import { vastDuration } from './xml.js';
import { currencyCode, type RateSource } from '../ortb/currency.js';

/**
 * What a demand tag's VAST answer holds, read defensively: the ad a player would play (readVastAnswer), inline or wrapper, with
 * every tracker it carries (so that we keep the demand's trackers when we answer the player: its
 * impressions, errors, linear events with their offsets, clicks, viewability trackers and
 * verification vendors), its media (with their API framework and codec, and VAST 4's captions,
 * mezzanine and interactive files), duration, skip offset,
 * click-through and the price it states in <Pricing> (VAST 3+), in micro-dollars (another currency
 * than USD converted at the operator's rates).
 */
export interface DemandInline {
  kind: 'inline';
  adSystem: string;
  title: string;
  /** Who the ad is for, as the demand wrote it (<Advertiser>, VAST 3+: a name, the domain recommended), '' when not said. */
  advertiser: string;
  /** What the ad is about (<Category>, VAST 4), each with its list's authority. */
  categories: AdCategory[];
  trackers: Trackers;
  clickThrough: string;
  mediaFiles: VastMediaFile[];
  duration: number;
  /** When the ad becomes skippable (Linear skipoffset: HH:MM:SS(.mmm), bare seconds written so, or n%), '' when it is not. */
  skipOffset: string;
  /** Its icons (AdChoices), readable ones only. */
  icons: VastIcon[];
  /** What its VPAID unit reads, null when none. */
  adParameters: AdParameters | null;
  /** Its captions, mezzanine and interactive files (VAST 4). */
  mediaExtras: MediaExtras;
  /** Its companion banners, readable ones only, and how many the player must show. */
  companions: { list: VastCompanion[]; required: CompanionsRequired };
  pricingCpm: number | null;
  /** The linear creative's Universal Ad ID (VAST 4: the registry and the creative's id in it), null when it gave none. */
  universalAdId: { registry: string; id: string } | null;
  /** Its other Universal Ad IDs (VAST 4.2 allows several, each its registry's: Ad-ID and Clearcast...), absent when one or none. */
  moreUniversalAdIds?: { registry: string; id: string }[];
  /** For how many seconds the demand lets its ad be played (VAST 4.1+ <Expires>, whole seconds from 1); absent when unsaid. */
  expiresS?: number;
  /**
   * The ad's NonLinear, read only for a display slot (readVastAnswer's `nonLinear`; there a Linear
   * beside it is left out): its first readable NonLinear (size as written, 0 when unsaid), its
   * click-through in `clickThrough` and its NonLinearAds events and NonLinearClickTracking in
   * `trackers`; `mediaFiles` is empty. Absent: a linear ad.
   */
  nonLinear?: DemandNonLinear;
  /** The answer's ads passed over before this one (readVastAnswer): reported as a player would (errorPings.ts). */
  failedBefore?: FailedAd[];
}

interface DemandNonLinear {
  width: number;
  height: number;
  resource: NonLinearResource;
}

/**
 * An ad a player tried and gave up on (a buffet's broken ad, a wrapper chain that gave no ad) while
 * another one was tried after it: the VAST error code it reports, and where the demand asked to hear
 * of it ([ERRORCODE] unfilled).
 */
export interface FailedAd {
  vastError: number;
  errorUrls: string[];
}

export interface DemandWrapper {
  kind: 'wrapper';
  tagUri: string;
  trackers: Trackers;
  pricingCpm: number | null;
  /** false: the wrapper allows no further wrapper after the answer it points to (followAdditionalWrappers, VAST 3+). */
  followAdditionalWrappers: boolean;
  /** allowMultipleAds (VAST 4, false by default): false, the answer it points to is read for its first stand-alone ad. */
  allowMultipleAds: boolean;
  /** fallbackOnNoAd (VAST 4; true unless said): when its chain gives no ad, the player may try the next ad of the answer holding it. */
  fallbackOnNoAd: boolean;
  /** The icons and companion banners a wrapper may add to the ad (VAST 3+; wrapperCreative merges them). */
  icons: VastIcon[];
  companions: { list: VastCompanion[]; required: CompanionsRequired };
  /** Its NonLinearAds events and NonLinearClickTracking: what joins a NonLinear ad's trackers instead of its linear ones. */
  nonLinearTrackers: Pick<Trackers, 'events' | 'clickTracking'>;
  /** The answer's ads passed over before this one (readVastAnswer). */
  failedBefore?: FailedAd[];
}

/**
 * Why an answer has no ad a player could play, with the VAST error code a player would report, and
 * the error trackers the answer gave for it (the failing ad's <Error>s, or an empty response's root
 * <Error>s, VAST 3+): adplane reports the error there as the player would have (errorPings.ts).
 */
export interface EmptyAnswer {
  kind: 'empty';
  vastError: number;
  reason: string;
  errorUrls: string[];
  /** The answer's other ads that could not play either, tried after the one this answer reports (readVastAnswer). */
  failedBefore?: FailedAd[];
}

export type DemandAnswer = DemandInline | DemandWrapper | EmptyAnswer;

const NO_URLS: string[] = [];

const emptyAnswer = (vastError: number, reason: string, errorUrls: string[] = NO_URLS): EmptyAnswer => ({
  kind: 'empty',
  vastError,
  reason,
  errorUrls,
});

/** The error trackers of an element (<Error> children with a URL). */
const errorUrlsOf = (e: XmlElement): string[] => children(e, 'Error').map(text).filter(Boolean);

/**
 * A Linear's events a player fires: every event some VAST version names (vastWriter.ts VAST_EVENTS;
 * 2.0's expand and acceptInvitation as much as 4.2's interactiveStart), each written under the
 * channel's version's name, or left out where it has none.
 */
const TRACKED_EVENTS = VAST_EVENTS;

/** A NonLinear ad's events (VAST 2.0 to 4.2: NonLinearAds/TrackingEvents). */
const NONLINEAR_EVENTS = new Set([
  'creativeView',
  'acceptInvitation',
  'adExpand',
  'adCollapse',
  'minimize',
  'close',
  'overlayViewDuration',
  'otherAdInteraction',
  'expand',
  'collapse',
]);

/** A Duration in seconds: HH:MM:SS(.mmm) as VAST writes it, or a bare number of seconds as some servers do; 0 when unreadable. */
function seconds(t: string): number {
  const m = /^(\d{1,2}):(\d{2}):(\d{2})(\.\d+)?$/.exec(t);
  if (m) return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4] ?? 0);
  return /^\d{1,5}(\.\d+)?$/.test(t) ? Number(t) : 0;
}

/** The most a <Pricing> may state, in US dollars CPM (more is a mistake, not a price). */
const MAX_PRICING_USD = 1000;

/**
 * The CPM an ad's <Pricing> states, in micro-dollars, or null. adplane keeps money in US dollars:
 * VAST names the currency with an ISO 4217 code (USD when unsaid), and another one is converted at
 * `rates` (the operator's, ortb/currency.ts), as an OpenRTB bid's `cur` is; a currency without a
 * rate states no price adplane can read (500 JPY is not $500).
 */
function pricing(ad: XmlElement, rates: RateSource | undefined): number | null {
  const p = child(ad, 'Pricing');
  if (!p) return null;
  const v = Number(text(p));
  if (!Number.isFinite(v) || v < 0) return null;
  if ((p.attrs.model ?? 'cpm').trim().toLowerCase() !== 'cpm') return null;
  const stated = p.attrs.currency?.trim();
  const code = stated ? currencyCode(stated) : 'USD';
  const usdPerUnit = code === 'USD' ? 1 : code && rates ? rates.rate(code, 'USD') : null;
  if (usdPerUnit === null) return null;
  const usd = v * usdPerUnit;
  return usd <= MAX_PRICING_USD ? Math.round(usd * 1_000_000) : null;
}

/**
 * A Linear's skipoffset: HH:MM:SS(.mmm) or n% as VAST writes it; bare seconds (`5`, as some ad
 * servers write) as HH:MM:SS(.mmm); anything else is no skip offset a player reads ('').
 */
function skipOffsetOf(value: string | undefined): string {
  const t = (value ?? '').trim();
  if (/^\d{1,4}(\.\d+)?$/.test(t)) return vastDuration(Number(t));
  return VAST_OFFSET.test(t) ? t : '';
}

const urlsOf = (el: XmlElement | null, name: string): string[] => children(el, name).map(text).filter(Boolean);

function viewableOf(ad: XmlElement): ViewableTrackers | undefined {
  const v = child(ad, 'ViewableImpression');
  if (!v) return undefined;
  const out = {
    viewable: urlsOf(v, 'Viewable'),
    notViewable: urlsOf(v, 'NotViewable'),
    undetermined: urlsOf(v, 'ViewUndetermined'),
  };
  return out.viewable.length || out.notViewable.length || out.undetermined.length ? out : undefined;
}

/** A Verification as VAST 4.1 writes it (4.0's, with scripts only, reads the same). */
function verificationOf(v: XmlElement): Verification | null {
  const verification: Verification = {
    vendor: v.attrs.vendor ?? '',
    javaScript: children(v, 'JavaScriptResource')
      .filter((r) => text(r))
      .map((r) => ({
        url: text(r),
        apiFramework: r.attrs.apiFramework ?? '',
        browserOptional:
          r.attrs.browserOptional === 'true' || r.attrs.browserOptional === 'false' ? r.attrs.browserOptional : '',
      })),
    executable: children(v, 'ExecutableResource')
      .filter((r) => text(r))
      .map((r) => ({ url: text(r), apiFramework: r.attrs.apiFramework ?? '', type: r.attrs.type ?? '' })),
    tracking: children(child(v, 'TrackingEvents'), 'Tracking')
      .filter((t) => t.attrs.event && text(t))
      .map((t): [string, string] => [t.attrs.event!, text(t)]),
    parameters: text(child(v, 'VerificationParameters')),
  };
  return verification.javaScript.length || verification.executable.length ? verification : null;
}

/**
 * The ad's verification vendors: VAST 4.1's AdVerifications, or an Extension of type AdVerifications
 * (earlier versions); an ad server writing both for players of either kind lists each vendor once.
 */
function verificationsOf(ad: XmlElement): Verification[] | undefined {
  const lists = [
    child(ad, 'AdVerifications'),
    ...children(child(ad, 'Extensions'), 'Extension')
      .filter((e) => e.attrs.type === 'AdVerifications')
      .map((e) => child(e, 'AdVerifications')),
  ];
  const out = distinctVerifications(
    lists.flatMap((list) =>
      children(list, 'Verification')
        .map(verificationOf)
        .filter((v): v is Verification => v !== null),
    ),
  );
  return out.length ? out : undefined;
}

/**
 * Verifications without repeats: one with the vendor, scripts and parameters of an earlier one is
 * the same measurement (a player would run its script twice, and the vendor count the ad twice), its
 * trackers joining the earlier one's. The same vendor with other parameters (another account's
 * measurement, in a wrapper) is one of its own.
 */
function distinctVerifications(list: readonly Verification[]): Verification[] {
  const byKey = new Map<string, Verification>();
  for (const v of list) {
    const key = JSON.stringify([
      v.vendor,
      v.javaScript.map((r) => r.url),
      v.executable.map((r) => r.url),
      v.parameters,
    ]);
    const earlier = byKey.get(key);
    if (!earlier) byKey.set(key, v);
    else {
      const tracked = new Set(earlier.tracking.map(([e, u]) => `${e} ${u}`));
      const more = v.tracking.filter(([e, u]) => !tracked.has(`${e} ${u}`));
      if (more.length) byKey.set(key, { ...earlier, tracking: [...earlier.tracking, ...more] });
    }
  }
  return byKey.size === list.length ? [...list] : [...byKey.values()];
}

/** The first usable resource of an icon or a companion: an image, else an iframe, else HTML. */
function resourceOf(el: XmlElement): VastResource | null {
  const image = child(el, 'StaticResource');
  if (image && text(image) && image.attrs.creativeType)
    return { type: 'static', url: text(image), creativeType: image.attrs.creativeType };
  const iframe = child(el, 'IFrameResource');
  if (iframe && text(iframe)) return { type: 'iframe', url: text(iframe) };
  const html = child(el, 'HTMLResource');
  return html && text(html) ? { type: 'html', html: text(html) } : null;
}

const size = (value: string | undefined): number => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : 0;
};

/** A media file's pixels as written (`640.0` too), 0 when unsaid or unreadable. */
const mediaSize = (value: string | undefined): number => {
  const n = Math.round(Number(value));
  return Number.isFinite(n) && n > 0 ? n : 0;
};

/** A companion banner with a size and something to show, its trackers with it. */
function companionOf(c: XmlElement): VastCompanion | null {
  const width = size(c.attrs.width);
  const height = size(c.attrs.height);
  const resource = resourceOf(c);
  if (!width || !height || !resource) return null;
  return {
    width,
    height,
    id: c.attrs.id ?? '',
    apiFramework: c.attrs.apiFramework ?? '',
    adSlotId: c.attrs.adSlotId ?? c.attrs.adSlotID ?? '',
    resource,
    altText: text(child(c, 'AltText')),
    clickThrough: text(child(c, 'CompanionClickThrough')),
    clickTracking: children(c, 'CompanionClickTracking')
      .filter((t) => text(t))
      .map((t): [string, string] => [t.attrs.id ?? '', text(t)]),
    creativeView: children(child(c, 'TrackingEvents'), 'Tracking')
      .filter((t) => t.attrs.event === 'creativeView' && text(t))
      .map(text),
    adParameters: text(child(c, 'AdParameters')),
  };
}

/** The inline ad's companions (the first CompanionAds of its creatives) and how many the player must show. */
function companionsOf(inline: XmlElement): { list: VastCompanion[]; required: CompanionsRequired } {
  const ads = descendants(inline, 'CompanionAds')[0];
  const list = children(ads, 'Companion')
    .map(companionOf)
    .filter((c): c is VastCompanion => c !== null);
  const required = ads?.attrs.required;
  return { list, required: required === 'all' || required === 'any' || required === 'none' ? required : '' };
}

/** An icon as the XSDs allow it: a size, one resource, positions and times only when well formed. */
function iconOf(i: XmlElement): VastIcon | null {
  const width = size(i.attrs.width);
  const height = size(i.attrs.height);
  if (!width || !height) return null;
  const resource = resourceOf(i);
  if (!resource) return null;
  const well = (value: string | undefined, pattern: RegExp) =>
    value && pattern.test(value.trim()) ? value.trim() : '';
  const clicks = child(i, 'IconClicks');
  return {
    program: i.attrs.program ?? '',
    width,
    height,
    xPosition: well(i.attrs.xPosition, ICON_X),
    yPosition: well(i.attrs.yPosition, ICON_Y),
    offset: well(i.attrs.offset, XS_TIME),
    duration: well(i.attrs.duration, XS_TIME),
    apiFramework: i.attrs.apiFramework ?? '',
    resource,
    clickThrough: text(child(clicks, 'IconClickThrough')),
    clickTracking: urlsOf(clicks, 'IconClickTracking'),
    viewTracking: urlsOf(i, 'IconViewTracking'),
  };
}

/** A Linear's readable icons (none without a Linear: a wrapper's creatives may be empty). */
const iconsOf = (linear: XmlElement | undefined): VastIcon[] =>
  children(child(linear, 'Icons'), 'Icon')
    .map(iconOf)
    .filter((i): i is VastIcon => i !== null);

const httpUrl = (u: string): boolean => /^https?:\/\//i.test(u);

/**
 * A URL of the answer as a player would read it against the answer's own URL (`base`): a
 * protocol-relative one (`//cdn...`, common in older tags) takes the base's scheme; with `relative`
 * (a wrapper's VASTAdTagURI, as VAST clients resolve it) a path is resolved too. Else as written.
 */
function absolute(u: string, base: string, relative = false): string {
  if (!base || !u || httpUrl(u)) return u;
  if (u.startsWith('//')) return (base.startsWith('https:') ? 'https:' : 'http:') + u;
  if (!relative || /^[a-z][a-z0-9+.-]*:/i.test(u)) return u;
  try {
    return new URL(u, base).href;
  } catch {
    return u;
  }
}

/** The media's captions, mezzanine and interactive files: those with an http(s) URL. */
function mediaExtrasOf(files: XmlElement | null | undefined): MediaExtras {
  if (!files) return NO_MEDIA_EXTRAS;
  const closedCaptions = children(child(files, 'ClosedCaptionFiles'), 'ClosedCaptionFile')
    .filter((c) => httpUrl(text(c)))
    .map((c) => ({ url: text(c), type: c.attrs.type ?? '', language: c.attrs.language ?? '' }));
  const mezzanine = children(files, 'Mezzanine')
    .map((m) => ({
      url: text(m),
      delivery: m.attrs.delivery === 'streaming' ? ('streaming' as const) : ('progressive' as const),
      type: m.attrs.type ?? '',
      width: mediaSize(m.attrs.width),
      height: mediaSize(m.attrs.height),
      codec: m.attrs.codec ?? '',
      fileSize: size(m.attrs.fileSize),
      mediaType: m.attrs.mediaType ?? '',
      id: m.attrs.id ?? '',
    }))
    // (a 4.0 answer's mezzanine is a bare URI: kept, written bare in 4.0; 4.1+ write only a described one)
    .filter((m) => httpUrl(m.url));
  const interactive = children(files, 'InteractiveCreativeFile')
    .filter((i) => httpUrl(text(i)))
    .map((i) => ({
      url: text(i),
      type: i.attrs.type ?? '',
      apiFramework: i.attrs.apiFramework ?? '',
      variableDuration:
        i.attrs.variableDuration === undefined
          ? null
          : i.attrs.variableDuration === 'true' || i.attrs.variableDuration === '1',
    }));
  return closedCaptions.length || mezzanine.length || interactive.length
    ? { closedCaptions, mezzanine, interactive }
    : NO_MEDIA_EXTRAS;
}

/** An ad's categories that name their authority, as VAST 4 requires (at most 20). */
function categoriesOf(inline: XmlElement): AdCategory[] {
  const out: AdCategory[] = [];
  for (const c of children(inline, 'Category')) {
    const authority = (c.attrs.authority ?? '').trim();
    const code = text(c);
    if (authority && code && out.length < 20) out.push({ authority, code });
  }
  return out;
}

/** At most this many Universal Ad IDs of a creative are kept (one per registry an ad is known by). */
const MAX_UNIVERSAL_AD_IDS = 5;

/**
 * A creative's Universal Ad IDs (4.1+ write the id as the text, 4.0 in idValue), readable ones only:
 * the first as `universalAdId`, the others (VAST 4.2 allows several) in `moreUniversalAdIds`.
 */
function universalAdIdsOf(creative: XmlElement | null): Pick<DemandInline, 'universalAdId' | 'moreUniversalAdIds'> {
  const ids: { registry: string; id: string }[] = [];
  for (const u of children(creative, 'UniversalAdId')) {
    const registry = (u.attrs.idRegistry ?? '').trim();
    const id = text(u) || (u.attrs.idValue ?? '').trim();
    if (registry && id && ids.length < MAX_UNIVERSAL_AD_IDS)
      ids.push({ registry: registry.slice(0, 256), id: id.slice(0, 256) });
  }
  return ids.length > 1
    ? { universalAdId: ids[0]!, moreUniversalAdIds: ids.slice(1) }
    : { universalAdId: ids[0] ?? null };
}

function adParametersOf(linear: XmlElement): AdParameters | null {
  const p = child(linear, 'AdParameters');
  return p && text(p) ? { text: text(p), xmlEncoded: p.attrs.xmlEncoded === 'true' } : null;
}

/** The events and click trackers of an ad's NonLinearAds (those of a NonLinear itself too, as VAST 2.0 wrappers write them). */
function nonLinearTrackersOf(ad: XmlElement): Pick<Trackers, 'events' | 'clickTracking'> {
  const events: TrackingEvent[] = [];
  for (const tr of descendants(ad, 'Tracking')) {
    const event = tr.attrs.event ?? '';
    const holder = tr.parent?.parent?.name;
    if (NONLINEAR_EVENTS.has(event) && text(tr) && (holder === 'NonLinearAds' || holder === 'NonLinear'))
      events.push([event, text(tr)]);
  }
  const clickTracking = descendants(ad, 'NonLinearClickTracking').map(text).filter(Boolean);
  return { events, clickTracking };
}

/** `nonLinear`: the events and click trackers of its NonLinearAds instead of its Linear's. */
function trackersOf(ad: XmlElement, nonLinear = false): Trackers {
  const t: Trackers = { impression: [], error: errorUrlsOf(ad), events: [], clickTracking: [] };
  for (const e of children(ad, 'Impression')) if (text(e)) t.impression.push(text(e));
  if (nonLinear) Object.assign(t, nonLinearTrackersOf(ad));
  else {
    for (const tr of descendants(ad, 'Tracking')) {
      const event = tr.attrs.event ?? '';
      // only linear events: companion and non-linear trackers do not apply to what we re-render
      if (!TRACKED_EVENTS.has(event) || !text(tr) || tr.parent?.parent?.name !== 'Linear') continue;
      const e: TrackingEvent = [event, text(tr)];
      if (tr.attrs.offset) e.push(tr.attrs.offset.trim());
      t.events.push(e);
    }
    // a linear ad's click trackers (not what an Extension may name so)
    for (const c of descendants(ad, 'ClickTracking'))
      if (c.parent?.name === 'VideoClicks' && text(c)) t.clickTracking.push(text(c));
  }
  const viewable = viewableOf(ad);
  if (viewable) t.viewable = viewable;
  const verifications = verificationsOf(ad);
  if (verifications) t.verifications = verifications;
  return t;
}

/** The reason readVastAnswer gives when `skip` passes the answer's last ad that could play. */
export const NO_MORE_ADS = 'no_more_ads';

/**
 * `base`: the URL the answer came from, to read its relative URLs against (none: as written).
 * `standAloneFirst`: the answer to a wrapper that allows no multiple ads (allowMultipleAds, VAST
 * 4: "only the first stand-alone Ad"): its stand-alone ads come before a pod's.
 * `skip`: the ads that could play to pass first (a player's fallback after the first one failed).
 * `rates`: what converts a <Pricing> in another currency than USD (none: only USD is a price).
 * `nonLinear`: the slot takes a NonLinear ad (a display channel's, whose answer is one), never a
 * linear video: an ad's NonLinear is the ad to play (a 201 on a linear slot), and an ad with a Linear
 * alone is the 201 there (displayAd), passed over as a buffet's broken ad is.
 * The ads a player would try and give up on before the one returned (a buffet's broken ads) are in
 * its `failedBefore`, each once over the `skip`s: those after the (skip-1)-th ad that could play.
 */
export function readVastAnswer(
  xml: string,
  base = '',
  standAloneFirst = false,
  skip = 0,
  rates?: RateSource,
  nonLinear = false,
): DemandAnswer {
  if (!xml.trim()) return emptyAnswer(VAST_ERRORS.noAds, 'empty_answer');
  const root = parseXmlTree(xml);
  if (!root) return emptyAnswer(VAST_ERRORS.xmlParse, 'bad_xml');
  // VAST 1.0's root: a version no current player reads (VAST 102)
  if (root.name === 'VideoAdServingTemplate') return emptyAnswer(VAST_ERRORS.unsupportedVersion, 'unsupported_version');
  if (root.name !== 'VAST') return emptyAnswer(VAST_ERRORS.xmlParse, 'not_vast');
  const ads = inPlayOrder(children(root, 'Ad'), standAloneFirst);
  // a "no ad" response may name where to report it (VAST 3+: <Error> under the root)
  if (!ads.length) return emptyAnswer(VAST_ERRORS.noAds, 'no_ad', errorUrlsOf(root));
  // the first ad a player could play; when none can, why the first could not
  let first: EmptyAnswer | null = null;
  let playable = 0;
  /** The ads that could not play since the last one that could. */
  let failed: FailedAd[] = [];
  for (const ad of ads) {
    const answer = readAd(ad, base, rates, nonLinear);
    if (answer.kind === 'empty') {
      first ??= answer;
      failed.push({ vastError: answer.vastError, errorUrls: answer.errorUrls });
    } else if (playable++ === skip) return failed.length ? { ...answer, failedBefore: failed } : answer;
    else failed = [];
  }
  // (past the last ad that could play, for a fallback: the ads after it could not play either)
  if (skip > 0 || !first)
    return failed.length
      ? { ...emptyAnswer(VAST_ERRORS.noAds, NO_MORE_ADS), failedBefore: failed }
      : emptyAnswer(VAST_ERRORS.noAds, NO_MORE_ADS);
  // none could play: the first one's reason, and the others' errors beside it
  return failed.length > 1 ? { ...first, failedBefore: failed.slice(1) } : first;
}

/**
 * An answer's ads in the order a player tries them for one slot (VAST 3+, ad pods and buffets): a
 * pod's ads (with a `sequence`) first, lowest sequence first, then the stand-alone ads, in document
 * order, which a player falls back on when the one before fails (`standAloneFirst`: the stand-alone
 * ads first, then the pod's, which a strict player would not play at all).
 */
function inPlayOrder(ads: XmlElement[], standAloneFirst: boolean): XmlElement[] {
  if (ads.length < 2) return ads;
  const sequence = (ad: XmlElement) => {
    const n = Number(ad.attrs.sequence);
    return Number.isInteger(n) && n > 0 ? n : standAloneFirst ? -Infinity : Infinity;
  };
  return ads
    .map((ad, at) => ({ ad, at, seq: sequence(ad) }))
    .sort((a, b) => a.seq - b.seq || a.at - b.at)
    .map((x) => x.ad);
}

/** An xs:boolean attribute as servers write it (true, 1, True...); `absent` when missing or unreadable. */
function flag(value: string | undefined, absent: boolean): boolean {
  const v = (value ?? '').trim().toLowerCase();
  return v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : absent;
}

function readAd(ad: XmlElement, base: string, rates: RateSource | undefined, nonLinear: boolean): DemandAnswer {
  const wrapper = child(ad, 'Wrapper');
  if (wrapper) {
    // (VAST 1 and some VAST 2 servers write <VASTAdTagURL><URL>...</URL></VASTAdTagURL>)
    const tagUri = absolute(text(child(wrapper, 'VASTAdTagURI') ?? child(wrapper, 'VASTAdTagURL')), base, true);
    if (!httpUrl(tagUri)) return emptyAnswer(VAST_ERRORS.wrapperGeneral, 'bad_wrapper', errorUrlsOf(wrapper));
    return {
      kind: 'wrapper',
      tagUri,
      trackers: trackersOf(wrapper),
      pricingCpm: pricing(wrapper, rates),
      followAdditionalWrappers: flag(wrapper.attrs.followAdditionalWrappers, true),
      allowMultipleAds: flag(wrapper.attrs.allowMultipleAds, false),
      fallbackOnNoAd: flag(wrapper.attrs.fallbackOnNoAd, true),
      icons: iconsOf(descendants(wrapper, 'Linear')[0]),
      companions: companionsOf(wrapper),
      nonLinearTrackers: nonLinearTrackersOf(wrapper),
    };
  }
  const inline = child(ad, 'InLine');
  if (!inline) return emptyAnswer(VAST_ERRORS.schema, 'bad_ad');
  const linear = descendants(inline, 'Linear')[0];
  if (nonLinear) return displayAd(inline, linear !== undefined, base, rates);
  // a non-linear (overlay) ad cannot fill the linear slot a player asked for
  if (!linear) return notShowable(inline, descendants(inline, 'NonLinearAds').length > 0);
  const mediaFiles: VastMediaFile[] = descendants(linear, 'MediaFile')
    .map((m) => ({
      url: absolute(text(m), base),
      mime: m.attrs.type?.trim() || 'video/mp4',
      // a stream or an audio file often states no size: kept, as players keep it (written 0)
      width: mediaSize(m.attrs.width),
      height: mediaSize(m.attrs.height),
      bitrate: Number(m.attrs.bitrate) || 0,
      ...(m.attrs.apiFramework ? { apiFramework: m.attrs.apiFramework } : {}),
      ...(m.attrs.codec ? { codec: m.attrs.codec } : {}),
    }))
    .filter((m) => httpUrl(m.url));
  if (!mediaFiles.length) return emptyAnswer(VAST_ERRORS.mediaNotFound, 'no_media', errorUrlsOf(inline));
  return {
    kind: 'inline',
    ...inlineHead(inline, rates),
    trackers: trackersOf(inline),
    clickThrough: text(descendants(linear, 'ClickThrough')[0]),
    mediaFiles,
    duration: seconds(text(child(linear, 'Duration'))),
    skipOffset: skipOffsetOf(linear.attrs.skipoffset),
    icons: iconsOf(linear),
    adParameters: adParametersOf(linear),
    mediaExtras: mediaExtrasOf(child(linear, 'MediaFiles')),
    companions: companionsOf(inline),
    ...universalAdIdsOf(linear.parent),
  };
}

/** What every inline ad says of itself, linear or not. */
function inlineHead(inline: XmlElement, rates: RateSource | undefined) {
  const head = {
    adSystem: text(child(inline, 'AdSystem')) || 'demand',
    title: text(child(inline, 'AdTitle')) || 'Ad',
    advertiser: text(child(inline, 'Advertiser')).slice(0, 256),
    categories: categoriesOf(inline),
    pricingCpm: pricing(inline, rates),
  };
  const expires = expiresOf(inline);
  return expires === undefined ? head : { ...head, expiresS: expires };
}

/** An inline ad's <Expires> (VAST 4.1+: an integer of seconds), when it is a whole number from 1; else undefined. */
function expiresOf(inline: XmlElement): number | undefined {
  const written = text(child(inline, 'Expires'));
  if (!/^\+?\d{1,10}$/.test(written)) return undefined;
  const seconds = Number(written);
  return seconds >= 1 ? seconds : undefined;
}

/** A NonLinear's resource as our writer shows it: an image (StaticResource with its type), an iframe, or HTML; null when none is usable. */
function nonLinearResourceOf(n: XmlElement, base: string): NonLinearResource | null {
  const r = resourceOf(n);
  if (!r) return null;
  if (r.type === 'static') {
    const url = absolute(r.url, base);
    return httpUrl(url) ? { type: 'image', url, mime: r.creativeType.trim() } : null;
  }
  if (r.type === 'iframe') {
    const url = absolute(r.url, base);
    return httpUrl(url) ? { type: 'iframe', url } : null;
  }
  return { type: 'html', html: r.html };
}

/**
 * An inline ad read for a display slot, whose answer is a NonLinear (docs/ad-server.md, display
 * channels): its NonLinear, whether or not it has a Linear too (a video plays in no display slot).
 * Without one, the ad is not one the slot can show, as a player that asked for a non-linear ad
 * reports it (201, "expecting different linearity"): a linear video (`linear_on_display`: its error
 * trackers hear 201 and the auction goes on to the next demand), else as notShowable.
 */
function displayAd(inline: XmlElement, hasLinear: boolean, base: string, rates: RateSource | undefined): DemandAnswer {
  const nonLinearAds = descendants(inline, 'NonLinearAds');
  if (nonLinearAds.length) return nonLinearAd(inline, nonLinearAds, base, rates);
  if (hasLinear) return emptyAnswer(VAST_ERRORS.linearity, 'linear_on_display', errorUrlsOf(inline));
  return notShowable(inline, false);
}

/**
 * An inline ad with no creative the slot can show: one of the other linearity (`otherKind`: an
 * overlay on a linear slot) or a companion alone (shown beside an ad, never alone) is 201 ("expecting
 * different linearity"), `not_linear` on either kind of slot; no creative at all 303, as players report it.
 */
function notShowable(inline: XmlElement, otherKind: boolean): EmptyAnswer {
  const errorUrls = errorUrlsOf(inline);
  return otherKind || descendants(inline, 'CompanionAds').length
    ? emptyAnswer(VAST_ERRORS.linearity, 'not_linear', errorUrls)
    : emptyAnswer(VAST_ERRORS.noAds, 'no_creative', errorUrls);
}

/**
 * A NonLinear ad for a display slot: its first NonLinear with a resource to show (none: 503,
 * "couldn't find NonLinear resource with supported type"), with the ad's NonLinearAds trackers.
 */
function nonLinearAd(
  inline: XmlElement,
  lists: XmlElement[],
  base: string,
  rates: RateSource | undefined,
): DemandAnswer {
  for (const n of lists.flatMap((l) => children(l, 'NonLinear'))) {
    const resource = nonLinearResourceOf(n, base);
    if (!resource) continue;
    const creative = n.parent?.parent ?? null;
    return {
      kind: 'inline',
      ...inlineHead(inline, rates),
      trackers: trackersOf(inline, true),
      clickThrough: text(child(n, 'NonLinearClickThrough')),
      mediaFiles: [],
      duration: 0,
      skipOffset: '',
      icons: [],
      adParameters: null,
      mediaExtras: NO_MEDIA_EXTRAS,
      companions: companionsOf(inline),
      ...universalAdIdsOf(creative),
      nonLinear: { width: mediaSize(n.attrs.width), height: mediaSize(n.attrs.height), resource },
    };
  }
  return emptyAnswer(VAST_ERRORS.nonLinearResource, 'no_nonlinear_resource', errorUrlsOf(inline));
}

/**
 * What of a demand's inline ad goes into the document we answer (a VAST tag's or a bid's): its linear
 * ad (media, duration, skip offset, icons, AdParameters), click-through and companions, and its
 * trackers before `ours`. The caller names the ad (ids, system, title, price).
 */
export function demandAdParts(
  ad: DemandInline,
  ours: Trackers,
): Pick<InlineAd, 'clickThrough' | 'linear' | 'nonLinear' | 'companions' | 'trackers' | 'categories'> &
  Partial<Pick<InlineAd, 'universalAdId' | 'universalAdIdRegistry' | 'moreUniversalAdIds' | 'expiresS'>> {
  return {
    // the creative's own Universal Ad ID, when the demand gave one (else the caller's)
    ...(ad.universalAdId
      ? { universalAdId: ad.universalAdId.id, universalAdIdRegistry: ad.universalAdId.registry }
      : {}),
    ...(ad.moreUniversalAdIds ? { moreUniversalAdIds: ad.moreUniversalAdIds } : {}),
    // the demand's own expiry when it is sooner than the caller's (our token's life): never promise the player longer
    ...(ad.expiresS !== undefined ? { expiresS: Math.min(ad.expiresS, AD_EXPIRES_S) } : {}),
    categories: ad.categories,
    clickThrough: ad.clickThrough,
    // (an ad read for a display slot: its NonLinear, as our own display creatives are written)
    linear: ad.nonLinear
      ? null
      : {
          duration: ad.duration || 1,
          mediaFiles: ad.mediaFiles,
          skipOffset: ad.skipOffset,
          icons: ad.icons,
          extras: ad.mediaExtras,
          ...(ad.adParameters ? { adParameters: ad.adParameters } : {}),
        },
    nonLinear: ad.nonLinear ?? null,
    companions: ad.companions,
    trackers: mergeTrackers(ad.trackers, ours),
  };
}

/**
 * The inline ad with the creative its wrappers add (`wrappers` in the order followed). All of a
 * chain's creative is one concept, to be shown whole, but where two conflict the player favours the
 * one closest to the inline (VAST 4.x, "Wrapper creative conflicts"): so an icon of a program the ad
 * (or a wrapper nearer to it) already shows is dropped, and companions come from the inline ad, or
 * else from the wrapper nearest to it that has any (two sets would compete for the player's slots).
 */
export function wrapperCreative(
  inline: DemandInline,
  wrappers: readonly DemandWrapper[],
): Pick<DemandInline, 'icons' | 'companions'> {
  if (!wrappers.length) return inline;
  const icons = [...inline.icons];
  const programs = new Set(icons.map((i) => i.program.toLowerCase()));
  let companions = inline.companions;
  for (let at = wrappers.length - 1; at >= 0; at--) {
    const w = wrappers[at]!;
    for (const icon of w.icons) {
      const program = icon.program.toLowerCase();
      if (programs.has(program)) continue;
      programs.add(program);
      icons.push(icon);
    }
    if (!companions.list.length && w.companions.list.length) companions = w.companions;
  }
  return { icons, companions };
}

/** Trackers of a wrapper chain and its inline, in the order the player would have fired them. */
export function mergeTrackers(...all: Trackers[]): Trackers {
  const merged: Trackers = {
    impression: all.flatMap((t) => t.impression),
    error: all.flatMap((t) => t.error),
    events: all.flatMap((t) => t.events),
    clickTracking: all.flatMap((t) => t.clickTracking),
  };
  const viewable = all.map((t) => t.viewable).filter((v): v is ViewableTrackers => v !== undefined);
  if (viewable.length)
    merged.viewable = {
      viewable: viewable.flatMap((v) => v.viewable),
      notViewable: viewable.flatMap((v) => v.notViewable),
      undetermined: viewable.flatMap((v) => v.undetermined),
    };
  // (a wrapper repeating its inline's measurement runs it once)
  const verifications = distinctVerifications(all.flatMap((t) => t.verifications ?? []));
  if (verifications.length) merged.verifications = verifications;
  return merged;
}

/**
 * A demand's <Advertiser> as an OpenRTB `adomain` entry: VAST recommends the advertiser's domain
 * there, and a name that is one (a URL's host counts; `www.` dropped) is taken; any other name is not
 * a domain a block list could match, and gives none.
 */
function advertiserDomain(advertiser: string): string {
  let host = advertiser.trim().toLowerCase();
  if (!host) return '';
  host = host
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#:].*$/, '')
    .replace(/^www\./, '');
  return /^(?=.{4,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(host) ? host : '';
}

/** The ad's advertiser as OpenRTB `adomain` (none when its <Advertiser> is not a domain). */
export function adomainOf(ad: DemandInline): string[] {
  const domain = advertiserDomain(ad.advertiser);
  return domain ? [domain] : [];
}

/** The IAB Content Taxonomy 1.0 codes among an ad's categories (what OpenRTB `cat` carries by default). */
export function iabCodesOf(ad: DemandInline): string[] {
  const out: string[] = [];
  for (const c of ad.categories)
    for (const code of c.code.split(','))
      if (/^IAB\d{1,2}(-\d{1,2})?$/i.test(code.trim()) && out.length < 10) out.push(code.trim().toUpperCase());
  return out;
}
