import { type Agent } from 'undici';
import { VAST_ERRORS } from '../vast/vastVersion.js';
import { isAddressRefused } from '../../http/outboundAddress.js';
import { TIMED_OUT } from './deadline.js';
import { AnswerTooLarge, demandCall } from './demandCall.js';
import { type DemandInline, type DemandWrapper, mergeTrackers, readVastAnswer, wrapperCreative } from './vastAnswer.js';

/**
 * The one HTTP caller of VAST demand: keep-alive connections per origin (undici Agent), a deadline
 * per call (headers and body; a late answer keeps its connection: deadline.ts), bodies capped,
 * wrappers followed to `MAX_WRAPPERS` deep with every hop's trackers kept. Whatever goes wrong is a
 * no-fill with its VAST error code, never a throw.
 */
export const MAX_WRAPPERS = 5;
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

  /** The answer's text ('' for a 204), TIMED_OUT, or a throw: an HTTP status other than 200 (HttpError), a failed call. */
  private async get(url: string, deadline: number, viewer: Viewer): Promise<string | typeof TIMED_OUT> {
    let answer;
    try {
      answer = await this.call(url, deadline, viewer);
    } catch (error) {
      throw error instanceof AnswerTooLarge ? new HttpError(413) : error;
    }
    if (answer === TIMED_OUT) return TIMED_OUT;
    if (answer.status === 204) return '';
    if (answer.status !== 200) throw new HttpError(answer.status);
    return answer.body.toString('utf8');
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

  /** Fetch a demand VAST URL and follow its wrappers until an inline ad, under `deadline` (epoch ms). */
  async fetch(url: string, deadline: number, viewer: Viewer): Promise<FetchResult> {
    const started = Date.now();
    /** The wrappers followed so far, in order. */
    const wrappers: DemandWrapper[] = [];
    let wrapperPrice: number | null = null;
    /** A wrapper before said followAdditionalWrappers="false": the next answer must be an inline ad. */
    let lastWrapperAllowed = true;
    /** A no-fill: the error trackers of the wrappers followed, then the failing answer's own. */
    const noFill = (reason: string, vastError: number, own: readonly string[] = []): FetchResult => ({
      kind: 'no_fill',
      reason,
      vastError,
      errorUrls: [...wrappers.flatMap((w) => w.trackers.error), ...own],
      ms: Date.now() - started,
    });
    let next = url;
    for (let hop = 0; hop <= MAX_WRAPPERS; hop++) {
      let xml: string | typeof TIMED_OUT;
      try {
        xml = await this.get(next, deadline, viewer);
      } catch (error) {
        // a wrapper's URI that could not be fetched: VAST 301 ("unavailable or reached a timeout")
        const general = hop ? VAST_ERRORS.wrapperTimeout : VAST_ERRORS.noAds;
        return noFill(error instanceof HttpError ? `http_${error.status}` : isAddressRefused(error) ? 'address_refused' : 'connection_failed', general);
      }
      if (xml === TIMED_OUT) return hop === 0 ? { kind: 'timeout', ms: Date.now() - started } : noFill('wrapper_timeout', VAST_ERRORS.wrapperTimeout);
      const answer = readVastAnswer(xml);
      if (answer.kind === 'empty') return noFill(answer.reason, answer.vastError, answer.errorUrls);
      if (answer.kind === 'inline') {
        const pricingCpm = answer.pricingCpm ?? wrapperPrice;
        const ad: DemandInline = { ...answer, ...wrapperCreative(answer, wrappers), trackers: mergeTrackers(...wrappers.map((w) => w.trackers), answer.trackers), pricingCpm };
        return { kind: 'inline', ad, hops: hop, ms: Date.now() - started };
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

class HttpError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}
