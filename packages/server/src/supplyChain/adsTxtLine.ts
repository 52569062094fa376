import { adSystemDomain, type AdsTxtRelationship, type ChannelAdsTxt, edgeOrigin, tenantSellerId } from '@adplane/shared';
import { type User } from '../store/users.js';
import { profileSellers, rootDomainOf, type SellersFile, subSellerEntry, subSellerId } from './sellers.js';

/**
 * The ads.txt line of a channel: `<our domain>, <seller id>, DIRECT|RESELLER` (ads.txt 1.1, 3.3).
 * Field #1 is the domain whose /sellers.json lists the seller: the tenant's domain, else the
 * operator's host. Field #2 is the seller id that file lists for the channel (./sellers.ts):
 * The domain and ids follow the one rule of shared edge/supplyChain.ts (schain nodes use it too).
 * - with a subpublisher: its sellers.json id (else its account id). DIRECT when it is a PUBLISHER (the publisher itself
 *   holds the account), RESELLER when it is an INTERMEDIARY (someone else holds the account and
 *   resells the site); for BOTH, DIRECT on the subpublisher's own domain, RESELLER elsewhere;
 * - without one: an entry of the tenant's profile for the channel's domain (the tenant's own site:
 *   DIRECT), else the tenant's own account id: the tenant holds that account and resells the
 *   publisher's site through it, so RESELLER.
 * Field #4 (certification authority id) is left out: it is optional and superseded by sellers.json.
 */

const onDomain = (host: string, domain: string): boolean => host !== '' && domain !== '' && (host === domain || host.endsWith(`.${domain}`));

export interface ChannelAdsTxtInput {
  channel: { domain?: unknown; subpublisherId?: unknown };
  tenant: User;
  /** The channel's subpublisher, when it has one (and it is of the same tenant). */
  sub: User | null;
  /** settings.publicHost: the operator's origin. */
  publicHost: string;
  /** The sellers.json the line's domain serves, to tell when the seller is not listed there. */
  sellersFile: SellersFile | null;
}

export function channelAdsTxt({ channel, tenant, sub, publicHost, sellersFile }: ChannelAdsTxtInput): ChannelAdsTxt {
  const domain = adSystemDomain(tenant.domain, publicHost);
  const tenantDomain = adSystemDomain(tenant.domain, '');
  const sellersJsonUrl = tenantDomain ? `https://${tenantDomain}/sellers.json` : `${edgeOrigin(publicHost)}/sellers.json`;
  const channelDomain = rootDomainOf(typeof channel.domain === 'string' ? channel.domain : '');
  const warnings: string[] = [];

  let sellerId: string | null = null;
  let relationship: AdsTxtRelationship = 'RESELLER';
  let seller: ChannelAdsTxt['seller'] = null;

  if (sub) {
    const entry = subSellerEntry(sub);
    const name = entry?.name || sub.name;
    if (!entry) {
      warnings.push(`The subpublisher ${sub.name} has no valid sellers.json entry: fill in its Sellers JSON tab.`);
    } else {
      sellerId = subSellerId(sub, entry);
      relationship = entry.type === 'PUBLISHER' || (entry.type === 'BOTH' && onDomain(channelDomain, rootDomainOf(sub.domain))) ? 'DIRECT' : 'RESELLER';
      if (entry.status !== 1) warnings.push(`The sellers.json entry of ${sub.name} is not active: sellers.json lists it only once it is marked Active.`);
    }
    seller = { source: 'subpublisher', name };
  } else {
    const own = profileSellers(tenant).find((s) => s.domain && onDomain(channelDomain, s.domain));
    if (own) {
      sellerId = own.seller_id;
      relationship = 'DIRECT';
      seller = { source: 'profile', name: own.name ?? own.seller_id };
    } else {
      sellerId = tenantSellerId(tenant.id);
      seller = { source: 'tenant', name: tenant.profile.companyName || tenant.name };
    }
  }

  if (sellerId !== null && sellersFile && !sellersFile.sellers.some((s) => s.seller_id === sellerId) && !warnings.length) {
    warnings.push(`${sellersJsonUrl} does not list seller id ${sellerId} yet.`);
  }
  return {
    line: sellerId === null ? null : `${domain}, ${sellerId}, ${relationship}`,
    domain,
    sellerId,
    relationship,
    seller,
    sellersJsonUrl,
    warnings,
  };
}
