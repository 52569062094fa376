import { childrenNamed, parseXmlTreeAt, textOf, type XmlSpan } from '../../vast/xmlTree.js';

/**
 * A VAST document's impression trackers, and Prebid Server's impression event added to them
 * (endpoints/events/vtrack.go ModifyVastXmlString, exchange/events.go modifyBidVAST). Prebid Server
 * looks for them by text: the first `</Impression>` anywhere, in a comment or an Extension too. Here
 * the XML reader finds them (xmlTree, which reads demand answers): the `<Impression>`s of the ads
 * (VAST > Ad > InLine | Wrapper), never one in a comment or a CDATA section, whatever their
 * attributes, blanks, entities or namespace prefix. The event still goes in as text, as Prebid
 * Server writes it: the document is kept byte for byte but for it.
 */

/** An `<Impression>` of a VAST ad. */
export interface VastImpression {
  /** Its ad's place among the document's `<Ad>`s (0: the first). */
  ad: number;
  /** Its URL as a player reads it (text or CDATA, entities decoded, trimmed); '' when it has none. */
  url: string;
  at: XmlSpan;
}

/** The impressions of every ad, in document order; null for what is not a well-formed VAST document. */
export function vastImpressions(vast: string): VastImpression[] | null {
  const root = parseXmlTreeAt(vast);
  if (root?.name !== 'VAST') return null;
  const impressions: VastImpression[] = [];
  childrenNamed(root, 'Ad').forEach((ad, i) => {
    for (const body of ad.children) {
      if (body.name !== 'InLine' && body.name !== 'Wrapper') continue;
      for (const impression of childrenNamed(body, 'Impression'))
        impressions.push({ ad: i, url: textOf(impression), at: impression.at! });
    }
  });
  return impressions;
}

/** An element's name as its start tag writes it (with its prefix, when it has one). */
const TAG_NAME = /[^\s/>]+/y;

/**
 * `vast` with `url` as one more impression tracker of the ad whose first `<Impression>` is `first`,
 * where Prebid Server puts it: in that Impression when it is empty, else as a new one right after it
 * (in each VAST version's XSD, InLine and Wrapper, Impression repeats: the document stays valid),
 * written with the same prefix. The URL goes in CDATA as there; it is URL-encoded, so it holds no `]]>`.
 */
export function withImpression(vast: string, first: VastImpression, url: string): string {
  const cdata = `<![CDATA[${url}]]>`;
  const { at } = first;
  // (a self-closed <Impression/> has no content to write in: the new one goes after it)
  if (!first.url && at.close < at.end) return `${vast.slice(0, at.close)}${cdata}${vast.slice(at.close)}`;
  TAG_NAME.lastIndex = at.start + 1;
  const tag = TAG_NAME.exec(vast)?.[0] ?? 'Impression';
  return `${vast.slice(0, at.end)}<${tag}>${cdata}</${tag}>${vast.slice(at.end)}`;
}

/**
 * `vast` with `url` as an impression tracker of its first ad that has one (withImpression); as it
 * is when no ad has one, or when it is not well-formed VAST.
 */
export function withVastImpression(vast: string, url: string): string {
  const first = vastImpressions(vast)?.[0];
  return first ? withImpression(vast, first, url) : vast;
}
