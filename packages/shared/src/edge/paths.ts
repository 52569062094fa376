/**
 * The public URLs of the edge, one definition for the edge's routes and the console's tag builders.
 * `VAST_ROUTE` is the route pattern the edge registers; the functions build the paths (and the edge's
 * path prefixes, with an empty uid) a partner pastes.
 *
 * - `/vast/<channel uid>`: a VAST channel's tag URL (a player calls it, macros in the query);
 * - `/rtb/<channel uid>`: an RTB channel's OpenRTB 2.6 endpoint (a publisher's SSP posts bid requests);
 * - `/rtb/bid/<supplier uid>`: a supplier's OpenRTB endpoint in DSP mode (the supplier posts to us);
 * - `/rtb/sync/<supplier uid>`: the supplier's user-sync pixel (DSP mode): sends a browser to the
 *   supplier's user-sync URL with adplane's id, which its bid requests then carry as `user.buyeruid`;
 * - `/openrtb2/auction`: the Prebid Server auction endpoint (the channel is the stored request id);
 * - `/cache?uuid=<id>`: what that auction cached (a video bid's VAST, a bid's JSON), as Prebid Cache serves it;
 * - `/openrtb2/amp`: Prebid Server's AMP endpoint (an amp-ad's Real Time Config call);
 * - `/status`: Prebid Server's health check;
 * - `/cookie_sync`, `/setuid`, `/getuids`: Prebid Server's user sync (the browser's adplane id, in the `uids` cookie);
 * - `/optout`: the page where a person opts the browser out of that id;
 * - `/ev`: tracking events (impression, quartiles, clicks) with a signed token;
 * - `/event`: Prebid Server's event notifications (win, impression) of a bid's `ext.prebid.events`;
 * - `/vtrack?a=<account>`: Prebid Server's VAST cache (Prebid.js's `cache.url` with `vasttrack`), our bids' VAST stored with the impression event.
 */
/** The macros a VAST tag URL carries, per environment (tagMacros.ts), travel with its paths. */
export * from './tagMacros.js';

export const VAST_ROUTE = '/vast/:uid';
export const PREBID_AUCTION_PATH = '/openrtb2/auction';
export const PREBID_AMP_PATH = '/openrtb2/amp';
export const PREBID_CACHE_PATH = '/cache';
export const PREBID_STATUS_PATH = '/status';
export const PREBID_COOKIE_SYNC_PATH = '/cookie_sync';
export const PREBID_SETUID_PATH = '/setuid';
export const PREBID_GETUIDS_PATH = '/getuids';
export const PREBID_OPTOUT_PATH = '/optout';
export const EVENT_PATH = '/ev';
export const PREBID_EVENT_PATH = '/event';
export const PREBID_VTRACK_PATH = '/vtrack';

const seg = (uid: string) => encodeURIComponent(uid);

export const vastTagPath = (channelUid: string): string => `/vast/${seg(channelUid)}`;

/**
 * The query parameter of a VAST tag that asks for the answer in another VAST version than the
 * channel's setting (2.0, 3.0, 4.0, 4.1 or 4.2; anything else is ignored): one channel can serve a
 * VAST 2 era player and a VAST 4 one.
 */
export const VAST_VERSION_PARAM = 'vast_version';
export const rtbChannelPath = (channelUid: string): string => `/rtb/${seg(channelUid)}`;
export const supplierBidPath = (supplierUid: string): string => `/rtb/bid/${seg(supplierUid)}`;
export const supplierSyncPath = (supplierUid: string): string => `/rtb/sync/${seg(supplierUid)}`;

/**
 * The public origin of the edge from the configured host (`https://ads.example.com`, trailing slashes
 * dropped). A bare host gets https: a partner cannot use an endpoint without a scheme.
 */
export function edgeOrigin(host: string): string {
  const base = host.trim().replace(/\/+$/, '');
  return /^https?:\/\//i.test(base) ? base : `https://${base}`;
}

/** `origin + path`: the full URL a partner pastes. */
export const edgeUrl = (host: string, path: string): string => `${edgeOrigin(host)}${path}`;
