import { DOMParser, type Element } from '@xmldom/xmldom';

/**
 * What a player does with a VAST answer, for `npm run traffic`: find the ad (following nothing: the
 * edge answers inline or wraps its own tracking), and the URLs a player calls as it plays it.
 */
export interface VastPlay {
  /** False for an empty VAST (`<VAST/>` with no Ad): nothing to play. */
  filled: boolean;
  impressions: string[];
  /** Tracking URLs by event: start, firstQuartile, midpoint, thirdQuartile, complete. */
  events: Record<string, string[]>;
  clicks: string[];
  errors: string[];
}

export const PLAYED_EVENTS = ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete'] as const;

const text = (node: Element) => (node.textContent ?? '').trim();

export function readVast(xml: string): VastPlay {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const all = (name: string): Element[] => Array.from(doc.getElementsByTagName(name));
  const play: VastPlay = { filled: all('Ad').length > 0, impressions: [], events: {}, clicks: [], errors: [] };
  play.impressions = all('Impression').map(text).filter(Boolean);
  play.clicks = all('ClickTracking').map(text).filter(Boolean);
  play.errors = all('Error').map(text).filter(Boolean);
  for (const tracking of all('Tracking')) {
    const event = tracking.getAttribute('event') ?? '';
    const url = text(tracking);
    if (!event || !url) continue;
    (play.events[event] ??= []).push(url);
  }
  return play;
}

/** VAST error macros a player fills before calling an Error URL. */
export const withErrorCode = (url: string, code: number) =>
  url.replaceAll('[ERRORCODE]', String(code)).replaceAll('%5BERRORCODE%5D', String(code));
