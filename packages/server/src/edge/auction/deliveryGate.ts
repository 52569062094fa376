import { type Limit } from '@adplane/shared';
import { DeliveryEngine } from '../../delivery/deliveryEngine.js';
import { MemoryCounterStore, MemoryShared } from '../../delivery/sharedCounters.js';
import { viewerKey } from '../../delivery/frequency.js';
import { gdprApplies, gppSectionIds } from '../ortb/privacy.js';
import { type Admission, type DeliveryCounters, type Refusal, type TagLimits } from '../../delivery/types.js';
import { type RequestContext } from '../request/context.js';
import { type SnapCampaign, type SnapSupplyDeal, type SnapTag } from '../snapshot/types.js';

/**
 * The edge's gate to delivery control (packages/server/src/delivery, docs/delivery.md): whether a
 * campaign, a demand tag, a supplier or an ad exchange may take one more request or impression, asked
 * by the auction's call sites in snapshot rows. A compiled campaign is its own limits (it carries its tenant's
 * zone); a tag's limits are memoised per row object (a snapshot build makes new rows, so a changed
 * cap is seen at the next build).
 */
export class DeliveryGate {
  private readonly tagLimits = new WeakMap<SnapTag, TagLimits>();
  private readonly viewers = new WeakMap<RequestContext, string>();

  /** Without counters (unit tests of the auction): an in-process engine of its own, exact for this process. */
  constructor(readonly delivery: DeliveryCounters = inProcessCounters()) {}

  limitsOfTag(tag: SnapTag, timezone: number): TagLimits {
    let limits = this.tagLimits.get(tag);
    if (!limits || limits.timezone !== timezone) {
      limits = {
        id: tag.id,
        timezone,
        qpsLimit: tag.qpsLimit,
        dailyRequestCap: tag.dailyRequestCap,
        dailyImpCap: tag.dailyImpCap,
      };
      this.tagLimits.set(tag, limits);
    }
    return limits;
  }

  /**
   * The viewer a frequency cap counts: the device id (VAST macro or OpenRTB ifa), else adplane's id
   * for the browser (not where the GDPR applies: adplane, no TCF vendor, uses no id there), else a
   * hash of IP and user agent.
   */
  viewerOf(ctx: RequestContext): string {
    let viewer = this.viewers.get(ctx);
    if (viewer === undefined) {
      const userId = ctx.userId && !gdprApplies(ctx.query.gdpr, gppSectionIds(ctx.query.gppSid)) ? ctx.userId : '';
      viewer = viewerKey(ctx.query.deviceId || ctx.ortb?.request.device?.ifa, ctx.ip, ctx.ua, userId);
      this.viewers.set(ctx, viewer);
    }
    return viewer;
  }

  /** Counts one call to a tag when its QPS and daily caps (in its tenant's day) allow it; the refusal reason otherwise. */
  takeTagRequest(tag: SnapTag, timezone: number, now: number): Refusal | null {
    return this.delivery.takeTagRequest(this.limitsOfTag(tag, timezone), now);
  }

  /** Counts one bid request from a supplier (DSP mode) when its QPS limit allows it; false when over. */
  takeSupplierRequest(supplierId: number, qpsLimit: Limit, now: number): boolean {
    return this.delivery.takeQps('supplier', supplierId, qpsLimit, now);
  }

  /** Counts one bid request sent to an ad exchange (DSP mode) when its QPS limit allows it; the refusal reason otherwise. */
  takeExchangeRequest(exchangeId: number, qpsLimit: Limit, now: number): Refusal | null {
    return this.delivery.takeQps('adexchange', exchangeId, qpsLimit, now) ? null : 'qps_limit';
  }

  /** Whether one more impression at `cpm` fits the campaign's budgets, pacing and the viewer's frequency cap. Reserves nothing. */
  campaignRefusal(campaign: SnapCampaign, cpm: number, ctx: RequestContext): Refusal | null {
    return this.delivery.campaignRefusal(
      campaign,
      Math.round(cpm / 1000),
      campaign.frequencyCap ? this.viewerOf(ctx) : null,
      ctx.now,
    );
  }

  /**
   * Whether a supply deal may be offered on one more request (its impression caps: the deal is its
   * own limits); null at once for a deal without caps. Reserves nothing.
   */
  dealRefusal(deal: SnapSupplyDeal, now: number): Refusal | null {
    return dealCapped(deal) ? this.delivery.dealRefusal(deal, now) : null;
  }

  /**
   * What a decision spends, the same at `admit` and at the impression's `commit`: the campaign's
   * limits, the tag's, the price (micro-dollars, rounded as the stats store rounds revenue) and the
   * viewer when a frequency cap counts one; the supply deal its bid was made on, when capped.
   */
  admission(
    campaign: SnapCampaign | null,
    tag: SnapTag | null,
    timezone: number,
    revenueCpm: number,
    viewer: string,
    deal: SnapSupplyDeal | null = null,
  ): Admission {
    return {
      campaign,
      tag: tag ? this.limitsOfTag(tag, timezone) : null,
      deal: deal && dealCapped(deal) ? deal : null,
      priceMicros: Math.round(revenueCpm / 1000),
      viewer: campaign?.frequencyCap && viewer ? viewer : null,
    };
  }
}

/** Whether a supply deal has an impression cap (delivery control counts it only then). */
export const dealCapped = (deal: Pick<SnapSupplyDeal, 'impCap' | 'dailyImpCap'>): boolean =>
  deal.impCap !== 'unlimited' || deal.dailyImpCap !== 'unlimited';

/** Counters of this process alone (exact here), for an edge part built without the app's (unit tests). */
export function inProcessCounters(): DeliveryCounters {
  const log = { info() {}, warn() {}, error() {} };
  return new DeliveryEngine(new MemoryShared(new MemoryCounterStore(), 'local', 5_000), { log });
}
