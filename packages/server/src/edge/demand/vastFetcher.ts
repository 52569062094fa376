import { type Agent } from 'undici';
import { VAST_ERRORS } from '../vast/vastVersion.js';
import { isAddressRefused } from '../../http/outboundAddress.js';
import { TIMED_OUT } from './deadline.js';
import { AnswerTooLarge, demandCall } from './demandCall.js';
import { type DemandInline, type DemandWrapper, mergeTrackers, NO_MORE_ADS, readVastAnswer, wrapperCreative } from './vastAnswer.js';
import { type RateSource } from '../openrtb/currency.js';

/**
 * The one HTTP caller of VAST demand: keep-alive connections per origin (undici Agent), a deadline
 * per call (headers and body; a late answer keeps its connection: deadline.ts), bodies capped,
 * wrappers followed to `MAX_WRAPPERS` deep with every hop's trackers kept. Whatever goes wrong is a
 * no-fill with its VAST error code, never a throw.
 */
export const MAX_WRAPPERS = 5;
/** HTTP redirects followed per call (as a player's browser follows them); they share the call's deadline. */
export const MAX_REDIRECTS = 3;
/** Further ads of a buffet tried when the first one's wrapper chain gives no ad. */
export const MAX_FALLBACKS = 2;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_BODY = 512 * 1024;

export type FetchResult =
  | { kind: 'inline'; ad: DemandInline; hops: number; ms: number }
  /**
   * `errorUrls`: where the demand asked to hear of this error, as a player would report it (the
   * error trackers of every wrapper followed, then the failing answer's own), [ERRORCODE] unfilled.
   */
  | { kind: 'no_fill'; reason: string; vastError: number; errorUrls: string[]; ms: number }
  | { kind: 'timeout'; ms: number };

/** The viewer a demand call is made for: its user agent, address and page ('' when unknown). */
export interface Viewer {
  ua: string;
  ip: string;
  referer?: string;
}

export class VastFetcher {
  /** `agent`: keep-alive connections per origin, and where they may go (deadline.ts demandAgent). */
  constructor(private readonly agent: Agent) {}

  async close(): Promise<void> {
    await this.agent.close();
  }

  /**
   * The answer's text ('' for a 204) and the URL that gave it (past HTTP redirects, up to
   * MAX_REDIRECTS), TIMED_OUT, or a throw: an HTTP status other than 200 (HttpError), a failed call.
   */
  private async get(url: string, deadline: number, viewer: Viewer): Promise<{ text: string; url: string } | typeof TIMED_OUT> {
    for (let redirects = 0; ; redirects++) {
      let answer;
      try {
        answer = await this.call(url, deadline, viewer);
      } catch (error) {
        throw error instanceof AnswerTooLarge ? new HttpError(413) : error;
      }
      if (answer === TIMED_OUT) return TIMED_OUT;
      if (answer.status === 204) return { text: '', url };
      const location = answer.headers.location;
      if (REDIRECTS.has(answer.status) && typeof location === 'string' && redirects < MAX_REDIRECTS) {
        const next = redirectTarget(location, url);
        if (!next) throw new HttpError(answer.status);
        url = next;
        continue;
      }
      if (answer.status !== 200) throw new HttpError(answer.status);
      return { text: answer.body.toString('utf8'), url };
    }
  }

  private call(url: string, deadline: number, { ua, ip, referer }: Viewer) {
    return demandCall(
      this.agent,
      {
        url,
        method: 'GET',
        // on the viewer's behalf: its device named as VAST 4.1+ section 1.1.3 asks of a server-side
        // caller (X-Device-*: the page the player is on as its Referer would have said), and in the
        // deprecated X-Forwarded-For that older demand still reads
        headers: {
          accept: 'application/xml, text/xml',
          'user-agent': ua || 'adplane',
          ...(ua ? { 'x-device-user-agent': ua } : {}),
          ...(ip ? { 'x-device-ip': ip, 'x-forwarded-for': ip } : {}),
          ...(referer ? { 'x-device-referer': referer } : {}),
        },
        maxBytes: MAX_BODY,
      },
      deadline - Date.now(),
    );
  }

  /**
   * Fetch a demand VAST URL and follow its wrappers until an inline ad, under `deadline` (epoch ms).
   * When the answer's ad is a wrapper whose chain gives no ad, and the answer holds other ads (a
   * buffet), the next one is tried as a player falls back (unless the wrapper says
   * `fallbackOnNoAd="false"`), up to MAX_FALLBACKS; when none fills, the first one's no-fill stands.
   * `rates`: what converts a <Pricing> in another currency than USD (the operator's; none: USD only).
   */
  async fetch(url: string, deadline: number, viewer: Viewer, rates?: RateSource): Promise<FetchResult> {
    const started = Date.now();
    let first: { text: string; url: string } | typeof TIMED_OUT;
    try {
      first = await this.get(url, deadline, viewer);
    } catch (error) {
      return { kind: 'no_fill', reason: failure(error), vastError: VAST_ERRORS.noAds, errorUrls: [], ms: Date.now() - started };
    }
    if (first === TIMED_OUT) return { kind: 'timeout', ms: Date.now() - started };
    const result = await this.chain(first, 0, deadline, viewer, started, rates);
    if (result.kind !== 'no_fill' || !result.fallback) return result.outcome;
    for (let skip = 1; skip <= MAX_FALLBACKS && Date.now() < deadline; skip++) {
      const next = await this.chain(first, skip, deadline, viewer, started, rates);
      if (next.kind !== 'no_fill') return next.outcome;
      if (!next.fallback) break;
    }
    return result.outcome;
  }

  /**
   * The chain from the `skip`-th ad a player would try in the tag's answer (`first`) to an inline ad.
   * `fallback`: it gave none, and the answer's ad was a wrapper that lets the player try the next.
   */
  private async chain(
    first: { text: string; url: string },
    skip: number,
    deadline: number,
    viewer: Viewer,
    started: number,
    rates: RateSource | undefined,
  ): Promise<{ kind: 'inline'; outcome: FetchResult } | { kind: 'no_fill'; outcome: FetchResult; fallback: boolean }> {
    /** The wrappers followed so far, in order. */
    const wrappers: DemandWrapper[] = [];
    let wrapperPrice: number | null = null;
    /** A wrapper before said followAdditionalWrappers="false": the next answer must be an inline ad. */
    let lastWrapperAllowed = true;
    /** A no-fill: the error trackers of the wrappers followed, then the failing answer's own. */
    const noFill = (reason: string, vastError: number, own: readonly string[] = []) => ({
      kind: 'no_fill' as const,
      // a fallback past the first ad is tried only when the chain started at a wrapper that allows it
      fallback: wrappers.length > 0 && wrappers[0]!.fallbackOnNoAd,
      outcome: { kind: 'no_fill', reason, vastError, errorUrls: [...wrappers.flatMap((w) => w.trackers.error), ...own], ms: Date.now() - started } as FetchResult,
    });
    let next = '';
    for (let hop = 0; hop <= MAX_WRAPPERS; hop++) {
      let got: { text: string; url: string } | typeof TIMED_OUT = first;
      if (hop) {
        try {
          got = await this.get(next, deadline, viewer);
        } catch (error) {
          // a wrapper's URI that could not be fetched: VAST 301 ("unavailable or reached a timeout")
          return noFill(failure(error), VAST_ERRORS.wrapperTimeout);
        }
        if (got === TIMED_OUT) return noFill('wrapper_timeout', VAST_ERRORS.wrapperTimeout);
      }
      const answer = readVastAnswer(got.text, got.url, hop > 0 && !wrappers[wrappers.length - 1]!.allowMultipleAds, hop ? 0 : skip, rates);
      if (answer.kind === 'empty') {
        // (past the answer's last ad: no further fallback, and the first try's no-fill stands)
        if (answer.reason === NO_MORE_ADS) return { kind: 'no_fill', fallback: false, outcome: { kind: 'no_fill', reason: NO_MORE_ADS, vastError: answer.vastError, errorUrls: [], ms: 0 } };
        return noFill(answer.reason, answer.vastError, answer.errorUrls);
      }
      if (answer.kind === 'inline') {
        const pricingCpm = answer.pricingCpm ?? wrapperPrice;
        const ad: DemandInline = { ...answer, ...wrapperCreative(answer, wrappers), trackers: mergeTrackers(...wrappers.map((w) => w.trackers), answer.trackers), pricingCpm };
        return { kind: 'inline', outcome: { kind: 'inline', ad, hops: hop, ms: Date.now() - started } };
      }
      // the wrapper a player would refuse: its own error trackers hear of it too
      if (!lastWrapperAllowed) return noFill('wrapper_not_allowed', VAST_ERRORS.wrapperLimit, answer.trackers.error);
      wrappers.push(answer);
      wrapperPrice ??= answer.pricingCpm;
      lastWrapperAllowed = answer.followAdditionalWrappers;
      next = answer.tagUri;
    }
    return noFill('too_many_wrappers', VAST_ERRORS.wrapperLimit);
  }
}

/** Why a call failed, as a no-fill reason. */
const failure = (error: unknown): string => (error instanceof HttpError ? `http_${error.status}` : isAddressRefused(error) ? 'address_refused' : 'connection_failed');

/** A redirect's Location against the URL that answered it: an http(s) URL, else null. */
function redirectTarget(location: string, from: string): string | null {
  try {
    const target = new URL(location, from);
    return target.protocol === 'http:' || target.protocol === 'https:' ? target.href : null;
  } catch {
    return null;
  }
}

class HttpError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}
