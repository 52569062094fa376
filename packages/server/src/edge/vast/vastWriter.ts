import { cdata, vastDuration, safeUrl as url, xmlEscape as x } from './xml.js';
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
  /** [VAST event name, URL]: start, firstQuartile, midpoint, thirdQuartile, complete, ... */
  events: [string, string][];
  clickTracking: string[];
}

export const noTrackers = (): Trackers => ({ impression: [], error: [], events: [], clickTracking: [] });

export interface VastMediaFile {
  url: string;
  mime: string;
  width: number;
  height: number;
  bitrate: number;
}

export type NonLinearResource = { type: 'image'; url: string; mime: string } | { type: 'html'; html: string };

export interface InlineAd {
  id: string;
  adSystem: string;
  title: string;
  advertiser: string;
  /** Per-request serving id (VAST 4.1+ AdServingId). */
  servingId: string;
  /** The price shown to the player in <Pricing> (VAST 3+), micro-dollars CPM; omitted when null; a string goes in as it is (a template's placeholder). */
  pricingCpm: number | string | null;
  creativeId: string;
  universalAdId: string;
  clickThrough: string;
  linear: { duration: number; mediaFiles: VastMediaFile[] } | null;
  nonLinear: { width: number; height: number; resource: NonLinearResource } | null;
  trackers: Trackers;
}

export interface WrapperAd {
  id: string;
  adSystem: string;
  servingId: string;
  tagUri: string;
  trackers: Trackers;
}

const head = (version: VastVersion) =>
  `<?xml version="1.0" encoding="UTF-8"?><VAST version="${version}"${isVast4(version) ? ' xmlns="http://www.iab.com/VAST"' : ''}>`;

/** VAST 2.0 and 3.0 allow one <Error> per ad; 4.x any number. */
function errors(version: VastVersion, urls: string[]): string {
  const list = isVast4(version) ? urls : urls.slice(0, 1);
  return list.map((u) => `<Error>${url(u)}</Error>`).join('');
}

const impressions = (urls: string[]) => urls.map((u) => `<Impression>${url(u)}</Impression>`).join('');

function tracking(events: [string, string][]): string {
  if (!events.length) return '';
  return `<TrackingEvents>${events.map(([e, u]) => `<Tracking event="${x(e)}">${url(u)}</Tracking>`).join('')}</TrackingEvents>`;
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

function mediaFiles(files: VastMediaFile[]): string {
  const items = files.map((f) => {
    const delivery = /mpegurl|dash/i.test(f.mime) ? 'streaming' : 'progressive';
    const bitrate = f.bitrate > 0 ? ` bitrate="${f.bitrate}"` : '';
    return `<MediaFile delivery="${delivery}" type="${x(f.mime)}" width="${f.width}" height="${f.height}"${bitrate}>${url(f.url)}</MediaFile>`;
  });
  return `<MediaFiles>${items.join('')}</MediaFiles>`;
}

function linear(version: VastVersion, ad: InlineAd, l: NonNullable<InlineAd['linear']>): string {
  const body = isVast4(version)
    ? tracking(ad.trackers.events) + `<Duration>${vastDuration(l.duration)}</Duration>` + mediaFiles(l.mediaFiles)
    : `<Duration>${vastDuration(l.duration)}</Duration>` + tracking(ad.trackers.events);
  const clicks = videoClicks(version, ad.clickThrough, ad.trackers.clickTracking, false);
  return isVast4(version) ? `<Linear>${body}${clicks}</Linear>` : `<Linear>${body}${clicks}${mediaFiles(l.mediaFiles)}</Linear>`;
}

function nonLinear(version: VastVersion, ad: InlineAd, n: NonNullable<InlineAd['nonLinear']>): string {
  const resource =
    n.resource.type === 'image'
      ? `<StaticResource creativeType="${x(n.resource.mime)}">${url(n.resource.url)}</StaticResource>`
      : `<HTMLResource>${cdata(n.resource.html)}</HTMLResource>`;
  const through = ad.clickThrough ? `<NonLinearClickThrough>${url(ad.clickThrough)}</NonLinearClickThrough>` : '';
  const clickTracks = ad.trackers.clickTracking.map((u) => `<NonLinearClickTracking>${url(u)}</NonLinearClickTracking>`).join('');
  // 3.0 puts NonLinearClickTracking before NonLinearClickThrough; 4.x after; 2.0 has none.
  const clicks = version === '2.0' ? through : version === '3.0' ? clickTracks + through : through + clickTracks;
  // The 4.0 schema gives an inline NonLinear no size attributes; every other version requires them.
  const size = version === '4.0' ? '' : ` width="${n.width}" height="${n.height}"`;
  const item = `<NonLinear${size}>${resource}${clicks}</NonLinear>`;
  return `<NonLinearAds>${tracking(ad.trackers.events)}${item}</NonLinearAds>`;
}

function inlineCreative(version: VastVersion, ad: InlineAd): string {
  const body = ad.linear ? linear(version, ad, ad.linear) : ad.nonLinear ? nonLinear(version, ad, ad.nonLinear) : '';
  if (!isVast4(version)) return `<Creative id="${x(ad.creativeId)}">${body}</Creative>`;
  // 4.0 names the id in an attribute, 4.1+ in the text.
  const idValue = version === '4.0' ? ` idValue="${x(ad.universalAdId)}"` : '';
  const uai = `<UniversalAdId idRegistry="adplane"${idValue}>${x(ad.universalAdId)}</UniversalAdId>`;
  return `<Creative id="${x(ad.creativeId)}" adId="${x(ad.creativeId)}">${body}${uai}</Creative>`;
}

export function renderInline(version: VastVersion, ad: InlineAd): string {
  const system = `<AdSystem>${x(ad.adSystem)}</AdSystem>`;
  const title = `<AdTitle>${x(ad.title)}</AdTitle>`;
  const creatives = `<Creatives>${inlineCreative(version, ad)}</Creatives>`;
  const advertiser = ad.advertiser && version !== '2.0' ? `<Advertiser>${x(ad.advertiser)}</Advertiser>` : '';
  let inner: string;
  if (isVast4(version)) {
    const serving = version === '4.0' ? '' : `<AdServingId>${x(ad.servingId)}</AdServingId>`;
    inner = system + errors(version, ad.trackers.error) + impressions(ad.trackers.impression) + pricing(version, ad.pricingCpm) + serving + title + advertiser + creatives;
  } else if (version === '3.0') {
    inner = system + title + advertiser + pricing(version, ad.pricingCpm) + errors(version, ad.trackers.error) + impressions(ad.trackers.impression) + creatives;
  } else {
    inner = system + title + errors(version, ad.trackers.error) + impressions(ad.trackers.impression) + creatives;
  }
  return `${head(version)}<Ad id="${x(ad.id)}"><InLine>${inner}</InLine></Ad></VAST>`;
}

export function renderWrapper(version: VastVersion, ad: WrapperAd): string {
  const system = `<AdSystem>${x(ad.adSystem)}</AdSystem>`;
  const uri = `<VASTAdTagURI>${url(ad.tagUri)}</VASTAdTagURI>`;
  const clicks = videoClicks(version, '', ad.trackers.clickTracking, true);
  const hasLinear = ad.trackers.events.length > 0 || clicks !== '';
  const linearPart = hasLinear ? `<Linear>${tracking(ad.trackers.events)}${clicks}</Linear>` : '';
  const creatives = hasLinear ? `<Creatives><Creative>${linearPart}</Creative></Creatives>` : isVast4(version) ? '' : '<Creatives></Creatives>';
  const inner = isVast4(version)
    ? system + errors(version, ad.trackers.error) + impressions(ad.trackers.impression) + creatives + uri
    : system + uri + errors(version, ad.trackers.error) + impressions(ad.trackers.impression) + creatives;
  return `${head(version)}<Ad id="${x(ad.id)}"><Wrapper>${inner}</Wrapper></Ad></VAST>`;
}

/** No ad. VAST 4 carries our error URL at the root (the player calls it with code 303); 2.0 and 3.0 cannot. */
export function renderEmpty(version: VastVersion, errorUrls: string[]): string {
  if (!isVast4(version) || !errorUrls.length) return `${head(version)}</VAST>`;
  return `${head(version)}${errorUrls.map((u) => `<Error>${url(u)}</Error>`).join('')}</VAST>`;
}
