import { type Clock, systemClock } from '../../clock.js';
import { type Agent } from 'undici';
import { VAST_ERRORS } from '../vast/vastVersion.js';
import { isAddressRefused } from '../../http/outboundAddress.js';
import { answerText } from './answerText.js';
import { TIMED_OUT } from './deadline.js';
import { AnswerTooLarge, demandCall } from './demandCall.js';
import {
  type DemandInline,
  type DemandWrapper,
  type FailedAd,
  mergeTrackers,
  NO_MORE_ADS,
  readVastAnswer,
  wrapperCreative,
} from '../vast/vastAnswer.js';
import { type RateSource } from '../ortb/currency.js';
import {
  DEMAND_LOOP,
  type DemandLoopGuard,
  HOP_HEADER,
  NOFILL_HEADER,
  OWN_ENTRY_POINT,
} from '../request/demandHops.js';

/**
 * The one HTTP caller of VAST demand: keep-alive connections per origin (undici Agent), a deadline
 * per call (headers and body; a late answer keeps its connection: deadline.ts), bodies capped,
 * wrappers followed to `MAX_WRAPPERS` deep with every hop's trackers kept. Whatever goes wrong is a
 * no-fill with its VAST error code, never a throw.
 */
const MAX_WRAPPERS = 5;
/** HTTP redirects followed per call (as a player's browser follows them); they share the call's deadline. */
const MAX_REDIRECTS = 3;
/** Further ads of a buffet tried when the first one's wrapper chain gives no ad. */
const MAX_FALLBACKS = 2;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_BODY = 512 * 1024;

/**
 * `failed`: the ads a player would have tried and given up on besides the outcome's own (a buffet's
 * broken ads, the wrapper chains that gave no ad before the fallback that filled, or after the first
 * one that did not), in the order tried, each with its VAST error code and error trackers (a failed
 * chain's: every wrapper's, then the failing answer's), [ERRORCODE] unfilled: the demand hears of
 * each as from a player (errorPings.ts), whether a later ad fills or not.
 */
export type FetchResult =
  | { kind: 'inline'; ad: DemandInline; hops: number; ms: number; failed?: FailedAd[] }
  /**
   * `errorUrls`: where the demand asked to hear of this error, as a player would report it (the
   * error trackers of every wrapper followed, then the failing answer's own), [ERRORCODE] unfilled.
   */
  | { kind: 'no_fill'; reason: string; vastError: number; errorUrls: string[]; ms: number; failed?: FailedAd[] }
  | { kind: 'timeout'; ms: number };

/**
 * `nonLinear`: the slot is a display channel's, which shows an ad's NonLinear and never a linear video (vastAnswer.ts displayAd).
 * `fillMacros`: a wrapper's VASTAdTagURI with its macros filled, as a player fills them in every VAST
 * request URI (`[CACHEBUSTING]`, `[TIMESTAMP]`...: tagMacros.ts fillIabMacros); none: called as written.
 */
export interface FetchOptions {
  nonLinear?: boolean;
  fillMacros?: (uri: string) => string;
}

/** The outcome of one wrapper chain: `failed`, the ads passed over on its way (a buffet's broken ones). */
type ChainResult = (
  | { kind: 'inline'; outcome: FetchResult }
  | { kind: 'no_fill'; outcome: Extract<FetchResult, { kind: 'no_fill' }>; fallback: boolean }
) & { failed: FailedAd[] };

/** The viewer a demand call is made for: its user agent, address and page ('' when unknown). */
export interface Viewer {
  ua: string;
  ip: string;
  referer?: string;
  /**
   * Where the call sits in a decision chain (request/demandHops.ts): its hops (1 for a request nobody
   * of ours made; the header every call carries), and the tenant and channel it is made for (a
   * refusal's log line names them).
   */
  hops?: number;
  tenantId?: number;
  channelUid?: string;
}

export class VastFetcher {
  /**
   * `agent`: keep-alive connections per origin, and where they may go (deadline.ts demandAgent).
   * `loops`: the demand loop guard: every call carries the hop marker, and a URL at the edge's own
   * decision entry points (the tag's, a redirect's, a wrapper's) is not called; absent: neither.
   */
  constructor(
    private readonly agent: Agent,
    private readonly loops: DemandLoopGuard | null = null,
    private readonly clock: Clock = systemClock,
  ) {}

  async close(): Promise<void> {
    await this.agent.close();
  }

  /**
   * The answer's text ('' for a 204) and the URL that gave it (past HTTP redirects, up to
   * MAX_REDIRECTS), TIMED_OUT, or a throw: an HTTP status other than 200 (HttpError), a failed call.
   */
  private async get(
    url: string,
    deadline: number,
    viewer: Viewer,
  ): Promise<{ text: string; url: string } | typeof TIMED_OUT> {
    for (let redirects = 0; ; redirects++) {
      if (this.loops?.refusesCall(url, 'vast', viewer)) throw new LoopError(OWN_ENTRY_POINT);
      let answer;
      try {
        answer = await this.call(url, deadline, viewer);
      } catch (error) {
        throw error instanceof AnswerTooLarge ? new HttpError(413) : error;
      }
      if (answer === TIMED_OUT) return TIMED_OUT;
      // our own entry point refused the call as a demand loop (request/demandHops.ts)
      if (this.loops && answer.headers[NOFILL_HEADER] === DEMAND_LOOP) throw new LoopError(DEMAND_LOOP);
      if (answer.status === 204) return { text: '', url };
      const location = answer.headers.location;
      if (REDIRECTS.has(answer.status) && typeof location === 'string' && redirects < MAX_REDIRECTS) {
        const next = redirectTarget(location, url);
        if (!next) throw new HttpError(answer.status);
        url = next;
        continue;
      }
      if (answer.status !== 200) throw new HttpError(answer.status);
      return { text: answerText(answer.body, answer.headers['content-type']), url };
    }
  }

  private call(url: string, deadline: number, { ua, ip, referer, hops }: Viewer) {
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
          ...(this.loops ? { [HOP_HEADER]: this.loops.marker.header(hops ?? 1) } : {}),
        },
        maxBytes: MAX_BODY,
      },
      deadline - this.clock.now(),
    );
  }

  /**
   * Fetch a demand VAST URL and follow its wrappers until an inline ad, under `deadline` (epoch ms).
   * When the answer's ad is a wrapper whose chain gives no ad, and the answer holds other ads (a
   * buffet), the next one is tried as a player falls back (unless the wrapper says
   * `fallbackOnNoAd="false"`), up to MAX_FALLBACKS; when none fills, the first one's no-fill stands.
   * `rates`: what converts a <Pricing> in another currency than USD (the operator's; none: USD only).
   * Every ad given up on the way (a failed chain a fallback replaced, a buffet's broken ad) is in the
   * result's `failed`, so that its error trackers are called even when a later ad fills.
   */
  async fetch(
    url: string,
    deadline: number,
    viewer: Viewer,
    rates?: RateSource,
    options: FetchOptions = {},
  ): Promise<FetchResult> {
    const started = this.clock.now();
    let first: { text: string; url: string } | typeof TIMED_OUT;
    try {
      first = await this.get(url, deadline, viewer);
    } catch (error) {
      return {
        kind: 'no_fill',
        reason: failure(error),
        vastError: VAST_ERRORS.noAds,
        errorUrls: [],
        ms: this.clock.now() - started,
      };
    }
    if (first === TIMED_OUT) return { kind: 'timeout', ms: this.clock.now() - started };
    const { nonLinear = false, fillMacros = asWritten } = options;
    const chainFrom = (skip: number) =>
      this.chain(first, skip, deadline, viewer, started, rates, nonLinear, fillMacros);
    const result = await chainFrom(0);
    if (result.kind !== 'no_fill' || !result.fallback) return withFailed(result.outcome, result.failed);
    // the first chain's own failure is the no-fill's; the ads tried after it are `failed` beside it,
    // and when one of them fills, every failure before it is
    const tried: FailedAd[] = [
      ...result.failed,
      { vastError: result.outcome.vastError, errorUrls: result.outcome.errorUrls },
    ];
    const after: FailedAd[] = [];
    for (let skip = 1; skip <= MAX_FALLBACKS && this.clock.now() < deadline; skip++) {
      const next = await chainFrom(skip);
      after.push(...next.failed);
      if (next.kind !== 'no_fill') return withFailed(next.outcome, [...tried, ...after]);
      if (next.outcome.reason !== NO_MORE_ADS)
        after.push({ vastError: next.outcome.vastError, errorUrls: next.outcome.errorUrls });
      if (!next.fallback) break;
    }
    return withFailed(result.outcome, [...result.failed, ...after]);
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
    nonLinear: boolean,
    fillMacros: (uri: string) => string,
  ): Promise<ChainResult> {
    /** The wrappers followed so far, in order. */
    const wrappers: DemandWrapper[] = [];
    /** The ads passed over on the way (a buffet's broken ads, at any hop). */
    const failed: FailedAd[] = [];
    let wrapperPrice: number | null = null;
    /** A wrapper before said followAdditionalWrappers="false": the next answer must be an inline ad. */
    let lastWrapperAllowed = true;
    /** A no-fill: the error trackers of the wrappers followed, then the failing answer's own. */
    const noFill = (reason: string, vastError: number, own: readonly string[] = []): ChainResult => ({
      kind: 'no_fill' as const,
      // a fallback past the first ad is tried only when the chain started at a wrapper that allows it
      fallback: wrappers.length > 0 && wrappers[0]!.fallbackOnNoAd,
      outcome: {
        kind: 'no_fill',
        reason,
        vastError,
        errorUrls: [...wrappers.flatMap((w) => w.trackers.error), ...own],
        ms: this.clock.now() - started,
      },
      failed,
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
      const { failedBefore, ...answer } = readVastAnswer(
        got.text,
        got.url,
        hop > 0 && !wrappers[wrappers.length - 1]!.allowMultipleAds,
        hop ? 0 : skip,
        rates,
        nonLinear,
      );
      if (failedBefore) failed.push(...failedBefore);
      if (answer.kind === 'empty') {
        // (past the answer's last ad: no further fallback, and the first try's no-fill stands)
        if (answer.reason === NO_MORE_ADS)
          return {
            kind: 'no_fill',
            fallback: false,
            outcome: { kind: 'no_fill', reason: NO_MORE_ADS, vastError: answer.vastError, errorUrls: [], ms: 0 },
            failed,
          };
        return noFill(answer.reason, answer.vastError, answer.errorUrls);
      }
      if (answer.kind === 'inline') {
        const pricingCpm = answer.pricingCpm ?? wrapperPrice;
        // a NonLinear ad takes its wrappers' NonLinearAds trackers, a linear one their linear trackers
        const chain = answer.nonLinear
          ? wrappers.map((w) => ({ ...w.trackers, ...w.nonLinearTrackers }))
          : wrappers.map((w) => w.trackers);
        const ad: DemandInline = {
          ...answer,
          ...wrapperCreative(answer, wrappers),
          trackers: mergeTrackers(...chain, answer.trackers),
          pricingCpm,
        };
        return { kind: 'inline', outcome: { kind: 'inline', ad, hops: hop, ms: this.clock.now() - started }, failed };
      }
      // the wrapper a player would refuse: its own error trackers hear of it too
      if (!lastWrapperAllowed) return noFill('wrapper_not_allowed', VAST_ERRORS.wrapperLimit, answer.trackers.error);
      wrappers.push(answer);
      wrapperPrice ??= answer.pricingCpm;
      lastWrapperAllowed = answer.followAdditionalWrappers;
      next = fillMacros(answer.tagUri);
    }
    return noFill('too_many_wrappers', VAST_ERRORS.wrapperLimit);
  }
}

const asWritten = (uri: string): string => uri;

/** The outcome with the ads given up on beside it (none: as it is). */
function withFailed(outcome: FetchResult, failed: FailedAd[]): FetchResult {
  const reported = failed.filter((f) => f.errorUrls.length);
  return reported.length && outcome.kind !== 'timeout' ? { ...outcome, failed: reported } : outcome;
}

/** Why a call failed, as a no-fill reason. */
const failure = (error: unknown): string =>
  error instanceof HttpError
    ? `http_${error.status}`
    : error instanceof LoopError
      ? error.reason
      : isAddressRefused(error)
        ? 'address_refused'
        : 'connection_failed';

/** A redirect's Location against the URL that answered it: an http(s) URL, else null. */
function redirectTarget(location: string, from: string): string | null {
  try {
    const target = new URL(location, from);
    return target.protocol === 'http:' || target.protocol === 'https:' ? target.href : null;
  } catch {
    return null;
  }
}

/** A call not made (a URL at our own entry point), or refused by it as a demand loop: `reason` is the no-fill's. */
class LoopError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

class HttpError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}
