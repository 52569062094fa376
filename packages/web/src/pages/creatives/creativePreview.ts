import { type VIDEO_MIMES } from '@adplane/shared';

/**
 * What the creative drawer can show of a creative, decided from the form's values alone (no network):
 * the first media file a browser plays natively, the display image, the HTML in a sandbox, or the
 * third-party VAST URL as a link (the console never fetches third-party VAST: most ad servers refuse
 * cross-origin reads, and the fetch would count as an ad request on their side).
 */
export type VideoMime = (typeof VIDEO_MIMES)[number];

/** Media types an HTML5 <video> element plays in every current browser without a player library. */
const PLAYABLE_MIMES: readonly VideoMime[] = ['video/mp4', 'video/webm'];

export interface MediaFileValue {
  url?: string | null;
  mime?: string | null;
  duration?: number | null;
  width?: number | null;
  height?: number | null;
  bitrate?: number | null;
}

export interface CreativeValues {
  format?: string;
  videoSource?: string;
  mediaFiles?: (MediaFileValue | null | undefined)[] | null;
  vastUrl?: string | null;
  displayType?: string;
  imageUrl?: string | null;
  html?: string | null;
  width?: number | null;
  height?: number | null;
}

export type CreativePreviewModel =
  | { kind: 'video'; src: string; mime: VideoMime; width: number | null; height: number | null }
  | { kind: 'unplayable'; urls: string[] }
  | { kind: 'vast'; url: string }
  | { kind: 'image'; src: string; width: number | null; height: number | null }
  | { kind: 'html'; html: string; width: number; height: number }
  | { kind: 'none'; message: string };

const HTTP_URL = /^https?:\/\/\S+$/i;

function isHttpUrl(value: unknown): value is string {
  return typeof value === 'string' && HTTP_URL.test(value.trim());
}

const EXTENSION_MIMES: [RegExp, VideoMime][] = [
  [/\.(mp4|m4v)$/i, 'video/mp4'],
  [/\.webm$/i, 'video/webm'],
  [/\.(ogv|ogg)$/i, 'video/ogg'],
  [/\.m3u8$/i, 'application/x-mpegURL'],
  [/\.mpd$/i, 'application/dash+xml'],
  [/\.3gp$/i, 'video/3gpp'],
];

/** The media type a media file's URL names by its extension (query and fragment ignored). */
export function guessVideoMime(url: string): VideoMime | undefined {
  const path = url.trim().split(/[?#]/, 1)[0] ?? '';
  return EXTENSION_MIMES.find(([re]) => re.test(path))?.[1];
}

/** The first media file with an http(s) URL that a browser plays natively (mp4 or webm). */
export function firstPlayableMediaFile(
  files: CreativeValues['mediaFiles'],
): (MediaFileValue & { url: string; mime: VideoMime }) | null {
  for (const file of files ?? []) {
    if (!file || !isHttpUrl(file.url)) continue;
    const mime = (file.mime || guessVideoMime(file.url)) as VideoMime | undefined;
    if (mime && PLAYABLE_MIMES.includes(mime)) return { ...file, url: file.url.trim(), mime };
  }
  return null;
}

const size = (v: unknown) => (typeof v === 'number' && v > 0 ? v : null);

export function creativePreview(values: CreativeValues): CreativePreviewModel {
  if (values.format === 'display') {
    if (values.displayType === 'html') {
      const html = values.html ?? '';
      if (!html.trim()) return { kind: 'none', message: 'Paste the HTML to preview it.' };
      return { kind: 'html', html, width: size(values.width) ?? 300, height: size(values.height) ?? 250 };
    }
    if (!isHttpUrl(values.imageUrl)) return { kind: 'none', message: 'Enter the image URL to preview it.' };
    return { kind: 'image', src: values.imageUrl.trim(), width: size(values.width), height: size(values.height) };
  }
  if (values.videoSource === 'vast') {
    if (!isHttpUrl(values.vastUrl)) return { kind: 'none', message: 'Enter the VAST URL.' };
    return { kind: 'vast', url: values.vastUrl.trim() };
  }
  const playable = firstPlayableMediaFile(values.mediaFiles);
  if (playable)
    return {
      kind: 'video',
      src: playable.url,
      mime: playable.mime,
      width: size(playable.width),
      height: size(playable.height),
    };
  const urls = (values.mediaFiles ?? []).flatMap((f) => (f && isHttpUrl(f.url) ? [f.url.trim()] : []));
  if (urls.length > 0) return { kind: 'unplayable', urls };
  return { kind: 'none', message: 'Add a media file with an http(s) URL to preview it.' };
}
