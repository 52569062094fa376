import { safeUrl as url, xmlAttr, xmlEscape } from './xml.js';
import { type VastVersion } from './vastVersion.js';

/**
 * What a VAST 4 linear ad carries beside its media files, kept when we re-render a demand's ad:
 * - closed captions (<ClosedCaptionFiles>, 4.1+): the files a player shows captions from, which CTV
 *   players must (accessibility rules for television);
 * - mezzanine files (<Mezzanine>, 4.0+): the high-quality source a server-side ad inserter
 *   transcodes into its stream's renditions, without which it cannot stitch the ad;
 * - interactive creative files (<InteractiveCreativeFile>, 4.0+): a SIMID unit's code, run beside the
 *   media by players that can.
 * The 4.0 XSD has one mezzanine, a bare URI, and interactive files without variableDuration; 2.0 and
 * 3.0 have none of them.
 */
export interface MediaExtras {
  closedCaptions: { url: string; type: string; language: string }[];
  mezzanine: {
    url: string;
    delivery: 'progressive' | 'streaming';
    type: string;
    width: number;
    height: number;
    codec: string;
    fileSize: number;
    mediaType: string;
    id: string;
  }[];
  interactive: { url: string; type: string; apiFramework: string; variableDuration: boolean | null }[];
}

export const NO_MEDIA_EXTRAS: MediaExtras = Object.freeze({
  closedCaptions: [],
  mezzanine: [],
  interactive: [],
}) as MediaExtras;

/** <ClosedCaptionFiles>, first in <MediaFiles> (4.1 and 4.2). */
export function closedCaptionsXml(version: VastVersion, extras: MediaExtras | undefined): string {
  if (!extras?.closedCaptions.length || (version !== '4.1' && version !== '4.2')) return '';
  const files = extras.closedCaptions
    .map(
      (c) =>
        `<ClosedCaptionFile${xmlAttr('type', c.type)}${xmlAttr('language', c.language)}>${url(c.url)}</ClosedCaptionFile>`,
    )
    .join('');
  return `<ClosedCaptionFiles>${files}</ClosedCaptionFiles>`;
}

/** <Mezzanine> and <InteractiveCreativeFile>, after the media files (4.x). */
export function mediaTailXml(version: VastVersion, extras: MediaExtras | undefined): string {
  if (!extras || version === '2.0' || version === '3.0') return '';
  const mezzanine =
    version === '4.0'
      ? extras.mezzanine.slice(0, 1).map((m) => `<Mezzanine>${url(m.url)}</Mezzanine>`)
      : extras.mezzanine
          // the 4.1+ XSDs require a mezzanine's type and size: one read bare from a 4.0 answer is left out
          .filter((m) => m.type && m.width > 0 && m.height > 0)
          .map(
            (m) =>
              `<Mezzanine delivery="${m.delivery}" type="${xmlEscape(m.type)}" width="${m.width}" height="${m.height}"${xmlAttr('id', m.id)}${xmlAttr('codec', m.codec)}${m.fileSize > 0 ? ` fileSize="${m.fileSize}"` : ''}${xmlAttr('mediaType', m.mediaType)}>${url(m.url)}</Mezzanine>`,
          );
  const interactive = extras.interactive.map((i) => {
    const variable =
      version !== '4.0' && i.variableDuration !== null ? ` variableDuration="${i.variableDuration}"` : '';
    return `<InteractiveCreativeFile${xmlAttr('type', i.type)}${xmlAttr('apiFramework', i.apiFramework)}${variable}>${url(i.url)}</InteractiveCreativeFile>`;
  });
  return mezzanine.join('') + interactive.join('');
}
