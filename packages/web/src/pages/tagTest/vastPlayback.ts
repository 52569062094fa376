import { VASTClient, VASTTracker } from '@dailymotion/vast-client';
import { templateUrl, trackerUrlPattern } from './traceText.js';

/**
 * The VAST answer as a player reads it, through @dailymotion/vast-client: the document parsed (wrappers
 * followed by the library's own fetcher), the first ad's video or display creative picked, and a
 * VASTTracker that fires its tracking URLs. `TrackedEvents` keeps which events were sent and which
 * of their URLs the browser saw answered (resource timing of the pixels the library loads).
 */
interface VastMediaFile {
  fileURL: string;
  mimeType: string;
  width: number;
  height: number;
  apiFramework?: string | null;
}

interface ParsedCreative {
  type: 'linear' | 'nonlinear' | 'companion';
  duration?: number;
  /** Seconds before the ad may be skipped; null or absent: not skippable. */
  skipDelay?: number | null;
  mediaFiles?: VastMediaFile[];
  icons?: VastIcon[];
  videoClickThroughURLTemplate?: unknown;
  videoClickTrackingURLTemplates?: unknown[];
  variations?: {
    staticResource?: string | null;
    htmlResource?: string | null;
    width?: number;
    height?: number;
    nonlinearClickTrackingURLTemplates?: unknown[];
  }[];
  /** VAST 4's media extras: captions (4.1+), the mezzanine a stitcher transcodes, a SIMID file. */
  closedCaptionFiles?: { language?: string | null }[];
  mezzanine?: unknown;
  interactiveCreativeFile?: { apiFramework?: string | null } | null;
}

/** An icon as vast-client reads it (AdChoices, most often): where it sits over the video, and its click-through. */
export interface VastIcon {
  program?: string | null;
  width?: number;
  height?: number;
  xPosition?: number | string;
  yPosition?: number | string;
  staticResource?: string | null;
  iconClickThroughURLTemplate?: string | null;
}

/** Where an icon sits over the video, as CSS offsets (VAST: left/right/top/bottom, or pixels from the top left; top right when unsaid). */
export function iconPlacement(icon: VastIcon): { left?: number; right?: number; top?: number; bottom?: number } {
  const x = icon.xPosition;
  const y = icon.yPosition;
  const place: { left?: number; right?: number; top?: number; bottom?: number } = {};
  if (x === 'left') place.left = 0;
  else if (typeof x === 'number' || (typeof x === 'string' && /^\d+$/.test(x))) place.left = Number(x);
  else place.right = 0;
  if (y === 'bottom') place.bottom = 0;
  else if (typeof y === 'number' || (typeof y === 'string' && /^\d+$/.test(y))) place.top = Number(y);
  else place.top = 0;
  return place;
}

export interface ParsedAd {
  adTitle?: string;
  system?: { value?: string } | string | null;
  impressionURLTemplates: unknown[];
  errorURLTemplates: unknown[];
  creatives: ParsedCreative[];
  adVerifications?: { vendor?: string | null }[];
  viewableImpression?: { viewable?: unknown[]; notViewable?: unknown[]; viewUndetermined?: unknown[] }[];
  advertiser?: { value?: string | null } | null;
  categories?: { value?: string | null }[];
}

/**
 * What the ad carries beside its media, as an ad-ops user checks a demand's ad: its advertiser and
 * categories, whether it can be skipped, a VPAID unit, its verification vendors, viewability
 * trackers, icons (AdChoices), companion banners, captions, a mezzanine and a SIMID file.
 */
export function adFacts(ad: ParsedAd): string[] {
  const facts: string[] = [];
  if (ad.advertiser?.value) facts.push(`Advertiser: ${ad.advertiser.value}`);
  const categories = (ad.categories ?? []).map((c) => c.value).filter((v): v is string => !!v);
  if (categories.length) facts.push(`Category: ${categories.join(', ')}`);
  const linear = ad.creatives.find((c) => c.type === 'linear');
  if (typeof linear?.skipDelay === 'number' && linear.skipDelay >= 0)
    facts.push(`Skippable after ${linear.skipDelay} s`);
  const apis = [...new Set((linear?.mediaFiles ?? []).map((m) => m.apiFramework).filter((a): a is string => !!a))];
  if (apis.length) facts.push(`Interactive: ${apis.join(', ')}`);
  const vendors = (ad.adVerifications ?? []).map((v) => v.vendor || 'unnamed vendor');
  if (vendors.length) facts.push(`Verification: ${[...new Set(vendors)].join(', ')}`);
  if (
    (ad.viewableImpression ?? []).some(
      (v) => (v.viewable?.length ?? 0) + (v.notViewable?.length ?? 0) + (v.viewUndetermined?.length ?? 0) > 0,
    )
  )
    facts.push('Viewability trackers');
  const icons = (linear?.icons ?? []).map((i) => i.program || 'icon');
  if (icons.length) facts.push(`Icon: ${icons.join(', ')}`);
  const companions = ad.creatives.filter((c) => c.type === 'companion').flatMap((c) => c.variations ?? []);
  if (companions.length) facts.push(`Companion: ${companions.map((v) => `${v.width}×${v.height}`).join(', ')}`);
  const captions = (linear?.closedCaptionFiles ?? []).map((c) => c.language || 'unnamed language');
  if (captions.length) facts.push(`Captions: ${[...new Set(captions)].join(', ')}`);
  if (linear?.mezzanine) facts.push('Mezzanine file');
  if (linear?.interactiveCreativeFile)
    facts.push(`Interactive file: ${linear.interactiveCreativeFile.apiFramework || 'unnamed API'}`);
  return facts;
}

export type Playable =
  | { kind: 'video'; title: string; media: VastMediaFile; tracker: VASTTracker; ad: ParsedAd; creative: ParsedCreative }
  | { kind: 'image'; title: string; src: string; width: number; height: number; tracker: VASTTracker; ad: ParsedAd }
  | { kind: 'html'; title: string; html: string; width: number; height: number; tracker: VASTTracker; ad: ParsedAd }
  | { kind: 'none'; message: string };

/** The first media file this browser plays (MP4, WebM), the best-sized first. */
function playableMedia(files: readonly VastMediaFile[], canPlay: (mime: string) => boolean): VastMediaFile | null {
  return files.filter((f) => f.fileURL && canPlay(f.mimeType)).sort((a, b) => b.width - a.width)[0] ?? null;
}

export async function loadVast(xml: string, canPlay: (mime: string) => boolean): Promise<Playable> {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const client = new VASTClient(0, 0);
  let response: { ads: ParsedAd[] };
  try {
    response = (await client.parseVAST(doc, { timeout: 5000 })) as { ads: ParsedAd[] };
  } catch (error) {
    return {
      kind: 'none',
      message: `The VAST client could not read the answer: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const ad = response.ads[0];
  if (!ad) return { kind: 'none', message: 'The answer is an empty VAST: nothing to play.' };
  const title = ad.adTitle || 'Ad';
  const linear = ad.creatives.find((c) => c.type === 'linear');
  if (linear) {
    const media = playableMedia(linear.mediaFiles ?? [], canPlay);
    if (!media) return { kind: 'none', message: 'The ad has no media file this browser plays (MP4 or WebM).' };
    return { kind: 'video', title, media, tracker: new VASTTracker(client, ad, linear), ad, creative: linear };
  }
  const nonLinear = ad.creatives.find((c) => c.type === 'nonlinear' && c.variations?.length);
  const variation = nonLinear?.variations?.[0];
  if (nonLinear && variation) {
    const tracker = new VASTTracker(client, ad, nonLinear, variation);
    const size = { width: variation.width || 300, height: variation.height || 250 };
    if (variation.staticResource) return { kind: 'image', title, src: variation.staticResource, ...size, tracker, ad };
    if (variation.htmlResource) return { kind: 'html', title, html: variation.htmlResource, ...size, tracker, ad };
  }
  return { kind: 'none', message: 'The ad has neither a video nor a display creative.' };
}

/** One tracking event the player sent, with each of its URLs and whether the browser saw it answered. */
export interface SentEvent {
  seq: number;
  name: string;
  /** Seconds into the ad. */
  at: number;
  urls: { url: string; pattern: RegExp; status: 'sent' | 'answered'; http?: number }[];
}

export class TrackedEvents {
  readonly list: SentEvent[] = [];
  private seq = 0;

  constructor(private readonly changed: () => void) {}

  add(name: string, templates: readonly unknown[], at: number): void {
    const urls = templates
      .map(templateUrl)
      .filter(Boolean)
      .map((url) => ({ url, pattern: trackerUrlPattern(url), status: 'sent' as const }));
    this.list.push({ seq: ++this.seq, name, at, urls });
    this.changed();
  }

  /** A finished resource load of the page: the first sent URL it matches is answered. */
  answered(url: string, http: number | undefined): void {
    for (const event of this.list) {
      const hit = event.urls.find((u) => u.status === 'sent' && u.pattern.test(url));
      if (hit) {
        Object.assign(hit, { status: 'answered', http: http || undefined });
        this.changed();
        return;
      }
    }
  }
}

/** The tracking events of a linear ad the tracker emits, as the events list names them. */
export const TRACKER_EVENTS = [
  'start',
  'firstQuartile',
  'midpoint',
  'thirdQuartile',
  'complete',
  'pause',
  'resume',
  'mute',
  'unmute',
  'skip',
] as const;
