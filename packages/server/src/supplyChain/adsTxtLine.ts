import {
  adSystemDomain,
  type AdsTxtRelationship,
  type ChannelAdsTxt,
  edgeOrigin,
  tenantSellerId,
} from '@adplane/shared';
import { type User } from '../store/users.js';
import {
  profileSellers,
  rootDomainOf,
  sameSeller,
  type Seller,
  type SellersFile,
  sellerSource,
  subSeller,
  subSellerEntry,
  subSellerId,
  tenantSeller,
} from './sellers.js';

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
 * A seller id with whitespace, a comma, `#` or `;` is written URL-encoded, as ads.txt 1.1 (3.4.2)
 * asks ("no field should contain tabs, commas or whitespace, otherwise it should be escaped with URL
 * encoding"): written as it is, a comma splits the field, `#` starts a comment, `;` an extension.
 *
 * The line is checked against the sellers.json its domain serves: a warning when the file does not
 * list the seller id, or lists it for another seller (two rows saved with one id before ids were
 * checked: the file keeps the first, ./sellers.ts), since buyers would then credit the traffic to
 * that other seller.
 */

/** Field #2 as ads.txt can carry it (see above); `%` too, so that the encoded form reads back as one value. */
const adsTxtAccountField = (sellerId: string): string => sellerId.replace(/[\s,#;%]/g, (c) => encodeURIComponent(c));

const onDomain = (host: string, domain: string): boolean =>
  host !== '' && domain !== '' && (host === domain || host.endsWith(`.${domain}`));

export interface ChannelAdsTxtInput {
  channel: { domain?: unknown; subpublisherId?: unknown };
  tenant: User;
  /** The channel's subpublisher, when it has one (and it is of the same tenant). */
  sub: User | null;
  /** settings.publicHost: the operator's origin. */
  publicHost: string;
  /** The sellers.json the line's domain serves, to tell when the seller is not listed there. */
  sellersFile: SellersFile | null;
  /** The row each seller id of `sellersFile` stands for (sellersServed in ./sellers.ts), to tell when it is another seller's. */
  sellerSources?: ReadonlyMap<string, string>;
}

export function channelAdsTxt({
  channel,
  tenant,
  sub,
  publicHost,
  sellersFile,
  sellerSources,
}: ChannelAdsTxtInput): ChannelAdsTxt {
  const domain = adSystemDomain(tenant.domain, publicHost);
  const tenantDomain = adSystemDomain(tenant.domain, '');
  const sellersJsonUrl = tenantDomain
    ? `https://${tenantDomain}/sellers.json`
    : `${edgeOrigin(publicHost)}/sellers.json`;
  const channelDomain = rootDomainOf(typeof channel.domain === 'string' ? channel.domain : '');
  const warnings: string[] = [];

  let sellerId: string | null = null;
  let relationship: AdsTxtRelationship = 'RESELLER';
  let seller: ChannelAdsTxt['seller'] = null;
  /** The channel's seller: the row its id comes from (sellerSource), and its Seller object (null: not listed, e.g. inactive). */
  let own: { source: string; listed: Seller | null } | null = null;

  if (sub) {
    const entry = subSellerEntry(sub);
    const name = entry?.name || sub.name;
    if (!entry) {
      warnings.push(`The subpublisher ${sub.name} has no valid sellers.json entry: fill in its Sellers JSON tab.`);
    } else {
      sellerId = subSellerId(sub, entry);
      own = { source: sellerSource.subpublisher(sub), listed: subSeller(sub) };
      relationship =
        entry.type === 'PUBLISHER' || (entry.type === 'BOTH' && onDomain(channelDomain, rootDomainOf(sub.domain)))
          ? 'DIRECT'
          : 'RESELLER';
      if (entry.status !== 1)
        warnings.push(
          `The sellers.json entry of ${sub.name} is not active: sellers.json lists it only once it is marked Active.`,
        );
    }
    seller = { source: 'subpublisher', name };
  } else {
    const entries = profileSellers(tenant);
    const index = entries.findIndex((s) => s.domain && onDomain(channelDomain, s.domain));
    if (index >= 0) {
      const entry = entries[index];
      sellerId = entry.seller_id;
      relationship = 'DIRECT';
      seller = { source: 'profile', name: entry.name ?? entry.seller_id };
      own = { source: sellerSource.profile(tenant, index), listed: entry };
    } else {
      sellerId = tenantSellerId(tenant.id);
      seller = { source: 'tenant', name: tenant.profile.companyName || tenant.name };
      own = { source: sellerSource.tenant(tenant), listed: tenantSeller(tenant) };
    }
  }

  const listed = sellerId === null ? undefined : sellersFile?.sellers.find((s) => s.seller_id === sellerId);
  if (sellerId !== null && sellersFile && !warnings.length) {
    const source = sellerSources?.get(sellerId);
    if (!listed) {
      warnings.push(`${sellersJsonUrl} does not list seller id ${sellerId} yet.`);
    } else if (
      own &&
      source !== undefined &&
      source !== own.source &&
      !(own.listed && sameSeller(listed, own.listed))
    ) {
      const other =
        listed.is_confidential === 1
          ? 'a confidential seller'
          : `${listed.name ?? 'another seller'}${listed.domain ? ` (${listed.domain})` : ''}`;
      warnings.push(
        `${sellersJsonUrl} lists seller id ${sellerId} for another seller, ${other}: buyers would credit this channel's traffic to it. The two were saved with one id before ids were checked: give one of them an id of its own.`,
      );
    }
  }
  return {
    line: sellerId === null ? null : `${domain}, ${adsTxtAccountField(sellerId)}, ${relationship}`,
    domain,
    sellerId,
    relationship,
    seller,
    sellersJsonUrl,
    warnings,
  };
}
