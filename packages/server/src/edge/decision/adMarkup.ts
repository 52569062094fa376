import { MTYPE } from '@adplane/shared';
import { type AdOutcome } from './adDecision.js';
import { ortbBannerHtml, ortbLabel } from '../ortb/ortbMarkup.js';
import { type SnapCreative } from '../snapshot/types.js';
import { jsonText, winnerDocument, winnerDocumentJson, withImpressionPixels } from './adResponse.js';
import { adomainOf, iabCodesOf } from '../vast/vastAnswer.js';
import { xmlEscape } from '../vast/xml.js';

/**
 * The ad markup of a filled decision, for the entry points that answer bids (OpenRTB `adm`, the
 * Prebid Server auction): a VAST document for video, HTML for a banner, each with our tracking
 * (the banner's impression pixel and click redirect go through /ev like the VAST's). What the
 * winner was: one of our campaigns' creatives, a VAST demand tag's answer, or a programmatic bid.
 */
export interface AdMarkupOut {
  adm: string;
  /** OpenRTB markup type: 1 banner, 2 video. */
  mtype: 1 | 2;
  w: number;
  h: number;
  adomain: readonly string[];
  cat: readonly string[];
  /** The creative id the demand knows it by. */
  crid: string;
  /** A video ad's duration in whole seconds (OpenRTB 2.6 `bid.dur`), 0 when unknown or a banner. */
  dur: number;
  /** A video ad that is itself skippable (a creative's skipAfter, a demand's skip offset): OpenRTB creative attribute 16. */
  skippable: boolean;
}

const ev = (origin: string, e: string, token: string) => `${origin}/ev?e=${e}&t=${token}`;

/** A duration as `bid.dur` states it: whole seconds, 0 when unknown. */
const seconds = (s: number): number => (Number.isFinite(s) && s > 0 ? Math.round(s) : 0);

/** A banner as HTML: the image (or the creative's own HTML) in a click-through link, and our impression pixel. */
function bannerHtml(creative: SnapCreative, origin: string, token: string): string {
  const pixel = `<img src="${xmlEscape(ev(origin, 'impression', token))}" width="1" height="1" style="position:absolute;left:-9999px" alt="">`;
  const size = `width="${creative.width}" height="${creative.height}"`;
  const body =
    creative.displayType === 'html'
      ? creative.html
      : `<img src="${xmlEscape(creative.imageUrl)}" ${size} alt="" style="border:0;display:block">`;
  const linked =
    creative.clickUrl && creative.displayType !== 'html'
      ? `<a href="${xmlEscape(ev(origin, 'click', token))}" target="_blank" rel="noopener">${body}</a>`
      : body;
  return `${linked}${pixel}`;
}

/** Post-bid pixels (edge/postbid/) in banner HTML: hidden 1x1 images beside our impression pixel. */
export function pixelImages(urls: readonly string[]): string {
  return urls
    .map((u) => `<img src="${xmlEscape(u)}" width="1" height="1" style="position:absolute;left:-9999px" alt="">`)
    .join('');
}

/** How a markup is written: as it is, or as the contents of a JSON string (a bid response's `adm`). */
interface MarkupForm {
  vast(outcome: Filled, origin: string): string;
  text(markup: string): string;
}

type Filled = AdOutcome & {
  winner: NonNullable<AdOutcome['winner']>;
  channel: NonNullable<AdOutcome['channel']>;
  token: string;
  decision: NonNullable<AdOutcome['decision']>;
};

const AS_IS: MarkupForm = {
  vast: (o, origin) =>
    withImpressionPixels(winnerDocument(o.channel, o.winner, origin, o.token, o.decision.id), o.postbidUrls),
  text: (markup) => markup,
};

const AS_JSON: MarkupForm = {
  vast: (o, origin) =>
    withImpressionPixels(
      winnerDocumentJson(o.channel, o.winner, origin, o.token, o.decision.id),
      o.postbidUrls,
      jsonText,
    ),
  text: jsonText,
};

export function adMarkupOf(outcome: AdOutcome, origin: string): AdMarkupOut | null {
  return markupIn(AS_IS, outcome, origin);
}

/**
 * adMarkupOf with the markup already the contents of a JSON string (`admJson`: jsonText of `adm`), for
 * an answer that splices it into its JSON: our campaigns' VAST comes from a pre-escaped template.
 */
export function adMarkupJsonOf(
  outcome: AdOutcome,
  origin: string,
): (Omit<AdMarkupOut, 'adm'> & { admJson: string }) | null {
  const o = markupIn(AS_JSON, outcome, origin);
  // one literal (an object rest and spread cost more than the rest of the bid's fields)
  return (
    o && {
      admJson: o.adm,
      mtype: o.mtype,
      w: o.w,
      h: o.h,
      adomain: o.adomain,
      cat: o.cat,
      crid: o.crid,
      dur: o.dur,
      skippable: o.skippable,
    }
  );
}

function markupIn(form: MarkupForm, outcome: AdOutcome, origin: string): AdMarkupOut | null {
  const { winner: w, snapshot, channel, token, decision, postbidUrls } = outcome;
  if (!w || !snapshot || !channel || !token || !decision) return null;
  const filled = outcome as Filled;
  const markup = w.bid.markup;
  // each answer one literal of the same shape (no spread of a shared base: a bid request pays for each)
  if (markup.kind === 'campaign') {
    const c = markup.creative;
    if (c.format === 'display')
      return {
        adm: form.text(bannerHtml(c, origin, token) + pixelImages(postbidUrls)),
        mtype: MTYPE.banner,
        w: c.width,
        h: c.height,
        adomain: c.adomain,
        cat: c.iabCategories,
        crid: String(c.id),
        dur: 0,
        skippable: false,
      };
    const first = c.mediaFiles[0];
    return {
      adm: form.vast(filled, origin),
      mtype: MTYPE.video,
      w: first?.width ?? 0,
      h: first?.height ?? 0,
      adomain: c.adomain,
      cat: c.iabCategories,
      crid: String(c.id),
      dur: seconds(c.duration || (first?.duration ?? 0)),
      skippable: !!c.skipAfter,
    };
  }
  if (markup.kind === 'ortb') {
    const crid = markup.crid || ortbLabel(w.bid).id;
    if (markup.media === 'banner')
      return {
        adm: form.text(ortbBannerHtml(markup, ev(origin, 'impression', token)) + pixelImages(postbidUrls)),
        mtype: MTYPE.banner,
        w: markup.w,
        h: markup.h,
        adomain: markup.adomain,
        cat: markup.cat,
        crid,
        dur: 0,
        skippable: false,
      };
    const inline = markup.vast?.kind === 'inline' ? markup.vast : null;
    return {
      adm: form.vast(filled, origin),
      mtype: MTYPE.video,
      w: markup.w,
      h: markup.h,
      adomain: markup.adomain,
      cat: markup.cat,
      crid,
      dur: seconds(inline?.duration ?? 0),
      skippable: !!inline?.skipOffset,
    };
  }
  return {
    adm: form.vast(filled, origin),
    mtype: MTYPE.video,
    w: 0,
    h: 0,
    adomain: adomainOf(markup.ad),
    cat: iabCodesOf(markup.ad),
    crid: `tag${w.bid.tagId}`,
    dur: seconds(markup.ad.duration),
    skippable: !!markup.ad.skipOffset,
  };
}
