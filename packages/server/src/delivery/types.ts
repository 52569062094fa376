import { type Limit } from '@adplane/shared';
import { type PacingMode, type PacingState } from './pacing.js';

/**
 * Delivery control: budgets, pacing, frequency caps and QPS limits, decided synchronously on the
 * request path from this process's local allowances; the shared counters (in this process, or Redis
 * when REDIS_URL is set) are reached in the background. docs/delivery.md tells operators how it works
 * and what it guarantees.
 */

/** Why delivery control refused: the auction trace's reason. */
export type Refusal =
  | 'daily_budget'
  | 'total_budget'
  | 'pacing'
  /** This process has no allowance yet for a budget that has some left (a lease is on its way). */
  | 'budget_lease'
  | 'frequency_cap'
  | 'daily_imp_cap'
  | 'daily_request_cap'
  | 'qps_limit'
  /** The account's post-bid pixels reached postbidMaxImps this month (UTC). */
  | 'postbid_cap'
  /** A supply deal's impressions (with the decisions waiting for theirs) reached its cap over its life, or today's. */
  | 'deal_imp_cap'
  | 'deal_daily_imp_cap';

export interface FrequencyCapRule {
  count: number;
  periodHours: number;
}

/** What delivery control needs to know of a campaign (from the snapshot). Money in micro-dollars. */
export interface CampaignLimits {
  id: number;
  /** The tenant's whole-hour offset from UTC: the campaign's day is the tenant's day. */
  timezone: number;
  dailyBudget: Limit;
  totalBudget: Limit;
  pacing: PacingMode;
  frequencyCap: FrequencyCapRule | null;
  /**
   * When the campaign was created, in whole minutes since the epoch (a small integer: the snapshot's
   * campaign objects keep it unboxed): `even` pacing spreads its first day's budget from then to
   * midnight (pacing.ts paceWindow). Absent: every day is paced whole. The tracking token does not
   * carry it: an impression's admission is rebuilt from the snapshot's campaign.
   */
  createdAtMinute?: number;
}

/** What the stats store counted before a process started (micro-dollars; impressions and calls), for `raiseCounts`. */
export interface CountFloors {
  campaigns: readonly { campaign: CampaignLimits; today: number; total: number }[];
  tags: readonly { tag: TagLimits; imps: number; calls: number }[];
  /** Accounts' post-bid impressions this month (UTC): the floor of their post-bid counts (edge/seeding/postbidCapSeed.ts). */
  postbid?: readonly { tenantId: number; count: number }[];
  /** Supply deals' impressions today (the tenant's day) and over their life. */
  deals?: readonly { deal: DealLimits; today: number; total: number }[];
}

/** A demand tag's caps: its daily requests and impressions (in the tenant's day) and its QPS. */
export interface TagLimits {
  id: number;
  timezone: number;
  qpsLimit: Limit;
  dailyRequestCap: Limit;
  dailyImpCap: Limit;
}

/**
 * A supply deal's impression caps (SSP mode: docs/programmatic.md, "Deals for buyers"): over its life
 * and per day of its tenant. Counted only while capped: an 'unlimited' cap keeps no count.
 */
export interface DealLimits {
  id: number;
  timezone: number;
  impCap: Limit;
  dailyImpCap: Limit;
}

/**
 * What one ad decision would spend: the campaign that won (its budgets, pacing, the viewer's
 * frequency) and/or the demand tag that won (its daily impressions). The same value is given to
 * `admit` at the decision and to `commit` at the impression event, so that a process that did not
 * make the decision can still count it (the tracking token carries what it needs).
 */
export interface Admission {
  campaign?: CampaignLimits | null;
  tag?: TagLimits | null;
  /** The supply deal the winning bid was made on, when it has an impression cap: one impression of it. */
  deal?: DealLimits | null;
  /** The campaign's cost of this impression, micro-dollars (the clearing CPM / 1000). */
  priceMicros: number;
  /** viewerKey(...) of the request; null: no frequency cap can apply. */
  viewer?: string | null;
}

/** A campaign's spend as the shared counters hold it (micro-dollars). */
export interface CampaignSpend {
  spentToday: number;
  /** Today's spend per hour of the tenant's day (24 entries). */
  hourly: number[];
  /** Spend over the campaign's life; counted only when it has a total budget (null otherwise). */
  totalSpent: number | null;
}

/** A demand tag's counts today (the tenant's day) as the shared counters hold them; counted only for a tag with that daily cap. */
export interface TagCounts {
  imps: number;
  requests: number;
}

/** A supply deal's impressions over its life and today (the tenant's day); each counted only for a deal with that cap. */
export interface DealCounts {
  imps: number;
  today: number;
}

export type QpsScope = 'supplier' | 'adexchange' | 'tag';

export interface DeliveryHealth {
  engine: 'memory' | 'redis';
  /** 'unused' for the in-process engine. */
  redis: 'ok' | 'down' | 'unused';
  /** Since when (ms since the epoch) the current state holds. */
  since: number;
}

/** Counters for /metrics (monotonic unless noted). Money in micro-dollars. */
export interface DeliveryStats {
  admitted: number;
  refused: Record<Refusal, number>;
  /** Reservations held now (a gauge). */
  held: number;
  /** Reservations returned unused after the hold time. */
  expired: number;
  committed: number;
  /** Impression events this process had no reservation for (decided elsewhere, or after the hold time). */
  committedUnreserved: number;
  /**
   * Spend committed beyond this process's allowance: impression events with no reservation here (a
   * decision of another process, or one past the hold time) arriving when the lease had no room. The
   * deciding process gives as much back when it hears of the commit; what it cannot is overspend.
   */
  overAllowance: number;
  /**
   * The overspend measured: over the campaign budgets this process holds, the shared spend beyond the
   * budget, as of the last exchange (a gauge; docs/delivery.md states its bound).
   */
  overspend: number;
  /** Reservations of this process that another process committed (commit notices). */
  committedElsewhere: number;
  exchanges: number;
  exchangeFailures: number;
}

export interface DeliveryCounters {
  readonly engine: 'memory' | 'redis';
  /**
   * Eligibility (campaignSource): why this campaign may not serve one impression at `priceMicros` to
   * `viewer` now (daily or total budget, pacing, frequency cap), or null. Reserves nothing.
   */
  campaignRefusal(campaign: CampaignLimits, priceMicros: number, viewer: string | null, now: number): Refusal | null;
  /**
   * The decision (the auction's winner is known, the answer is about to be written): reserves the
   * impression's price on its budgets and the viewer's frequency, or refuses. Reservations not
   * committed within the hold time are returned. `decisionId` is the tracking token's id.
   */
  admit(decisionId: string, admission: Admission, now: number): Refusal | null;
  /** The impression event (/ev, counted once): the reservation becomes spend; with none here, the spend is counted anyway. */
  commit(decisionId: string, admission: Admission, now: number): void;
  /** The decision did not go out (an error after admit): its reservation is returned at once. */
  release(decisionId: string): void;
  /**
   * Whether a supply deal may be offered on one more request: its impressions and the decisions
   * waiting for theirs are under its caps (null), or which cap is reached. Reserves nothing.
   */
  dealRefusal(deal: DealLimits, now: number): Refusal | null;
  /** A call to a demand tag: its QPS, daily request cap and daily impression cap; counts the request when allowed. */
  takeTagRequest(tag: TagLimits, now: number): Refusal | null;
  /** One request under the QPS limit of a supplier, an ad exchange or a demand tag: true when allowed (and counted). */
  takeQps(scope: QpsScope, id: number, limit: Limit, now: number): boolean;
  /**
   * Post-bid pixels on one more decision of an account (edge/postbid): its post-bid decisions this
   * calendar month (UTC) under `maxImps` (the admin's postbidMaxImps; 0: no cap, counted all the
   * same). Null when allowed, and then counted; 'postbid_cap' when the month's count has reached the
   * cap, or 'budget_lease' while this process's allowance of it is on its way. Counted as a daily
   * request cap is: a lease of the shared count, no reservation (the decision is what is counted).
   */
  takePostbid(tenantId: number, maxImps: number, now: number): Refusal | null;
  /** The account's post-bid decisions this month as this process sees them: the shared count as of the last exchange plus its own since. */
  postbidCount(tenantId: number, now: number): number;
  /** The campaign's pacing as this process sees it (the shared spend as of the last exchange, about a second old). */
  pacingState(campaign: CampaignLimits, now: number): PacingState;
  /** The campaigns' pacing read from the shared counters (for the console: any process, serving or not). */
  readPacing(campaigns: readonly CampaignLimits[], now: number): Promise<PacingState[]>;
  /** The campaigns' spend today (and per tenant-zone hour) and in total, read from the shared counters plus what this process has not sent yet. */
  readCampaignSpend(campaigns: readonly CampaignLimits[], now: number): Promise<CampaignSpend[]>;
  /** The tags' impressions and calls today, read from the shared counters plus what this process has not sent yet. */
  readTagCounts(tags: readonly TagLimits[], now: number): Promise<TagCounts[]>;
  /** Supply deals' impressions over their life and today, read from the shared counters plus what this process has not sent yet. */
  readDealCounts(deals: readonly DealLimits[], now: number): Promise<DealCounts[]>;
  health(): DeliveryHealth;
  stats(): DeliveryStats;
  /**
   * Raises the shared counts to the stats store's (never lowers them): campaigns' spend today and in
   * total, tags' impressions and calls today (deliverySeed.ts), accounts' post-bid impressions this
   * month (postbidCapSeed.ts). A count this process is using goes with its next exchange (its lease kept).
   */
  raiseCounts(floors: CountFloors, now: number): Promise<void>;
  /** Runs one exchange with the shared counters now and waits for it (tests, shutdown). */
  flush(): Promise<void>;
  /** Returns this process's leases, sends what it counted, stops the timers and closes connections. */
  close(): Promise<void>;
}

/** The logger (pino's signature). */
export interface DeliveryLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
