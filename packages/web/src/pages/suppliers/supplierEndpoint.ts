import { edgeUrl, supplierBidPath, supplierSyncPath } from '@adplane/shared';

/**
 * The URL a supplier sends its OpenRTB bid requests to: the console's public host, then
 * `/rtb/bid/<uid>` (the edge's route, packages/shared edge/paths.ts). A bare host gets https, since a
 * partner cannot use an endpoint without one.
 */
export function supplierEndpoint(host: string, uid: string): string {
  return edgeUrl(host, supplierBidPath(uid));
}

/**
 * The supplier's user-sync pixel: `/rtb/sync/<uid>` on the public host. A browser that loads it gets
 * adplane's id and is sent on to the supplier's user-sync URL with it; the privacy macros the
 * supplier fills are in the query, in the spelling most exchanges use (a macro it leaves unfilled
 * reads as absent).
 */
export function supplierSyncPixel(host: string, uid: string): string {
  return `${edgeUrl(host, supplierSyncPath(uid))}?gdpr=\${GDPR}&gdpr_consent=\${GDPR_CONSENT}&us_privacy=\${US_PRIVACY}&gpp=\${GPP}&gpp_sid=\${GPP_SID}`;
}
