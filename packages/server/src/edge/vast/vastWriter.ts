import { cdata, vastDuration, safeUrl as url, xmlAttr, xmlEscape as x } from './xml.js';
import { companionAdsXml, type CompanionsRequired, type VastCompanion } from './companions.js';
import { iconsXml, type VastIcon } from './icons.js';
import { closedCaptionsXml, type MediaExtras, mediaTailXml } from './mediaExtras.js';
import { isVast4, type VastVersion } from './vastVersion.js';

/**
 * VAST documents in the version a channel speaks: inline (our creatives, and demand answers
 * re-rendered with their trackers kept), wrapper (a creative that is a third-party VAST URL) and
 * empty (no fill, with our error tracking where the version allows it). Element order follows each
 * version's XSD sequence (tests validate every shape with xmllint against the IAB schemas).
 */
export interface Trackers {
  impression: string[];
  error: string[];
  /** Linear tracking events: start, firstQuartile, midpoint, thirdQuartile, complete, ... */
  events: TrackingEvent[];
  clickTracking: string[];
  /** A demand's viewability trackers (VAST 4's ViewableImpression). */
  viewable?: ViewableTrackers;
  /** A demand's verification vendors (Open Measurement): their scripts, parameters and trackers. */
  verifications?: Verification[];
}

/** [VAST event name, URL, offset]: the offset (HH:MM:SS(.mmm) or n%) says when a progress event fires. */
export type TrackingEvent = [event: string, url: string, offset?: string];

export interface ViewableTrackers {
  viewable: string[];
  notViewable: string[];
  undetermined: string[];
}

/** One verification vendor of an ad (VAST 4.1's Verification, which Open Measurement reads). */
export interface Verification {
  vendor: string;
  javaScript: { url: string; apiFramework: string; browserOptional: string }[];
  executable: { url: string; apiFramework: string; type: string }[];
  /** [event, URL]: verificationNotExecuted. */
  tracking: [string, string][];
  parameters: string;
}

export const noTrackers = (): Trackers => ({ impression: [], error: [], events: [], clickTracking: [] });

export interface VastMediaFile {
  url: string;
  mime: string;
  width: number;
  height: number;
  bitrate: number;
  /** A demand's media file: the API it runs under (VPAID) and its codec, kept as the demand wrote them. */
  apiFramework?: string;
  codec?: string;
}

/** What a NonLinear shows: an image (our display creatives, a demand's StaticResource), a demand's iframe, or HTML. */
export type NonLinearResource =
  | { type: 'image'; url: string; mime: string }
  | { type: 'iframe'; url: string }
  | { type: 'html'; html: string };

/**
 * An ad content category as VAST 4 names it (<Category authority="...">code</Category>), used by
 * players and publishers for competitive separation: the list's authority and the code in it.
 */
export interface AdCategory {
  authority: string;
  code: string;
}

/** The authority of the IAB Content Taxonomy 1.0 codes (IAB1-1...) our creatives and OpenRTB `cat` use. */
export const IAB_CONTENT_TAXONOMY = 'https://iabtechlab.com/standards/content-taxonomy';

export interface InlineAd {
  id: string;
  adSystem: string;
  title: string;
  advertiser: string;
  /** What the ad is about (VAST 4: <Category>; the earlier versions have no place for it). */
  categories?: readonly AdCategory[];
  /** Per-request serving id (VAST 4.1+ AdServingId). */
  servingId: string;
  /** The price shown to the player in <Pricing> (VAST 3+), micro-dollars CPM; omitted when null; a string goes in as it is (a template's placeholder). */
  pricingCpm: number | string | null;
  creativeId: string;
  universalAdId: string;
  /** The registry of universalAdId (VAST 4): 'adplane' unless said (a demand's creative keeps its own). */
  universalAdIdRegistry?: string;
  /** A demand creative's other Universal Ad IDs, written after the first where VAST allows several (4.2). */
  moreUniversalAdIds?: readonly { registry: string; id: string }[];
  clickThrough: string;
  /**
   * skipOffset: when a demand's ad becomes skippable (HH:MM:SS(.mmm) or n%), '' or absent: not
   * skippable; icons (AdChoices), adParameters (what a VPAID unit reads) and the media's extras
   * (captions, mezzanine, interactive files: mediaExtras.ts) as the demand wrote them.
   */
  linear: {
    duration: number;
    mediaFiles: VastMediaFile[];
    skipOffset?: string;
    icons?: VastIcon[];
    adParameters?: AdParameters;
    extras?: MediaExtras;
  } | null;
  nonLinear: { width: number; height: number; resource: NonLinearResource } | null;
  trackers: Trackers;
  /** A demand's companion banners, and how many the player must show. */
  companions?: { list: VastCompanion[]; required: CompanionsRequired };
  /**
   * For how many seconds after the request the ad may still start (VAST 4.1+ <Expires>): absent, a
   * player or a stitcher that fetches breaks ahead may play it "indefinitely" (the spec's words).
   */
  expiresS?: number;
}

/**
 * The Universal Ad ID of a demand's ad that gave none: a Universal Ad ID names one creative across
 * systems (SSAI stitchers may look up their transcodes by it), so the tag's or exchange's id would
 * name every ad it answers alike; the IAB's default says so instead (VAST 4.x 3.7.1: "unknown").
 */
export const UNKNOWN_UNIVERSAL_AD_ID = { universalAdId: 'unknown', universalAdIdRegistry: 'unknown' } as const;

/** A linear ad's AdParameters: its text, and whether it is XML-encoded (3.0 and later say so). */
export interface AdParameters {
  text: string;
  xmlEncoded: boolean;
}

export interface WrapperAd {
  id: string;
  adSystem: string;
  servingId: string;
  tagUri: string;
  trackers: Trackers;
  /** false: no wrapper may follow the answer at tagUri (VAST 4 writes it; a demand's wrapper may ask it). */
  followAdditionalWrappers?: boolean;
  /** A demand's wrapper: the icons (3.0+) and companions it adds to the ad it points to. */
  icons?: VastIcon[];
  companions?: { list: VastCompanion[]; required: CompanionsRequired };
}

const head = (version: VastVersion) =>
  `<?xml version="1.0" encoding="UTF-8"?><VAST version="${version}"${isVast4(version) ? ' xmlns="http://www.iab.com/VAST"' : ''}>`;

/** VAST 2.0 and 3.0 allow one <Error> per ad; 4.x any number. */
function errors(version: VastVersion, urls: string[]): string {
  const list = isVast4(version) ? urls : urls.slice(0, 1);
  return list.map((u) => `<Error>${url(u)}</Error>`).join('');
}

const impressions = (urls: string[]) => urls.map((u) => `<Impression>${url(u)}</Impression>`).join('');

/** The linear Tracking events each version's XSD enumerates. */
const COMMON_EVENTS = [
  'creativeView',
  'start',
  'firstQuartile',
  'midpoint',
  'thirdQuartile',
  'complete',
  'mute',
  'unmute',
  'pause',
  'resume',
  'rewind',
  'close',
  'acceptInvitation',
];
const VAST4_EVENTS = [
  ...COMMON_EVENTS,
  'skip',
  'progress',
  'playerExpand',
  'playerCollapse',
  'adExpand',
  'adCollapse',
  'minimize',
  'otherAdInteraction',
  'overlayViewDuration',
];
const EVENTS: Record<VastVersion, ReadonlySet<string>> = {
  '2.0': new Set([...COMMON_EVENTS, 'fullscreen', 'expand', 'collapse']),
  '3.0': new Set([
    ...COMMON_EVENTS,
    'fullscreen',
    'expand',
    'collapse',
    'exitFullscreen',
    'skip',
    'progress',
    'closeLinear',
    'acceptInvitationLinear',
  ]),
  // (4.1 dropped 4.0's acceptInvitationLinear and timeSpentViewing)
  '4.0': new Set([...VAST4_EVENTS, 'acceptInvitationLinear', 'timeSpentViewing']),
  '4.1': new Set([...VAST4_EVENTS, 'closeLinear', 'loaded']),
  '4.2': new Set([...VAST4_EVENTS, 'closeLinear', 'loaded', 'interactiveStart']),
};
/** Every Tracking event some version names: what a demand's ad may carry that a version can write. */
export const VAST_EVENTS: ReadonlySet<string> = new Set(Object.values(EVENTS).flatMap((s) => [...s]));
/**
 * An event of one version under its name in another: VAST 4 renamed fullscreen and exitFullscreen
 * (playerExpand, playerCollapse) and expand and collapse (adExpand, adCollapse), 2.0 and 4.0 close a
 * linear ad with close, and 4.1 folds 3.0's acceptInvitationLinear into acceptInvitation.
 */
const RENAMED: Readonly<Record<string, string>> = {
  fullscreen: 'playerExpand',
  exitFullscreen: 'playerCollapse',
  playerExpand: 'fullscreen',
  playerCollapse: 'exitFullscreen',
  expand: 'adExpand',
  collapse: 'adCollapse',
  adExpand: 'expand',
  adCollapse: 'collapse',
  closeLinear: 'close',
  acceptInvitationLinear: 'acceptInvitation',
};

/** The name `event` has in `version`, or null when the version has no such event. */
export function eventIn(version: VastVersion, event: string): string | null {
  const known = EVENTS[version];
  if (known.has(event)) return event;
  const other = RENAMED[event];
  return other !== undefined && known.has(other) ? other : null;
}

/** A time in the video (Linear skipoffset, Tracking offset: 3.0 and later), as the XSDs allow it. */
export const VAST_OFFSET = /^(\d{2}:[0-5]\d:[0-5]\d(\.\d\d\d)?|1?\d?\d(\.?\d)*%)$/;

/**
 * Tracking elements in the version's names, dropping the events it lacks; an offset where the
 * version has one (3.0+) and it is well formed; a progress event without one means nothing, and goes.
 */
function tracking(version: VastVersion, events: readonly TrackingEvent[]): string {
  let out = '';
  for (const [e, u, offset] of events) {
    const name = eventIn(version, e);
    if (!name) continue;
    const at = offset && version !== '2.0' && VAST_OFFSET.test(offset) ? offset : '';
    if (name === 'progress' && !at) continue;
    out += `<Tracking event="${name}"${at ? ` offset="${at}"` : ''}>${url(u)}</Tracking>`;
  }
  return out && `<TrackingEvents>${out}</TrackingEvents>`;
}

/** VAST 4's ViewableImpression (a demand's viewability trackers); earlier versions have no place for them. */
function viewableImpression(version: VastVersion, v: ViewableTrackers | undefined): string {
  if (!v || !isVast4(version)) return '';
  const list = (name: string, urls: string[]) => urls.map((u) => `<${name}>${url(u)}</${name}>`).join('');
  const inner =
    list('Viewable', v.viewable) + list('NotViewable', v.notViewable) + list('ViewUndetermined', v.undetermined);
  return inner && `<ViewableImpression>${inner}</ViewableImpression>`;
}

/** AdVerifications in VAST 4.1's shape (the one Open Measurement reads, in every version). */
function adVerifications(list: readonly Verification[]): string {
  const one = (v: Verification) => {
    const exec = v.executable
      .map(
        (r) =>
          `<ExecutableResource${xmlAttr('apiFramework', r.apiFramework)}${xmlAttr('type', r.type)}>${url(r.url)}</ExecutableResource>`,
      )
      .join('');
    const js = v.javaScript
      .map(
        (r) =>
          `<JavaScriptResource${xmlAttr('apiFramework', r.apiFramework)}${xmlAttr('browserOptional', r.browserOptional)}>${url(r.url)}</JavaScriptResource>`,
      )
      .join('');
    const events = v.tracking.map(([e, u]) => `<Tracking event="${x(e)}">${url(u)}</Tracking>`).join('');
    const params = v.parameters ? `<VerificationParameters>${cdata(v.parameters)}</VerificationParameters>` : '';
    return `<Verification${xmlAttr('vendor', v.vendor)}>${exec}${js}${events && `<TrackingEvents>${events}</TrackingEvents>`}${params}</Verification>`;
  };
  return `<AdVerifications>${list.map(one).join('')}</AdVerifications>`;
}

/**
 * A demand's verification vendors where the version takes them: 4.1 and 4.2 in their own element
 * (`native`), earlier versions in an Extension of type AdVerifications, as Open Measurement asks
 * of VAST before 4.1 (4.0's own element lacks the parameters and trackers the scripts need).
 */
function verificationParts(
  version: VastVersion,
  list: readonly Verification[] | undefined,
): { native: string; extensions: string } {
  if (!list?.length) return { native: '', extensions: '' };
  if (version === '4.1' || version === '4.2') return { native: adVerifications(list), extensions: '' };
  return {
    native: '',
    extensions: `<Extensions><Extension type="AdVerifications">${adVerifications(list)}</Extension></Extensions>`,
  };
}

function videoClicks(version: VastVersion, clickThrough: string, clickTracking: string[], wrapper: boolean): string {
  if (!clickThrough && !clickTracking.length) return '';
  const through = clickThrough && !wrapper ? `<ClickThrough>${url(clickThrough)}</ClickThrough>` : '';
  const trackingUrls = clickTracking.map((u) => `<ClickTracking>${url(u)}</ClickTracking>`).join('');
  if (!through && !trackingUrls) return '';
  // 2.0 and 3.0 put ClickThrough first; 4.x puts ClickTracking first.
  return `<VideoClicks>${isVast4(version) ? trackingUrls + through : through + trackingUrls}</VideoClicks>`;
}

/** A price as <Pricing> states it: USD CPM with four decimals. */
export const pricingText = (cpm: number): string => (cpm / 1_000_000).toFixed(4);

function pricing(version: VastVersion, cpm: number | string | null): string {
  if (cpm === null || version === '2.0') return '';
  return `<Pricing model="cpm" currency="USD">${typeof cpm === 'string' ? cpm : pricingText(cpm)}</Pricing>`;
}

function mediaFiles(version: VastVersion, files: VastMediaFile[], extras: MediaExtras | undefined): string {
  const items = files.map((f) => {
    const delivery = /mpegurl|dash/i.test(f.mime) ? 'streaming' : 'progressive';
    const bitrate = f.bitrate > 0 ? ` bitrate="${f.bitrate}"` : '';
    // (2.0 has no codec attribute)
    const extra =
      xmlAttr('apiFramework', f.apiFramework ?? '') + (version === '2.0' ? '' : xmlAttr('codec', f.codec ?? ''));
    return `<MediaFile delivery="${delivery}" type="${x(f.mime)}" width="${f.width}" height="${f.height}"${bitrate}${extra}>${url(f.url)}</MediaFile>`;
  });
  return `<MediaFiles>${closedCaptionsXml(version, extras)}${items.join('')}${mediaTailXml(version, extras)}</MediaFiles>`;
}

function adParameters(version: VastVersion, p: AdParameters | undefined): string {
  if (!p) return '';
  return `<AdParameters${p.xmlEncoded && version !== '2.0' ? ' xmlEncoded="true"' : ''}>${cdata(p.text)}</AdParameters>`;
}

function linear(version: VastVersion, ad: InlineAd, l: NonNullable<InlineAd['linear']>): string {
  const icons = iconsXml(version, l.icons);
  const params = adParameters(version, l.adParameters);
  const body = isVast4(version)
    ? icons +
      tracking(version, ad.trackers.events) +
      params +
      `<Duration>${vastDuration(l.duration)}</Duration>` +
      mediaFiles(version, l.mediaFiles, l.extras)
    : icons + `<Duration>${vastDuration(l.duration)}</Duration>` + tracking(version, ad.trackers.events) + params;
  const clicks = videoClicks(version, ad.clickThrough, ad.trackers.clickTracking, false);
  // skippable from 3.0 on; a 2.0 player plays the ad through
  const skip =
    l.skipOffset && version !== '2.0' && VAST_OFFSET.test(l.skipOffset) ? ` skipoffset="${l.skipOffset}"` : '';
  return isVast4(version)
    ? `<Linear${skip}>${body}${clicks}</Linear>`
    : `<Linear${skip}>${body}${clicks}${mediaFiles(version, l.mediaFiles, l.extras)}</Linear>`;
}

function nonLinear(version: VastVersion, ad: InlineAd, n: NonNullable<InlineAd['nonLinear']>): string {
  const resource =
    n.resource.type === 'image'
      ? `<StaticResource creativeType="${x(n.resource.mime)}">${url(n.resource.url)}</StaticResource>`
      : n.resource.type === 'iframe'
        ? `<IFrameResource>${url(n.resource.url)}</IFrameResource>`
        : `<HTMLResource>${cdata(n.resource.html)}</HTMLResource>`;
  const through = ad.clickThrough ? `<NonLinearClickThrough>${url(ad.clickThrough)}</NonLinearClickThrough>` : '';
  const clickTracks = ad.trackers.clickTracking
    .map((u) => `<NonLinearClickTracking>${url(u)}</NonLinearClickTracking>`)
    .join('');
  // 3.0 puts NonLinearClickTracking before NonLinearClickThrough; 4.x after; 2.0 has none.
  const clicks = version === '2.0' ? through : version === '3.0' ? clickTracks + through : through + clickTracks;
  // The 4.0 schema gives an inline NonLinear no size attributes; every other version requires them.
  const size = version === '4.0' ? '' : ` width="${n.width}" height="${n.height}"`;
  const item = `<NonLinear${size}>${resource}${clicks}</NonLinear>`;
  return `<NonLinearAds>${tracking(version, ad.trackers.events)}${item}</NonLinearAds>`;
}

function inlineCreative(version: VastVersion, ad: InlineAd): string {
  const body = ad.linear ? linear(version, ad, ad.linear) : ad.nonLinear ? nonLinear(version, ad, ad.nonLinear) : '';
  // a demand's companions are a creative of their own after the ad's, as players expect them (2.0
  // and 3.0 allow nothing else; VAST 4 would also take them beside the linear ad)
  const companions = companionAdsXml(version, ad.companions?.list, ad.companions?.required);
  if (!isVast4(version))
    return `<Creative id="${x(ad.creativeId)}">${body}</Creative>${companions && `<Creative>${companions}</Creative>`}`;
  let ids = universalAdId(version, ad.universalAdIdRegistry || 'adplane', ad.universalAdId);
  if (ad.moreUniversalAdIds && version === '4.2')
    for (const u of ad.moreUniversalAdIds) ids += universalAdId(version, u.registry, u.id);
  const own = `<Creative id="${x(ad.creativeId)}" adId="${x(ad.creativeId)}">${body}${ids}</Creative>`;
  // (a companion has no id of its own in what the demand answered: the IAB's "unknown")
  return companions ? `${own}<Creative>${companions}${universalAdId(version, 'unknown', 'unknown')}</Creative>` : own;
}

/** A VAST 4 creative's UniversalAdId: 4.0 names the id in an attribute, 4.1+ in the text. */
function universalAdId(version: VastVersion, registry: string, id: string): string {
  const idValue = version === '4.0' ? ` idValue="${x(id)}"` : '';
  return `<UniversalAdId idRegistry="${x(registry)}"${idValue}>${x(id)}</UniversalAdId>`;
}

export function renderInline(version: VastVersion, ad: InlineAd): string {
  const system = `<AdSystem>${x(ad.adSystem)}</AdSystem>`;
  const title = `<AdTitle>${x(ad.title)}</AdTitle>`;
  const creatives = `<Creatives>${inlineCreative(version, ad)}</Creatives>`;
  const advertiser = ad.advertiser && version !== '2.0' ? `<Advertiser>${x(ad.advertiser)}</Advertiser>` : '';
  const verify = verificationParts(version, ad.trackers.verifications);
  let inner: string;
  if (isVast4(version)) {
    const serving = version === '4.0' ? '' : `<AdServingId>${x(ad.servingId)}</AdServingId>`;
    const viewable = viewableImpression(version, ad.trackers.viewable);
    const categories = (ad.categories ?? [])
      .map((c) => `<Category authority="${x(c.authority)}">${x(c.code)}</Category>`)
      .join('');
    // (Expires is 4.1's: after Creatives and the Description we do not write)
    const expires =
      version !== '4.0' && ad.expiresS !== undefined && ad.expiresS > 0
        ? `<Expires>${Math.floor(ad.expiresS)}</Expires>`
        : '';
    inner =
      system +
      errors(version, ad.trackers.error) +
      verify.extensions +
      impressions(ad.trackers.impression) +
      pricing(version, ad.pricingCpm) +
      viewable +
      serving +
      title +
      verify.native +
      advertiser +
      categories +
      creatives +
      expires;
  } else if (version === '3.0') {
    inner =
      system +
      title +
      advertiser +
      pricing(version, ad.pricingCpm) +
      errors(version, ad.trackers.error) +
      impressions(ad.trackers.impression) +
      creatives +
      verify.extensions;
  } else {
    inner =
      system +
      title +
      errors(version, ad.trackers.error) +
      impressions(ad.trackers.impression) +
      creatives +
      verify.extensions;
  }
  return `${head(version)}<Ad id="${x(ad.id)}"><InLine>${inner}</InLine></Ad></VAST>`;
}

export function renderWrapper(version: VastVersion, ad: WrapperAd): string {
  const system = `<AdSystem>${x(ad.adSystem)}</AdSystem>`;
  const uri = `<VASTAdTagURI>${url(ad.tagUri)}</VASTAdTagURI>`;
  const clicks = videoClicks(version, '', ad.trackers.clickTracking, true);
  const events = tracking(version, ad.trackers.events);
  const icons = iconsXml(version, ad.icons);
  const linearPart =
    icons || events || clicks ? `<Creative><Linear>${icons}${events}${clicks}</Linear></Creative>` : '';
  // companions in a creative of their own after the linear one, as in an inline ad
  const companions = companionAdsXml(version, ad.companions?.list, ad.companions?.required);
  const companionPart = companions ? `<Creative>${companions}</Creative>` : '';
  const creatives =
    linearPart || companionPart
      ? `<Creatives>${linearPart}${companionPart}</Creatives>`
      : isVast4(version)
        ? ''
        : '<Creatives></Creatives>';
  const verify = verificationParts(version, ad.trackers.verifications);
  const inner = isVast4(version)
    ? system +
      errors(version, ad.trackers.error) +
      verify.extensions +
      impressions(ad.trackers.impression) +
      viewableImpression(version, ad.trackers.viewable) +
      verify.native +
      creatives +
      uri
    : system +
      uri +
      errors(version, ad.trackers.error) +
      impressions(ad.trackers.impression) +
      creatives +
      verify.extensions;
  const follow = ad.followAdditionalWrappers === false && isVast4(version) ? ' followAdditionalWrappers="false"' : '';
  return `${head(version)}<Ad id="${x(ad.id)}"><Wrapper${follow}>${inner}</Wrapper></Ad></VAST>`;
}

/** No ad. VAST 4 carries our error URL at the root (the player calls it with code 303); 2.0 and 3.0 cannot. */
export function renderEmpty(version: VastVersion, errorUrls: string[]): string {
  if (!isVast4(version) || !errorUrls.length) return `${head(version)}</VAST>`;
  return `${head(version)}${errorUrls.map((u) => `<Error>${url(u)}</Error>`).join('')}</VAST>`;
}
