import { resourceXml, type VastResource } from './resources.js';
import { type VastVersion } from './vastVersion.js';
import { safeUrl as url, xmlAttr, xmlEscape as x } from './xml.js';

/**
 * A linear ad's icon (VAST 3.0 and later): most often the AdChoices mark that privacy rules require
 * on a behaviourally targeted ad, with its click-through to the buyer's privacy page. A demand's
 * icons are carried into the document we answer, in the shape of the channel's version.
 */
export interface VastIcon {
  program: string;
  width: number;
  height: number;
  /** left, right or pixels; '' when the demand gave none. */
  xPosition: string;
  /** top, bottom or pixels; '' when the demand gave none. */
  yPosition: string;
  /** When it shows and for how long (HH:MM:SS(.mmm)); '' when not stated. */
  offset: string;
  duration: string;
  apiFramework: string;
  resource: VastResource;
  clickThrough: string;
  clickTracking: string[];
  viewTracking: string[];
}

/** The XSDs' patterns for a position and for xs:time. */
export const ICON_X = /^([0-9]+|left|right)$/;
export const ICON_Y = /^([0-9]+|top|bottom)$/;
export const XS_TIME = /^\d{2}:[0-5]\d:[0-5]\d(\.\d+)?$/;

function icon(version: VastVersion, i: VastIcon): string {
  // 3.0 requires the position (AdChoices sits top right unless told otherwise); 4.x makes it optional
  const v3 = version === '3.0';
  const attrs =
    ` program="${x(i.program)}" width="${i.width}" height="${i.height}"` +
    xmlAttr('xPosition', i.xPosition || (v3 ? 'right' : '')) +
    xmlAttr('yPosition', i.yPosition || (v3 ? 'top' : '')) +
    xmlAttr('offset', i.offset) +
    xmlAttr('duration', i.duration) +
    xmlAttr('apiFramework', i.apiFramework);
  const through = i.clickThrough ? `<IconClickThrough>${url(i.clickThrough)}</IconClickThrough>` : '';
  const tracking = i.clickTracking.map((u) => `<IconClickTracking>${url(u)}</IconClickTracking>`).join('');
  // 3.0 lists the click trackers before the click-through; 4.x after
  const clicks = through || tracking ? `<IconClicks>${v3 ? tracking + through : through + tracking}</IconClicks>` : '';
  const views = i.viewTracking.map((u) => `<IconViewTracking>${url(u)}</IconViewTracking>`).join('');
  return `<Icon${attrs}>${resourceXml(i.resource)}${clicks}${views}</Icon>`;
}

/** A linear ad's Icons element in the version's shape: none in 2.0, one icon in 4.0 and 4.1 (their XSDs allow one). */
export function iconsXml(version: VastVersion, icons: readonly VastIcon[] | undefined): string {
  if (!icons?.length || version === '2.0') return '';
  const kept = version === '4.0' || version === '4.1' ? icons.slice(0, 1) : icons;
  return `<Icons>${kept.map((i) => icon(version, i)).join('')}</Icons>`;
}
