import { cdata, safeUrl as url, xmlEscape as x } from './xml.js';

/** What an icon or a companion shows: an image (or script) by URL, a page in an iframe, or HTML. */
export type VastResource =
  | { type: 'static'; url: string; creativeType: string }
  | { type: 'iframe'; url: string }
  | { type: 'html'; html: string };

export function resourceXml(r: VastResource): string {
  if (r.type === 'static') return `<StaticResource creativeType="${x(r.creativeType)}">${url(r.url)}</StaticResource>`;
  if (r.type === 'iframe') return `<IFrameResource>${url(r.url)}</IFrameResource>`;
  return `<HTMLResource>${cdata(r.html)}</HTMLResource>`;
}
