import { type RequestContext } from '../request/context.js';
import { type TokenSigner } from '../tracking/trackingToken.js';
import { fillAuctionMacros } from '../ortb/auctionMacros.js';
import { type OrtbMarkup } from '../ortb/ortbMarkup.js';
import { type VastMarkup } from './demandSource.js';
import { fillIabMacros } from './tagMacros.js';
import { type FailedAd } from '../vast/vastAnswer.js';

/**
 * A VAST demand that gave us no playable ad hears of it as it would from a player. adplane reads a
 * demand's answer server-side, so its player never sees the answers that failed: without us, the
 * error trackers of a wrapper chain that ended empty, of an ad without a usable media file, or of a
 * "no ad" response's root <Error> (VAST 3+) would never be called, and the partner's error and
 * discrepancy reports would miss every one. The decision fires them (never for a test), with
 * [ERRORCODE] the VAST error code a player would report and the IAB's other macros filled as in a
 * tag URL (tagMacros.ts; [SERVERSIDE] is 1).
 */

/**
 * At most this many error trackers are fired for one demand call (a chain of 5 wrappers with one or
 * two each; or, with a buffet's fallbacks, the first ones of the ads given up on).
 */
export const MAX_ERROR_PINGS = 10;

/** The [ERRORCODE] macro, as written or percent-encoded. */
export const ERRORCODE = /\[ERRORCODE\]|%5BERRORCODE%5D/gi;

/** The error trackers to fire for a no-fill with `code`: http(s) URLs only, each once, macros filled. */
export function errorPings(urls: readonly string[], code: number, ctx: RequestContext): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const value = String(code);
  for (const url of urls) {
    if (out.length === MAX_ERROR_PINGS) break;
    const trimmed = url.trim();
    if (!/^https?:\/\/\S+$/i.test(trimmed) || seen.has(trimmed)) continue;
    seen.add(trimmed);
    out.push(fillIabMacros(trimmed.replace(ERRORCODE, value), ctx));
  }
  return out;
}

/**
 * The error trackers of ads a demand's answer gave that a player tried and gave up on (a buffet's
 * broken ad, a wrapper chain that gave no ad before the next ad was tried: vastFetcher.ts `failed`),
 * each with its own ad's code in [ERRORCODE], the rest of the macros left for errorPings: so that
 * they can go beside a no-fill's own trackers, or with a bid, and be fired after the auction.
 */
export function failedAdUrls(failed: readonly FailedAd[] | undefined): string[] {
  if (!failed?.length) return [];
  return failed.flatMap((f) => f.errorUrls.map((u) => u.replace(ERRORCODE, String(f.vastError))));
}

/** What the error trackers our error URL forwards may take of it, in characters (a player's URL stays short). */
const MAX_FORWARD_CHARS = 2000;

/**
 * VAST 2.0 and 3.0 hold one <Error> per ad, so an answer that keeps ours (every error the player
 * reports is counted) has no room for the demand's. Ours then carries the demand's error trackers
 * (`de`, newline-separated, their IAB macros filled from the request as errorPings fills them,
 * [ERRORCODE] left for the player's code) with a signature binding them to the token (`ds`): when
 * the player reports an error to us, /ev forwards it to each (forwardedErrors). At most
 * MAX_ERROR_PINGS trackers and MAX_FORWARD_CHARS characters; none: ''.
 */
export function errorForwardQuery(
  urls: readonly string[],
  ctx: RequestContext,
  token: string,
  signer: TokenSigner,
): string {
  const kept: string[] = [];
  let chars = 0;
  for (const url of urls) {
    const trimmed = url.trim();
    if (kept.length === MAX_ERROR_PINGS || !/^https?:\/\/\S+$/i.test(trimmed)) continue;
    const filled = fillIabMacros(trimmed, ctx);
    if (kept.includes(filled) || chars + filled.length > MAX_FORWARD_CHARS) continue;
    kept.push(filled);
    chars += filled.length + 1;
  }
  if (!kept.length) return '';
  const joined = kept.join('\n');
  return `&de=${encodeURIComponent(joined)}&ds=${signer.attach(token, joined)}`;
}

/** A winning demand ad's VAST error trackers: a VAST tag's, or an OpenRTB bid's VAST with the win's auction macros filled. */
export function demandErrorTrackers(markup: VastMarkup | OrtbMarkup): readonly string[] {
  if (markup.kind === 'vast') return markup.ad.trackers.error;
  const vast = markup.media === 'video' && markup.adm ? markup.vast : null;
  if (!vast) return NO_URLS;
  const macros = markup.settled?.macros ?? {};
  return vast.trackers.error.map((u) => fillAuctionMacros(u, macros)).filter(Boolean);
}

const NO_URLS: readonly string[] = [];

/**
 * The demand error trackers an error event's URL forwards (errorForwardQuery), with the reported
 * code in [ERRORCODE], when their signature binds them to the token; [] otherwise (a forged or
 * altered list is never called).
 */
export function forwardedErrors(query: URLSearchParams, token: string, signer: TokenSigner, code: string): string[] {
  const joined = query.get('de');
  const sig = query.get('ds');
  if (!joined || !sig || !signer.attached(token, joined, sig)) return [];
  return joined
    .split('\n')
    .slice(0, MAX_ERROR_PINGS)
    .filter((u) => /^https?:\/\//i.test(u))
    .map((u) => u.replace(ERRORCODE, code));
}
