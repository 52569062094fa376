import { PARTNER_DATA } from './partners.data.js';
import { type PartnerDefinition } from './types.js';

/**
 * The partner catalogue: header-bidding demand partners and the parameters each takes for an ad slot,
 * generated from Prebid Server's bidder parameter schemas (scripts/gen-partners.ts), sorted by name.
 *
 * The Prebid variant: some of the 40 partners also have one (`pubmaticP`), under this rule:
 * - a partner is known by its bidder code (`pubmatic`): the company as a demand source of the ad server,
 *   bid server-to-server the way Prebid Server calls it, and the name reports show;
 * - a partner whose parameter list is a Prebid bidder's (`prebid: true`) also has a Prebid variant,
 *   `<bidder code>P` (`pubmaticP`): the same partner bidding for an ad slot through a Prebid
 *   header-bidding wrapper, which is what a tag of integration PreBid points at;
 * - both ids take the same parameters and validate with the same schema, since Prebid names a
 *   bidder's parameters once for Prebid.js and Prebid Server alike.
 * Every partner generated from the bidder-params schemas is a Prebid bidder, so all 40 have the
 * variant today; a partner added from another source (a VAST-only demand partner, say) would carry
 * `prebid: false` and no variant id. No bidder code ends in `P`, so the two kinds of id never clash.
 */
export const PREBID_VARIANT_SUFFIX = 'P';

function toPrebidVariantId(code: string): string {
  return `${code}${PREBID_VARIANT_SUFFIX}`;
}

export const PARTNERS: readonly PartnerDefinition[] = PARTNER_DATA.map((p) => ({
  ...p,
  prebidVariantId: p.prebid ? toPrebidVariantId(p.id) : null,
}));

/** Partners by bidder code. */
export const PARTNER_BY_ID: ReadonlyMap<string, PartnerDefinition> = new Map(PARTNERS.map((p) => [p.id, p]));

const BY_VARIANT_ID: ReadonlyMap<string, PartnerDefinition> = new Map(
  PARTNERS.filter((p) => p.prebidVariantId !== null).map((p) => [p.prebidVariantId as string, p]),
);

/** A partner id as tags store it (`pubmatic` or `pubmaticP`), resolved to the partner and which of its two kinds the id names. */
export interface ResolvedPartner {
  readonly partner: PartnerDefinition;
  readonly prebid: boolean;
}

export function resolvePartner(id: string): ResolvedPartner | undefined {
  const direct = PARTNER_BY_ID.get(id);
  if (direct) return { partner: direct, prebid: false };
  const variant = BY_VARIANT_ID.get(id);
  return variant ? { partner: variant, prebid: true } : undefined;
}

/** The partner of a bidder code or of a Prebid variant id. */
export function partnerById(id: string): PartnerDefinition | undefined {
  return resolvePartner(id)?.partner;
}

/** True for a bidder code of the catalogue and for the id of a Prebid variant. */
export function isPartner(id: unknown): id is string {
  return typeof id === 'string' && resolvePartner(id) !== undefined;
}

/** What a PreBid tag's partner select offers: one entry per Prebid variant, `{ id: 'pubmaticP', name: 'PubMatic' }`. */
export const PREBID_PARTNER_OPTIONS: readonly { readonly id: string; readonly name: string }[] = PARTNERS.filter(
  (p) => p.prebidVariantId !== null,
).map((p) => ({
  id: p.prebidVariantId as string,
  name: p.name,
}));
