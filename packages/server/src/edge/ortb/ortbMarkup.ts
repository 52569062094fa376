import {
  type DemandAnswer,
  type DemandInline,
  type DemandWrapper,
  demandAdParts,
  mergeTrackers,
  readVastAnswer,
} from '../vast/vastAnswer.js';
import { isVast4, type VastVersion } from '../vast/vastVersion.js';
import { type MediaExtras } from '../vast/mediaExtras.js';
import { type VastResource } from '../vast/resources.js';
import { AD_EXPIRES_S } from '../vast/adLifetime.js';
import {
  type AdCategory,
  IAB_CONTENT_TAXONOMY,
  renderEmpty,
  renderInline,
  renderWrapper,
  type TrackingEvent,
  type Trackers,
  UNKNOWN_UNIVERSAL_AD_ID,
} from '../vast/vastWriter.js';
import { xmlEscape } from '../vast/xml.js';
import { fillAuctionMacros, type MacroValues } from './auctionMacros.js';
import { type DemandPricing } from './demandPricing.js';

/**
 * What a programmatic bid serves when it wins (AdMarkup kind 'ortb'): its markup, or the win notice
 * URL that serves it, with what the auction macros need. Video: a VAST `adm` is re-rendered in the
 * channel's version with the demand's trackers and ours (as a VAST tag's answer is); a VAST wrapper
 * `adm`, or markup served on the win notice, becomes our Wrapper whose VASTAdTagURI is their URL
 * (the player's fetch of the nurl is then the win notice: no call of ours delays the answer, and the
 * markup comes fresh to the player that plays it, from any process). Banner: the `adm` HTML, or an
 * iframe of the nurl (as Prebid.js renders `adUrl`), with our impression pixel.
 */
export interface OrtbMarkup {
  kind: 'ortb';
  media: 'video' | 'banner';
  adm: string;
  /** A video `adm` as read when the bid came in (bidResponseReader.ts); absent: read when rendered. */
  vast?: DemandInline | DemandWrapper | null;
  nurl: string;
  burl: string;
  lurl: string;
  adomain: readonly string[];
  cat: readonly string[];
  crid: string;
  adid: string;
  dealId: string;
  seat: string;
  w: number;
  h: number;
  mtype: 1 | 2;
  /** Our request's id, the impression's id and the bid's id (`${AUCTION_ID}`, `_IMP_ID`, `_BID_ID`). */
  requestId: string;
  impId: string;
  bidId: string;
  /** The demand's own bid, micro-dollars CPM, and how our price derives from it. */
  bidCpm: number;
  pricing: DemandPricing;
  /** The currency the demand bid in (its notices' prices are in it), and what one unit is worth in USD; absent: USD. */
  currency?: string;
  usdPerUnit?: number;
  /** Set when the auction is decided (auction/notices.ts): the win's macro values, and the billing attachment of our impression URL. */
  settled?: { macros: MacroValues; billingQuery: string };
  /** The winner's VAST error trackers our one <Error> forwards in VAST 2.0 and 3.0 (demand/errorPings.ts errorForwardQuery). */
  errorForward?: string;
}

/** A label for the ad's ids in our VAST (`rtb12`, `ax3`). */
export interface OrtbLabel {
  id: string;
  adSystem: string;
}

export function ortbLabel(bid: { tagId: number; adexchangeId?: number; marketplace?: string }): OrtbLabel {
  return { id: bid.adexchangeId ? `ax${bid.adexchangeId}` : `tag${bid.tagId}`, adSystem: bid.marketplace || 'adplane' };
}

function macrosOf(m: OrtbMarkup): MacroValues {
  return m.settled?.macros ?? {};
}

/** Our trackers with the impression URL carrying the bid's billing notice (fired by /ev on the counted impression). */
function withBilling(ours: Trackers, m: OrtbMarkup): Trackers {
  const billing = m.settled?.billingQuery ?? '';
  return {
    ...ours,
    impression: billing ? ours.impression.map((u, i) => (i === 0 ? u + billing : u)) : ours.impression,
  };
}

/** A bid's `cat` as VAST categories (OpenRTB's default taxonomy: the IAB's content categories). */
const bidCategories = (m: OrtbMarkup): AdCategory[] => m.cat.map((code) => ({ authority: IAB_CONTENT_TAXONOMY, code }));

/** The VAST document of a winning programmatic bid, in the channel's version. */
export function ortbVastDocument(
  version: VastVersion,
  m: OrtbMarkup,
  label: OrtbLabel,
  ours: Trackers,
  servingId: string,
  clearingCpm: number,
): string {
  const macros = macrosOf(m);
  const trackers = withBilling(ours, m);
  if (m.media === 'banner') {
    const html = bannerBody(m, macros);
    return renderInline(version, {
      id: label.id,
      adSystem: label.adSystem,
      title: label.adSystem,
      advertiser: m.adomain[0] ?? '',
      categories: bidCategories(m),
      servingId,
      pricingCpm: clearingCpm,
      creativeId: m.crid || label.id,
      ...UNKNOWN_UNIVERSAL_AD_ID,
      expiresS: AD_EXPIRES_S,
      clickThrough: '',
      linear: null,
      nonLinear: { width: m.w || 1, height: m.h || 1, resource: { type: 'html', html } },
      trackers,
    });
  }
  if (!m.adm)
    return renderWrapper(version, {
      id: label.id,
      adSystem: 'adplane',
      servingId,
      tagUri: fillAuctionMacros(m.nurl, macros),
      trackers,
    });
  let answer = vastOf(m, macros);
  // VAST 2.0 and 3.0 hold one <Error>: ours, carrying the bid's for /ev to forward (demand/errorPings.ts)
  if (!isVast4(version) && m.errorForward && answer.kind !== 'empty') {
    trackers.error = [trackers.error[0]! + m.errorForward];
    answer = { ...answer, trackers: { ...answer.trackers, error: [] } };
  }
  if (answer.kind === 'wrapper') {
    return renderWrapper(version, {
      id: label.id,
      adSystem: 'adplane',
      servingId,
      tagUri: answer.tagUri,
      trackers: mergeTrackers(answer.trackers, trackers),
      followAdditionalWrappers: answer.followAdditionalWrappers,
      icons: answer.icons,
      companions: answer.companions,
    });
  }
  // read once already when the bid came in; macros filled in cannot make it unreadable unless they break the XML
  if (answer.kind === 'empty') return renderEmpty(version, trackers.error);
  return renderInline(version, {
    id: label.id,
    adSystem: answer.adSystem || label.adSystem,
    title: answer.title,
    advertiser: m.adomain[0] ?? '',
    servingId,
    pricingCpm: clearingCpm,
    creativeId: m.crid || label.id,
    ...UNKNOWN_UNIVERSAL_AD_ID,
    expiresS: AD_EXPIRES_S,
    ...demandAdParts(answer, trackers),
    // the ad's own categories, else the bid's (OpenRTB cat: IAB Content Taxonomy codes)
    categories: answer.categories.length ? answer.categories : bidCategories(m),
  });
}

/**
 * The winner's VAST with the auction macros filled in: the answer read when the bid came in, its
 * text filled (the macros' values are URL-encoded, so filling the text read from the XML is filling
 * the XML), else the markup read now.
 */
function vastOf(m: OrtbMarkup, macros: MacroValues): DemandAnswer {
  if (!m.vast) return readVastAnswer(fillAuctionMacros(m.adm, macros));
  if (!m.adm.includes('${AUCTION_')) return m.vast;
  const fill = (url: string) => fillAuctionMacros(url, macros);
  // a tracker that was a macro alone and has no value is dropped, as the reader drops an empty one
  const urls = (list: readonly string[]) => list.map(fill).filter(Boolean);
  const t = m.vast.trackers;
  const events = t.events
    .map(([event, url, ...offset]): TrackingEvent => [event, fill(url), ...offset])
    .filter(([, url]) => url);
  const trackers: Trackers = {
    impression: urls(t.impression),
    error: urls(t.error),
    events,
    clickTracking: urls(t.clickTracking),
  };
  if (t.viewable)
    trackers.viewable = {
      viewable: urls(t.viewable.viewable),
      notViewable: urls(t.viewable.notViewable),
      undetermined: urls(t.viewable.undetermined),
    };
  if (t.verifications) {
    trackers.verifications = t.verifications.map((v) => ({
      ...v,
      javaScript: v.javaScript.map((r) => ({ ...r, url: fill(r.url) })),
      executable: v.executable.map((r) => ({ ...r, url: fill(r.url) })),
      tracking: v.tracking.map(([e, u]): [string, string] => [e, fill(u)]),
    }));
  }
  const resource = (r: VastResource): VastResource =>
    r.type === 'html' ? { ...r, html: fill(r.html) } : { ...r, url: fill(r.url) };
  const shows = (r: VastResource) => (r.type === 'html' ? r.html : r.url);
  const icons = m.vast.icons
    .map((i) => ({
      ...i,
      resource: resource(i.resource),
      clickThrough: fill(i.clickThrough),
      clickTracking: urls(i.clickTracking),
      viewTracking: urls(i.viewTracking),
    }))
    .filter((i) => shows(i.resource));
  const companionList = m.vast.companions.list
    .map((c) => ({
      ...c,
      resource: resource(c.resource),
      clickThrough: fill(c.clickThrough),
      clickTracking: c.clickTracking.map(([id, u]): [string, string] => [id, fill(u)]).filter(([, u]) => u),
      creativeView: urls(c.creativeView),
      adParameters: fill(c.adParameters),
    }))
    .filter((c) => shows(c.resource));
  const companions = { ...m.vast.companions, list: companionList };
  if (m.vast.kind === 'wrapper') return { ...m.vast, tagUri: fill(m.vast.tagUri), trackers, icons, companions };
  const params = m.vast.adParameters && fill(m.vast.adParameters.text);
  const adParameters = params ? { ...m.vast.adParameters!, text: params } : null;
  const x = m.vast.mediaExtras;
  const mediaExtras: MediaExtras = {
    closedCaptions: x.closedCaptions.map((c) => ({ ...c, url: fill(c.url) })),
    mezzanine: x.mezzanine.map((z) => ({ ...z, url: fill(z.url) })),
    interactive: x.interactive.map((i) => ({ ...i, url: fill(i.url) })),
  };
  const categories = m.vast.categories.map((c) => ({ authority: fill(c.authority), code: fill(c.code) }));
  return {
    ...m.vast,
    adSystem: fill(m.vast.adSystem),
    title: fill(m.vast.title),
    advertiser: fill(m.vast.advertiser),
    categories,
    trackers,
    clickThrough: fill(m.vast.clickThrough),
    mediaFiles: m.vast.mediaFiles.map((f) => ({ ...f, url: fill(f.url) })),
    icons,
    adParameters,
    companions,
    mediaExtras,
  };
}

function bannerBody(m: OrtbMarkup, macros: MacroValues): string {
  if (m.adm) return fillAuctionMacros(m.adm, macros);
  const size = `width="${m.w || 300}" height="${m.h || 250}"`;
  return `<iframe src="${xmlEscape(fillAuctionMacros(m.nurl, macros))}" ${size} frameborder="0" scrolling="no" marginwidth="0" marginheight="0" style="border:0"></iframe>`;
}

/** A winning banner bid as HTML: its markup and our impression pixel (with the billing attachment). */
export function ortbBannerHtml(m: OrtbMarkup, impressionUrl: string): string {
  const url = impressionUrl + (m.settled?.billingQuery ?? '');
  const pixel = `<img src="${xmlEscape(url)}" width="1" height="1" style="position:absolute;left:-9999px" alt="">`;
  return `${bannerBody(m, macrosOf(m))}${pixel}`;
}
