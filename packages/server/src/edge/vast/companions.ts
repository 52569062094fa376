import { resourceXml, type VastResource } from './resources.js';
import { isVast4, type VastVersion } from './vastVersion.js';
import { cdata, safeUrl as url, xmlAttr, xmlEscape as x } from './xml.js';

/**
 * A demand's companion ad: the banner a page shows beside the video while it plays. Carried into
 * the document we answer in the shape of the channel's version, with its own trackers.
 */
export interface VastCompanion {
  width: number;
  height: number;
  id: string;
  apiFramework: string;
  adSlotId: string;
  resource: VastResource;
  altText: string;
  clickThrough: string;
  /** [tracker id, URL]: CompanionClickTracking (VAST 4; 2.0 and 3.0's XSDs have no place for it). */
  clickTracking: [string, string][];
  /** creativeView trackers: fired when the companion shows. */
  creativeView: string[];
  adParameters: string;
}

/** How many of the companions the player must show: all, any or none (3.0 and later). */
export type CompanionsRequired = '' | 'all' | 'any' | 'none';

function companion(version: VastVersion, c: VastCompanion): string {
  // 4.0 spells the slot attribute adSlotID; 2.0 has none
  const slot = version === '2.0' ? '' : xmlAttr(version === '4.0' ? 'adSlotID' : 'adSlotId', c.adSlotId);
  const attrs = `${xmlAttr('id', c.id)} width="${c.width}" height="${c.height}"${xmlAttr('apiFramework', c.apiFramework)}${slot}`;
  const views = c.creativeView.map((u) => `<Tracking event="creativeView">${url(u)}</Tracking>`).join('');
  const tracking = views && `<TrackingEvents>${views}</TrackingEvents>`;
  const through = c.clickThrough ? `<CompanionClickThrough>${url(c.clickThrough)}</CompanionClickThrough>` : '';
  const alt = c.altText ? `<AltText>${x(c.altText)}</AltText>` : '';
  const params = c.adParameters ? `<AdParameters>${cdata(c.adParameters)}</AdParameters>` : '';
  if (!isVast4(version))
    return `<Companion${attrs}>${resourceXml(c.resource)}${tracking}${through}${alt}${params}</Companion>`;
  const clicks = c.clickTracking
    .map(([id, u]) => `<CompanionClickTracking id="${x(id)}">${url(u)}</CompanionClickTracking>`)
    .join('');
  return `<Companion${attrs}>${resourceXml(c.resource)}${params}${alt}${through}${clicks}${tracking}</Companion>`;
}

/** The CompanionAds element of a creative, '' when there are none. */
export function companionAdsXml(
  version: VastVersion,
  companions: readonly VastCompanion[] | undefined,
  required: CompanionsRequired = '',
): string {
  if (!companions?.length) return '';
  const req = required && version !== '2.0' ? ` required="${required}"` : '';
  return `<CompanionAds${req}>${companions.map((c) => companion(version, c)).join('')}</CompanionAds>`;
}
