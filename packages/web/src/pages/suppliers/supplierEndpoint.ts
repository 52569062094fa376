import { edgeUrl, supplierBidPath } from '@adplane/shared';

/**
 * The URL a supplier sends its OpenRTB bid requests to: the console's public host, then
 * `/rtb/bid/<uid>` (the edge's route, packages/shared edge/paths.ts). A bare host gets https, since a
 * partner cannot use an endpoint without one.
 */
export function supplierEndpoint(host: string, uid: string): string {
  return edgeUrl(host, supplierBidPath(uid));
}
