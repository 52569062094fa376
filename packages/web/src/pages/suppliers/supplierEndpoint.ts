/**
 * The URL a supplier sends its OpenRTB bid requests to: the console's public host, then
 * `/rtb/bid/<uid>`. The host is configured with its scheme (`https://ads.example.com`); a bare host
 * gets https, since a partner cannot use an endpoint without one.
 */
export function supplierEndpoint(host: string, uid: string): string {
  const base = host.trim().replace(/\/+$/, '');
  const origin = /^https?:\/\//i.test(base) ? base : `https://${base}`;
  return `${origin}/rtb/bid/${encodeURIComponent(uid)}`;
}
