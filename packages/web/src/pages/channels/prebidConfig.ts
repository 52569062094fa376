import { edgeUrl, PREBID_AMP_PATH, PREBID_AUCTION_PATH, PREBID_COOKIE_SYNC_PATH } from '@adplane/shared';

/**
 * The Prebid.js set-up a publisher pastes to get bids from a channel through adplane's Prebid
 * Server endpoint: prebidServerBidAdapter's s2sConfig pointed at /openrtb2/auction with the bidder
 * code `adplane` (any code listed in s2sConfig.bidders is called server side, no client adapter
 * needed), and an ad unit whose bid names the channel. A display channel's ad unit is a banner; a
 * video channel's is instream video, with the VAST cached by adplane (ext.prebid.cache.vastxml) so
 * that Prebid.js hands the player a URL. `syncEndpoint` lets adplane give the browser its id (Prebid
 * Server's cookie sync), which frequency caps count when there is no device id.
 */
export interface PrebidChannel {
  uid?: string | null;
  format?: unknown;
  timeoutMs?: unknown;
}

/** Prebid.js caps a Prebid Server call at 1500 ms unless told otherwise (s2sConfig.maxTimeout). */
const MAX_S2S_TIMEOUT = 1500;

export function prebidTimeout(timeoutMs: unknown): number {
  const ms =
    typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0 ? Math.round(timeoutMs) : 1000;
  return Math.min(ms, MAX_S2S_TIMEOUT);
}

/** The script to paste (null before the channel is saved: it needs the uid). */
export function prebidConfig(channel: PrebidChannel, host: string): string | null {
  const uid = channel.uid?.trim();
  if (!uid) return null;
  const video = channel.format === 'video';
  const endpoint = edgeUrl(host, PREBID_AUCTION_PATH);
  const timeout = prebidTimeout(channel.timeoutMs);
  const mediaTypes = video
    ? [
        `      video: {`,
        `        context: 'instream',`,
        `        playerSize: [[640, 360]], // your player's size`,
        `        mimes: ['video/mp4', 'video/webm'],`,
        `        protocols: [2, 3, 5, 6, 7, 8], // VAST 2 to 4, inline and wrapper`,
        `        plcmt: 1,`,
        `      },`,
      ]
    : [`      banner: { sizes: [[300, 250]] }, // your slot's sizes`];
  return [
    `pbjs.que.push(function () {`,
    `  pbjs.setConfig({`,
    `    s2sConfig: [{`,
    `      accountId: '${uid}', // the channel: its demand partners' user syncs`,
    `      bidders: ['adplane'],`,
    `      adapter: 'prebidServer',`,
    `      enabled: true,`,
    `      endpoint: '${endpoint}',`,
    `      syncEndpoint: '${edgeUrl(host, PREBID_COOKIE_SYNC_PATH)}', // user sync`,
    `      timeout: ${timeout},`,
    `      extPrebid: {`,
    `        targeting: { pricegranularity: 'medium' },`,
    ...(video ? [`        cache: { vastxml: { returnCreative: false } }, // VAST by URL`] : []),
    `      },`,
    `    }],`,
    `  });`,
    `  pbjs.addAdUnits([{`,
    `    code: '${video ? 'video-player' : 'div-ad-1'}', // your ad unit's code`,
    `    mediaTypes: {`,
    ...mediaTypes,
    `    },`,
    `    bids: [{ bidder: 'adplane', params: { channel: '${uid}' } }],`,
    `  }]);`,
    `});`,
  ].join('\n');
}

/**
 * The amp-ad of a display channel for AMP pages: AMP's Real Time Config calls adplane's
 * /openrtb2/amp (as it calls a Prebid Server) with the slot's sizes, page and consent filled in by
 * the AMP runtime's macros, and passes the winner's targeting keys to the page's ad server
 * (Google Ad Manager here, `type="doubleclick"`), whose Prebid line items render the cached bid.
 * Null for a video channel (AMP's RTC serves display slots) and before the channel is saved.
 */
export function ampConfig(channel: PrebidChannel, host: string): string | null {
  const uid = channel.uid?.trim();
  if (!uid || channel.format === 'video') return null;
  const query = [
    `tag_id=${encodeURIComponent(uid)}`,
    'w=ATTR(width)',
    'h=ATTR(height)',
    'ow=ATTR(data-override-width)',
    'oh=ATTR(data-override-height)',
    'ms=ATTR(data-multi-size)',
    'slot=ATTR(data-slot)',
    'targeting=TGT',
    'curl=CANONICAL_URL',
    'timeout=TIMEOUT',
    'gdpr_consent=CONSENT_STRING',
    'consent_type=CONSENT_METADATA(consentStringType)',
    'gdpr_applies=CONSENT_METADATA(gdprApplies)',
    'addtl_consent=CONSENT_METADATA(additionalConsent)',
  ].join('&');
  const rtc = JSON.stringify({ urls: [`${edgeUrl(host, PREBID_AMP_PATH)}?${query}`], timeoutMillis: 1000 });
  return [
    `<amp-ad width="300" height="250"`,
    `  type="doubleclick"`,
    `  data-slot="/1234/your-ad-unit"`,
    `  rtc-config='${rtc}'>`,
    `</amp-ad>`,
  ].join('\n');
}
