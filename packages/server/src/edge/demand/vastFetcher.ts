import { type Agent, request } from 'undici';
import { VAST_ERRORS } from '../vast/vastVersion.js';
import { demandAgent, TIMED_OUT, untilDeadline } from './deadline.js';
import { type DemandInline, mergeTrackers, readVastAnswer } from './vastAnswer.js';

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
  | { kind: 'no_fill'; reason: string; vastError: number; ms: number }
  | { kind: 'timeout'; ms: number };

/** The viewer a demand call is made for: its user agent, address and page ('' when unknown). */
export interface Viewer {
  ua: string;
  ip: string;
  referer?: string;
}

export class VastFetcher {
  /** `agent`: keep-alive connections per origin (tests pass their own to read its pool's stats). */
  constructor(private readonly agent: Agent = demandAgent()) {}

  async close(): Promise<void> {
    await this.agent.close();
  }

  private get(url: string, deadline: number, viewer: Viewer): Promise<string | typeof TIMED_OUT> {
    return untilDeadline((signal) => this.read(url, signal, viewer), deadline - Date.now());
  }

  private async read(url: string, signal: AbortSignal, { ua, ip, referer }: Viewer): Promise<string> {
    const res = await request(url, {
      dispatcher: this.agent,
      method: 'GET',
      signal,
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
    });
    if (res.statusCode === 204) {
      await res.body.dump();
      return '';
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new HttpError(res.statusCode);
    }
    let size = 0;
    const parts: Buffer[] = [];
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) {
        res.body.destroy();
        throw new HttpError(413);
      }
      parts.push(chunk as Buffer);
    }
    return Buffer.concat(parts).toString('utf8');
  }

  /** Fetch a demand VAST URL and follow its wrappers until an inline ad, under `deadline` (epoch ms). */
  async fetch(url: string, deadline: number, viewer: Viewer): Promise<FetchResult> {
    const started = Date.now();
    const wrapperTrackers = [];
    let wrapperPrice: number | null = null;
    /** A wrapper before said followAdditionalWrappers="false": the next answer must be an inline ad. */
    let lastWrapperAllowed = true;
    let next = url;
    for (let hop = 0; hop <= MAX_WRAPPERS; hop++) {
      let xml: string | typeof TIMED_OUT;
      try {
        xml = await this.get(next, deadline, viewer);
      } catch (error) {
        const ms = Date.now() - started;
        if (error instanceof HttpError) return { kind: 'no_fill', reason: `http_${error.status}`, vastError: hop ? VAST_ERRORS.wrapperGeneral : VAST_ERRORS.noAds, ms };
        return { kind: 'no_fill', reason: 'connection_failed', vastError: hop ? VAST_ERRORS.wrapperGeneral : VAST_ERRORS.noAds, ms };
      }
      if (xml === TIMED_OUT) return timedOut(hop, Date.now() - started);
      const answer = readVastAnswer(xml);
      if (answer.kind === 'empty') return { kind: 'no_fill', reason: answer.reason, vastError: answer.vastError, ms: Date.now() - started };
      if (answer.kind === 'inline') {
        const pricingCpm = answer.pricingCpm ?? wrapperPrice;
        return { kind: 'inline', ad: { ...answer, trackers: mergeTrackers(...wrapperTrackers, answer.trackers), pricingCpm }, hops: hop, ms: Date.now() - started };
      }
      if (!lastWrapperAllowed) return { kind: 'no_fill', reason: 'wrapper_not_allowed', vastError: VAST_ERRORS.wrapperLimit, ms: Date.now() - started };
      wrapperTrackers.push(answer.trackers);
      wrapperPrice ??= answer.pricingCpm;
      lastWrapperAllowed = answer.followAdditionalWrappers;
      next = answer.tagUri;
    }
    return { kind: 'no_fill', reason: 'too_many_wrappers', vastError: VAST_ERRORS.wrapperLimit, ms: Date.now() - started };
  }
}

const timedOut = (hop: number, ms: number): FetchResult =>
  hop === 0 ? { kind: 'timeout', ms } : { kind: 'no_fill', reason: 'wrapper_timeout', vastError: VAST_ERRORS.wrapperTimeout, ms };

class HttpError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}
