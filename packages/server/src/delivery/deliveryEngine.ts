import { type Limit } from '@adplane/shared';
import { Admission } from './admission.js';
import { DeliveryCore, type DeliveryOptions } from './deliveryCore.js';
import { Exchanger } from './exchange.js';
import { type PacingState } from './pacing.js';
import { type SharedCounters } from './sharedCounters.js';
import { localPacingState, readCampaignSpend, readDealCounts, readPacing, readTagCounts } from './spendReads.js';
import {
  type Admission as AdmissionAsk,
  type CampaignLimits,
  type CampaignSpend,
  type CountFloors,
  type DealCounts,
  type DealLimits,
  type DeliveryCounters,
  type DeliveryHealth,
  type DeliveryStats,
  type QpsScope,
  type Refusal,
  type TagCounts,
  type TagLimits,
} from './types.js';

export { type DeliveryOptions } from './deliveryCore.js';

/**
 * Delivery control over one `SharedCounters` (in this process, or Redis): the request path decides
 * on local allowances only; a background exchange (every `tickMs`, or at once when an allowance runs
 * low) sends what was spent and renews the leases. With the in-process store an exchange answers at
 * once, so a short allowance is renewed inline and the engine is exact. docs/delivery.md has the
 * scheme and its bounds.
 *
 * Its parts share one `DeliveryCore` (deliveryCore.ts: the accounts, reservations, viewers, QPS
 * buckets, and whether the shared counters answer): the admission on the request path
 * (admission.ts), the exchange in the background (exchange.ts), the restore of counts the shared
 * counters lost or never had (restore.ts), and the console's reads (spendReads.ts).
 */
export class DeliveryEngine implements DeliveryCounters {
  readonly engine: 'memory' | 'redis';
  private readonly core: DeliveryCore;
  private readonly exchange: Exchanger;
  private readonly admission: Admission;

  constructor(shared: SharedCounters, options: DeliveryOptions) {
    this.core = new DeliveryCore(shared, options);
    this.engine = this.core.engine;
    this.exchange = new Exchanger(this.core, options);
    this.admission = new Admission(this.core, this.exchange);
    shared.onNotices((n) => {
      this.core.counts.committedElsewhere += this.core.reservations.committedElsewhere(n.commits);
      this.admission.viewedElsewhere(n.views);
    });
  }

  campaignRefusal(campaign: CampaignLimits, priceMicros: number, viewer: string | null, now: number): Refusal | null {
    return this.admission.campaignRefusal(campaign, priceMicros, viewer, now);
  }

  admit(decisionId: string, admission: AdmissionAsk, now: number): Refusal | null {
    return this.admission.admit(decisionId, admission, now);
  }

  commit(decisionId: string, admission: AdmissionAsk, now: number): void {
    this.admission.commit(decisionId, admission, now);
  }

  release(decisionId: string): void {
    this.admission.release(decisionId);
  }

  dealRefusal(deal: DealLimits, now: number): Refusal | null {
    return this.admission.dealRefusal(deal, now);
  }

  takeTagRequest(tag: TagLimits, now: number): Refusal | null {
    return this.admission.takeTagRequest(tag, now);
  }

  takePostbid(tenantId: number, maxImps: number, now: number): Refusal | null {
    return this.admission.takePostbid(tenantId, maxImps, now);
  }

  postbidCount(tenantId: number, now: number): number {
    return this.admission.postbidCount(tenantId, now);
  }

  takeQps(scope: QpsScope, id: number, limit: Limit, now: number): boolean {
    return this.admission.takeQps(scope, id, limit, now);
  }

  pacingState(campaign: CampaignLimits, now: number): PacingState {
    return localPacingState(this.core, campaign, now);
  }

  readPacing(campaigns: readonly CampaignLimits[], now: number): Promise<PacingState[]> {
    return readPacing(this.core, campaigns, now);
  }

  readCampaignSpend(campaigns: readonly CampaignLimits[], now: number): Promise<CampaignSpend[]> {
    return readCampaignSpend(this.core, campaigns, now);
  }

  readTagCounts(tags: readonly TagLimits[], now: number): Promise<TagCounts[]> {
    return readTagCounts(this.core, tags, now);
  }

  readDealCounts(deals: readonly DealLimits[], now: number): Promise<DealCounts[]> {
    return readDealCounts(this.core, deals, now);
  }

  raiseCounts(floors: CountFloors, now: number): Promise<void> {
    return this.exchange.restore.raiseCounts(floors, now);
  }

  health(): DeliveryHealth {
    const { engine, state, since } = this.core;
    return { engine, redis: engine === 'memory' ? 'unused' : state, since };
  }

  stats(): DeliveryStats {
    const { counts, reservations, accounts } = this.core;
    return { ...counts, refused: { ...counts.refused }, held: reservations.size, overspend: accounts.overspend() };
  }

  flush(): Promise<void> {
    return this.exchange.flush();
  }

  close(): Promise<void> {
    return this.exchange.close();
  }
}
