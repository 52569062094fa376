import { CAMPAIGN_PRIORITY, eligibility, explained } from '../../demand/campaignSource.js';
import { type AuctionRequest, type Bid, type DemandCandidate, type DemandSource } from '../../demand/demandSource.js';
import { type SnapCampaign, type SnapCreative, type SnapDeal, type Snapshot } from '../../snapshot/types.js';
import { type SourceFate } from '@adplane/shared';

/**
 * Our campaigns bidding through the deals a bid request offers (DSP mode). A campaign buys through
 * the deals it names (its `dealIds`; the console's "Deals" field, "none = open auction only"), on top
 * of the open auction that demand/campaignSource.ts runs: only the campaigns naming a deal bid on
 * it, at the deal's terms. The bid carries the deal id, so the auction holds it to that deal's floor
 * (auction/runAuction.ts) and the answer names the deal. A fixed-price deal is bought at its price,
 * by a campaign whose bid reaches it; other deals at the campaign's bid.
 *
 * Campaigns per deal come from an index built once per snapshot (a book of 100,000 campaigns holds
 * few that name deals), best bid first, so a request looks at the few campaigns of its deals.
 */
const PER_DEAL = 8;
const byDeal = new WeakMap<Snapshot, Map<number, SnapCampaign[]>>();

function campaignsByDeal(snapshot: Snapshot): Map<number, SnapCampaign[]> {
  let index = byDeal.get(snapshot);
  if (index) return index;
  index = new Map();
  for (const c of snapshot.campaigns.values()) {
    if (!c.dealIds?.length) continue;
    for (const id of c.dealIds) {
      let list = index.get(id);
      if (!list) index.set(id, (list = []));
      list.push(c);
    }
  }
  for (const list of index.values()) list.sort((a, b) => b.bidCpm - a.bidCpm);
  byDeal.set(snapshot, index);
  return index;
}

function candidateOf(campaign: SnapCampaign, creative: SnapCreative, deal: SnapDeal): DemandCandidate {
  const fixed = deal.auctionType === 3;
  const price = fixed && campaign.bidCpm >= deal.floorCpm ? deal.floorCpm : campaign.bidCpm;
  const bid: Bid = {
    priceCpm: price,
    fixedPrice: fixed,
    markup: { kind: 'campaign', campaign, creative },
    tagId: 0,
    campaignId: campaign.id,
    creativeId: creative.id,
    advertiserId: campaign.advertiserId,
    dealId: deal.dealId,
  };
  const answer = Promise.resolve({ kind: 'bid' as const, ms: 0, bid });
  return {
    source: 'campaign',
    id: campaign.id,
    name: `${campaign.name} (deal ${deal.dealId})`,
    priority: CAMPAIGN_PRIORITY,
    floorCpm: deal.floorCpm,
    external: false,
    call: () => answer,
  };
}

export const dealCampaignSource: DemandSource = {
  name: 'deal_campaigns',
  candidates(req: AuctionRequest, filtered) {
    if (!req.deals.length) return { candidates: [], indexedOut: 0 };
    const index = campaignsByDeal(req.snapshot);
    const out: DemandCandidate[] = [];
    for (const deal of req.deals) {
      const campaigns = index.get(deal.id);
      if (!campaigns) continue;
      let taken = 0;
      for (const campaign of campaigns) {
        if (campaign.tenantId !== deal.tenantId) continue;
        // a deal's bid is held to the deal's own floor per second (none at a fixed price), not the open auction's
        const found = eligibility(campaign, req, { perSecond: deal.floorPerSecondCpm ?? 0, byLength: null });
        if (typeof found === 'string') {
          const fate: SourceFate = {
            source: 'campaign',
            id: campaign.id,
            name: campaign.name,
            priority: CAMPAIGN_PRIORITY,
            fate: 'filtered',
            reason: `deal.${found}`,
            dealId: deal.dealId,
          };
          filtered(req.traced !== false ? explained(fate, campaign, req, found) : fate);
          continue;
        }
        out.push(candidateOf(campaign, found, deal));
        if (++taken >= PER_DEAL) break;
      }
    }
    return { candidates: out, indexedOut: 0 };
  },
};
