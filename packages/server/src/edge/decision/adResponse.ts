import { type Winner } from '../auction/runAuction.js';
import { type AdMarkup } from '../demand/demandSource.js';
import { demandAdParts } from '../vast/vastAnswer.js';
import { ortbLabel, ortbVastDocument } from '../ortb/ortbMarkup.js';
import { type SnapCampaign, type SnapChannel, type SnapCreative } from '../snapshot/types.js';
import { isVast4, VAST_VERSIONS, type VastVersion } from '../vast/vastVersion.js';
import { AD_EXPIRES_S } from '../vast/adLifetime.js';
import {
  IAB_CONTENT_TAXONOMY,
  UNKNOWN_UNIVERSAL_AD_ID,
  type InlineAd,
  noTrackers,
  pricingText,
  renderEmpty,
  renderInline,
  renderWrapper,
  type Trackers,
} from '../vast/vastWriter.js';
import { safeUrl, vastDuration } from '../vast/xml.js';

/**
 * The VAST the player receives for a decision. Our creatives' documents are rendered once per
 * campaign, creative and version with placeholders, and each request only splices in its signed
 * token, serving id and price (the hot path concatenates strings, it does not build XML). A demand's answer
 * is re-rendered in the channel's version with the demand's trackers and ours together. The entry
 * points that answer JSON take the document already as JSON string contents (winnerDocumentJson).
 */
const TOKEN = 'ADPLANETOKEN0';
const SERVING = 'ADPLANESERVING0';
const PRICE = 'ADPLANEPRICE0';
const SPLIT = /(ADPLANETOKEN0|ADPLANESERVING0|ADPLANEPRICE0)/;

const VIDEO_EVENTS = ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete'] as const;

/** Our tracking URLs for a token (a placeholder while pre-rendering). */
function ourTrackers(origin: string, token: string, withClick: boolean): Trackers {
  const ev = (e: string) => `${origin}/ev?e=${e}&t=${token}`;
  return {
    impression: [ev('impression')],
    error: [`${origin}/ev?e=error&code=[ERRORCODE]&t=${token}`],
    events: VIDEO_EVENTS.map((e) => [e, ev(e)]),
    clickTracking: withClick ? [ev('click')] : [],
  };
}

type Template = string[];

function compile(xml: string): Template {
  return xml.split(SPLIT);
}

function fill(t: Template, token: string, servingId: string, price: string): string {
  let out = '';
  for (const part of t) out += part === TOKEN ? token : part === SERVING ? servingId : part === PRICE ? price : part;
  return out;
}

/** Text as the contents of a JSON string (what JSON.stringify writes between the quotes). */
export const jsonText = (s: string): string => JSON.stringify(s).slice(1, -1);

/** Values JSON writes as they are: a token, a serving id and a price always are (checked all the same). */
const JSON_PLAIN = /^[\w.~-]*$/;
const asJson = (v: string): string => (JSON_PLAIN.test(v) ? v : jsonText(v));

/**
 * Each template's twin as JSON string contents, its fixed parts escaped once: a bid response
 * carries the document in `adm`, and escaping 2-4 KB of XML (its quotes) on every request cost more
 * than the rest of the answer's JSON.
 */
const jsonTwins = new WeakMap<Template, Template>();

function fillJson(t: Template, token: string, servingId: string, price: string): string {
  let twin = jsonTwins.get(t);
  if (!twin)
    jsonTwins.set(
      t,
      (twin = t.map((part) => (part === TOKEN || part === SERVING || part === PRICE ? part : jsonText(part)))),
    );
  return fill(twin, asJson(token), asJson(servingId), asJson(price));
}

/**
 * Our campaigns' pre-rendered documents, by origin, then campaign and creative (the snapshot's
 * objects: a changed campaign or creative is a new object, and its documents go with the old one),
 * then the VAST version's place in VAST_VERSIONS. No key is built per request.
 */
const templates = new Map<string, WeakMap<SnapCampaign, Map<SnapCreative, (Template | undefined)[]>>>();
/**
 * Documents kept at most (a few KB each): past it, all are dropped and rendered again as requests
 * come, so a book whose every campaign serves keeps tens of MB of them, not hundreds.
 */
const TEMPLATE_LIMIT = 20_000;
let kept = 0;

function campaignTemplate(
  origin: string,
  version: VastVersion,
  campaign: SnapCampaign,
  creative: SnapCreative,
): Template {
  if (kept >= TEMPLATE_LIMIT) {
    templates.clear();
    kept = 0;
  }
  let byCampaign = templates.get(origin);
  if (!byCampaign) templates.set(origin, (byCampaign = new WeakMap()));
  let byCreative = byCampaign.get(campaign);
  if (!byCreative) byCampaign.set(campaign, (byCreative = new Map()));
  let byVersion = byCreative.get(creative);
  if (!byVersion) byCreative.set(creative, (byVersion = []));
  const at = VAST_VERSIONS.indexOf(version);
  let t = byVersion[at];
  if (!t) {
    byVersion[at] = t = compile(campaignDocument(version, origin, campaign.name, campaign.advertiserName, creative));
    kept++;
  }
  return t;
}

function campaignDocument(
  version: VastVersion,
  origin: string,
  campaignName: string,
  advertiser: string,
  creative: SnapCreative,
): string {
  const trackers = ourTrackers(origin, TOKEN, false);
  const click = creative.clickUrl ? `${origin}/ev?e=click&t=${TOKEN}` : '';
  if (creative.format === 'video' && creative.videoSource === 'vast') {
    // the click-through is the third party's: our click URL is a tracker, with or without a clickUrl
    // of ours (/ev answers it without a redirect), so a wrapped creative's clicks are counted too
    return renderWrapper(version, {
      id: `cr${creative.id}`,
      adSystem: 'adplane',
      servingId: SERVING,
      tagUri: creative.vastUrl,
      trackers: { ...trackers, clickTracking: [`${origin}/ev?e=click&t=${TOKEN}`] },
    });
  }
  const ad: InlineAd = {
    id: `cr${creative.id}`,
    adSystem: 'adplane',
    title: creative.name || campaignName,
    advertiser,
    categories: creative.iabCategories.map((code) => ({ authority: IAB_CONTENT_TAXONOMY, code })),
    servingId: SERVING,
    pricingCpm: PRICE,
    creativeId: String(creative.id),
    universalAdId: `adplane-${creative.id}`,
    clickThrough: click,
    linear:
      creative.format === 'video'
        ? {
            duration: creative.duration || 1,
            mediaFiles: creative.mediaFiles,
            skipOffset: creative.skipAfter ? vastDuration(creative.skipAfter) : '',
          }
        : null,
    nonLinear:
      creative.format === 'display'
        ? {
            width: creative.width,
            height: creative.height,
            resource:
              creative.displayType === 'html'
                ? { type: 'html', html: creative.html }
                : { type: 'image', url: creative.imageUrl, mime: imageMime(creative.imageUrl) },
          }
        : null,
    trackers,
    expiresS: AD_EXPIRES_S,
  };
  return renderInline(version, ad);
}

function imageMime(url: string): string {
  const ext = /\.(png|gif|jpe?g|webp|svg)(\?|$)/i.exec(url)?.[1]?.toLowerCase();
  return ext === 'png'
    ? 'image/png'
    : ext === 'gif'
      ? 'image/gif'
      : ext === 'webp'
        ? 'image/webp'
        : ext === 'svg'
          ? 'image/svg+xml'
          : 'image/jpeg';
}

export function winnerDocument(
  channel: SnapChannel,
  winner: Winner,
  origin: string,
  token: string,
  servingId: string,
): string {
  const version = channel.vastVersion;
  const markup = winner.bid.markup;
  if (markup.kind === 'campaign')
    return fill(
      campaignTemplate(origin, version, markup.campaign, markup.creative),
      token,
      servingId,
      pricingText(winner.clearingCpm),
    );
  return demandDocument(version, winner, markup, origin, token, servingId);
}

/** winnerDocument as the contents of a JSON string (jsonText of it), from a pre-escaped template for our campaigns. */
export function winnerDocumentJson(
  channel: SnapChannel,
  winner: Winner,
  origin: string,
  token: string,
  servingId: string,
): string {
  const markup = winner.bid.markup;
  if (markup.kind === 'campaign')
    return fillJson(
      campaignTemplate(origin, channel.vastVersion, markup.campaign, markup.creative),
      token,
      servingId,
      pricingText(winner.clearingCpm),
    );
  return jsonText(demandDocument(channel.vastVersion, winner, markup, origin, token, servingId));
}

/** A demand's answer (a programmatic bid's VAST, a VAST tag's) in the channel's version, with our trackers beside its own. */
function demandDocument(
  version: VastVersion,
  winner: Winner,
  markup: Exclude<AdMarkup, { kind: 'campaign' }>,
  origin: string,
  token: string,
  servingId: string,
): string {
  const ours = ourTrackers(origin, token, true);
  if (markup.kind === 'ortb')
    return ortbVastDocument(version, markup, ortbLabel(winner.bid), ours, servingId, winner.clearingCpm);
  let ad = markup.ad;
  // VAST 2.0 and 3.0 hold one <Error>: ours, carrying the demand's for /ev to forward (errorPings.ts errorForwardQuery)
  if (!isVast4(version) && markup.errorForward) {
    ours.error = [ours.error[0]! + markup.errorForward];
    ad = { ...ad, trackers: { ...ad.trackers, error: [] } };
  }
  return renderInline(version, {
    id: `tag${winner.bid.tagId}`,
    adSystem: markup.ad.adSystem,
    title: markup.ad.title,
    advertiser: markup.ad.advertiser,
    servingId,
    pricingCpm: winner.clearingCpm,
    creativeId: `tag${winner.bid.tagId}`,
    // unless the demand's ad names its own (demandAdParts)
    ...UNKNOWN_UNIVERSAL_AD_ID,
    expiresS: AD_EXPIRES_S,
    // the demand's trackers first (its viewability and verification vendors with them), then ours
    ...demandAdParts(ad, ours),
  });
}

/**
 * Post-bid pixels (edge/postbid/) as extra <Impression> elements of a filled answer, right after
 * its first one: every VAST version's XSD lets Impression repeat there, inline and wrapper alike, and
 * a player fires them all when the ad starts, with ours. Pre-rendered documents stay cached: the
 * per-request URLs are spliced in like the token.
 */
export function withImpressionPixels(
  xml: string,
  urls: readonly string[],
  encode: (xml: string) => string = same,
): string {
  if (!urls.length) return xml;
  // ('</Impression>' reads the same in JSON string contents: JSON escapes none of its characters)
  const at = xml.indexOf('</Impression>');
  if (at < 0) return xml;
  const end = at + '</Impression>'.length;
  return (
    xml.slice(0, end) + encode(urls.map((u) => `<Impression>${safeUrl(u)}</Impression>`).join('')) + xml.slice(end)
  );
}

const same = (s: string): string => s;

const emptyTemplates = new Map<string, Template>();

/** No fill: an empty document in the channel's version, with our error URL where the version allows (rendered once per version). */
export function emptyDocument(version: VastVersion, origin: string, token: string | null): string {
  if (!token) return renderEmpty(version, noTrackers().error);
  const key = `${version}|${origin}`;
  let t = emptyTemplates.get(key);
  if (!t)
    emptyTemplates.set(key, (t = compile(renderEmpty(version, [`${origin}/ev?e=error&code=[ERRORCODE]&t=${TOKEN}`]))));
  return fill(t, token, '', '');
}
