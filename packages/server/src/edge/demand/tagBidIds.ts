import { resolvePartner } from '@adplane/shared';
import { type SnapTag } from '../snapshot/types.js';
import { type Bid } from './demandSource.js';

/**
 * The ids a demand tag's bids carry, which its impressions are counted under: its advertiser, and for
 * programmatic tags the name reports show as marketplace (an RTB tag's own name, a Prebid partner's
 * name in the catalogue) and a Prebid tag's partner by its catalogue id. The counters give a tag's
 * fates the same (decision/adDecision.ts), so that a tag's requests and impressions share a row.
 */
export function tagBidIds(tag: SnapTag): Pick<Bid, 'tagId' | 'advertiserId' | 'partner' | 'marketplace'> {
  if (tag.integration === 'RTB') return { tagId: tag.id, advertiserId: tag.advertiserId, marketplace: tag.name };
  if (tag.integration === 'PreBid') {
    const partner = resolvePartner(tag.partner)?.partner;
    return {
      tagId: tag.id,
      advertiserId: tag.advertiserId,
      partner: partner?.id ?? '',
      marketplace: partner?.name ?? tag.name,
    };
  }
  return { tagId: tag.id, advertiserId: tag.advertiserId };
}
