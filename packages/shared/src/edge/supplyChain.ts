/**
 * One rule for the supply-chain ids that sellers.json, the ads.txt line a publisher adds, and the
 * `source.schain` node of every outbound bid request must agree on (if they differ, buyers drop the
 * traffic as unauthorised):
 *
 * - the advertising system's domain is the tenant's own domain (its "channel domain" in the
 *   profile) when set, else the host of the edge's public address;
 * - a subpublisher's seller id is the id of its sellers.json entry when it set one, else its account
 *   id; a tenant's own inventory (a channel without a subpublisher) is sold under the tenant's account id.
 *   Account ids are unique across all accounts; entry ids are free text, so the server refuses one
 *   that another seller has or that is digits alone (server supplyChain/sellerIds.ts).
 */
export function adSystemDomain(tenantDomain: string | null | undefined, publicHost: string): string {
  const own = hostName(tenantDomain ?? '');
  return own || hostName(publicHost);
}

export function subpublisherSellerId(subpublisherId: number, entry: { id?: string } | null | undefined): string {
  const id = entry?.id?.trim();
  return id || String(subpublisherId);
}

export function tenantSellerId(tenantId: number): string {
  return String(tenantId);
}

/** `https://Ads.Example.com:8443/x` -> `ads.example.com`; '' when it is not a host name. */
function hostName(value: string): string {
  const v = value
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '');
  return /^[a-z0-9.-]{1,253}$/.test(v) ? v : '';
}
