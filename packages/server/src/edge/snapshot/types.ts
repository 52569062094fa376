import {
  type CompiledFloorRules,
  type DynamicFloorBasis,
  type FloorInForce,
  type Limit,
  type NotServingCode,
  type Price,
  type VastVersion,
} from '@adplane/shared';
import { type PostbidSnapshot } from './postbidPlan.js';
import { type CampaignIndex } from '../targeting/campaignIndex.js';
import { type ChannelAssignment } from '../targeting/channelAssignment.js';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type FrequencyCapRule } from '../../delivery/types.js';
import { type PacingMode } from '../../delivery/pacing.js';

/**
 * How a channel treats the pre-bid IVT check (docs/traffic-quality.md): not checked, checked and
 * flagged requests served but counted as IVT, or checked and flagged requests answered empty.
 */
export type IvtMode = 'off' | 'count' | 'block';

/**
 * The edge's immutable, typed view of the config store: everything a decision reads, compiled once
 * (money in micro-dollars, targeting compiled, rows that must not serve already dropped) and
 * swapped whole when the config changes. A request never touches the config database.
 */
export interface SnapTenant {
  id: number;
  name: string;
  /** Whole hours from UTC: flight days start and end in it. */
  timezone: number;
  /** The tenant's DSP view: without it, its campaigns (DSP mode) do not serve (shared entitlements.ts). */
  showDsp: boolean;
  /**
   * The tenant's own domain (its "channel domain"), '' when unset: the advertising system's domain of
   * its schain nodes (shared edge/supplyChain.ts). Absent in hand-built snapshots.
   */
  domain?: string;
  /**
   * The account's IVT options in force for every channel and supplier of the tenant (ivtModeOf in
   * ./accounts.ts: setCheckIVTAll counts, blockIVT blocks, both only while the admin grants
   * showCheckIVT). Absent: 'off'.
   */
  ivt?: IvtMode;
  /** The account's floor rules (its profile's), compiled: the default of every channel without its own. Absent: none. */
  floorRules?: CompiledFloorRules;
}

export interface SnapCreative {
  id: number;
  tenantId: number;
  name: string;
  advertiserId: number;
  format: 'video' | 'display';
  videoSource: 'media' | 'vast';
  mediaFiles: { url: string; mime: string; duration: number; width: number; height: number; bitrate: number }[];
  vastUrl: string;
  duration: number;
  displayType: 'image' | 'html';
  imageUrl: string;
  html: string;
  width: number;
  height: number;
  clickUrl: string;
  adomain: readonly string[];
  iabCategories: readonly string[];
  /** Seconds after which the player offers to skip our media (skipoffset); absent or 0: not skippable. */
  skipAfter?: number;
}

/**
 * Ad categories a channel's (or a supplier's) targeting blocks, compiled against the tenant's
 * creatives (./categoryBlocks.ts): `creatives` holds the ids of those whose IAB categories are blocked.
 */
export interface CategoryBlocks {
  /** IAB 1.0 codes, a tier-1 code blocking its sub-categories: what demand's ads are refused by and sent as `bcat`. */
  categories: readonly string[];
  creatives: ReadonlySet<number>;
}

/** The flight end of a campaign without an end date (hours since the epoch: year 124,000), a small integer as the others. */
export const OPEN_FLIGHT_END = 2 ** 30 - 1;

/** A compiled campaign; it is also the campaign's limits for delivery control (`CampaignLimits`: id, timezone, budgets, pacing, frequency cap). */
export interface SnapCampaign {
  id: number;
  tenantId: number;
  name: string;
  advertiserId: number;
  advertiserName: string;
  /**
   * Flight in whole hours since the epoch (a flight day starts at 00:00 in the tenant's whole-hour
   * zone): [start, end), end OPEN_FLIGHT_END when open. Hours stay small integers, which V8 keeps in
   * the object itself; milliseconds would be a boxed number each, 180,000 more objects in a book of
   * 90,000 campaigns for every full collection to mark.
   */
  flightStartHour: number;
  flightEndHour: number;
  /** The tenant's whole-hour offset from UTC: the campaign's days are the tenant's (delivery control's `CampaignLimits`). */
  timezone: number;
  totalBudget: Limit;
  dailyBudget: Limit;
  /** How the daily budget is spent (delivery control). */
  pacing: PacingMode;
  /** Impressions per viewer per period; null: no cap. */
  frequencyCap: FrequencyCapRule | null;
  /**
   * When the campaign was created (its row's created_at), in whole minutes since the epoch: a small
   * integer, as the flight hours are. Even pacing spreads its first day's budget from then to midnight
   * (delivery control's `CampaignLimits`). Absent in hand-built snapshots: its days are paced whole.
   */
  createdAtMinute?: number;
  bidCpm: number;
  targeting: CompiledTargeting | null;
  creatives: readonly SnapCreative[];
  /**
   * DSP mode: the deals (row ids) it may buy through, besides the open auction, and the suppliers
   * it buys from (empty: every supplier of the tenant). Absent reads as empty.
   */
  dealIds?: readonly number[];
  supplierIds?: readonly number[];
  /**
   * The tenant's channels it runs on (targeting/channelAssignment.ts): null or absent, every one; the
   * tenant's index compiles it as one more dimension (targeting/campaignIndex.ts), keyed by channel.
   */
  channels?: ChannelAssignment | null;
}

export interface SnapTag {
  id: number;
  tenantId: number;
  name: string;
  integration: 'VAST' | 'RTB' | 'PreBid';
  vastUrl: string;
  /** RTB: the OpenRTB 2.6 endpoint. */
  endpoint: string;
  /** PreBid: the catalogue's partner code and its validated parameters. */
  partner: string;
  partnerParams: Readonly<Record<string, unknown>>;
  price: Price;
  floorCpm: number;
  timeoutMs: number;
  qpsLimit: Limit;
  dailyRequestCap: Limit;
  dailyImpCap: Limit;
  advertiserId: number;
  targeting: CompiledTargeting | null;
  /** RTB: the partner's user-sync URL ('' for none): cookie_sync hands it out, /setuid keeps its id (doors/prebidServer/userSync.ts). */
  userSyncUrl: string;
}

/** A demand tag as a channel lists it. */
export interface SnapDemand {
  tag: SnapTag;
  priority: number;
  /** Kept where it was put by an optimised order. */
  pinned?: boolean;
}

/** A channel's optimised demand order, compiled (shared DemandOptimisation). */
interface SnapOptimisation {
  explorePercent: number;
  windowMs: number;
  maxCalls: number | null;
  timeoutCostCpm: number;
}

export interface SnapChannel {
  id: number;
  uid: string;
  tenantId: number;
  subpublisherId: number;
  name: string;
  /** False for a paused or archived channel (or one under a paused account): answered empty, counted. */
  serving: boolean;
  integration: 'VAST' | 'RTB' | 'PreBid';
  environment: 'ctv' | 'app' | 'web';
  format: 'video' | 'display';
  vastVersion: VastVersion;
  /** The floor demand is held to; on a decision's copy, the floor in force (`floorInForce`). */
  floorCpm: number;
  /**
   * Floor rules by the request (the channel's own, its dynamic floors' table, else its account's),
   * compiled with the snapshot: a request's floor is the rule it matches (decision/floorInForce.ts).
   * Absent: `floorCpm` alone.
   */
  floorRules?: {
    rules: CompiledFloorRules;
    source: 'channel' | 'account' | 'dynamic';
    /** A dynamic channel's: how each rule (by key; '*' the default) was computed. */
    dynamic?: ReadonlyMap<string, DynamicFloorBasis>;
  };
  /** Set on a decision's copy of the channel once the request's floor was picked: what `floorCpm` came from. */
  floorInForce?: FloorInForce;
  payout: Price;
  demandMode: 'auction' | 'priority';
  auctionPrice: 'first' | 'second';
  timeoutMs: number;
  targeting: CompiledTargeting | null;
  /**
   * The ad categories its targeting blocks and the tenant's creatives they block (a supplier's
   * channel: the supplier's); absent when none. Compiled with the snapshot (./categoryBlocks.ts).
   */
  categoryBlocks?: CategoryBlocks;
  /** Live demand tags the channel calls, with the channel's priority for each. */
  demand: readonly SnapDemand[];
  /** An optimised demand order (decision/demandOrder.ts); absent: the tags are called as set. */
  optimise?: SnapOptimisation;
  /** A channel split A/B: which arm this is (A the channel's own configuration, B its split's); absent: not split. */
  arm?: 'A' | 'B';
  /** On arm A: the share of requests arm B serves, and arm B's channel (decision/abSplit.ts). */
  split?: { percent: number; b: SnapChannel };
  /**
   * On a decision's copy of an optimised auction with a cap on calls: its tags are called in sets,
   * by priority (set 1 first, with our campaigns), the next when none fills (auction/runAuction.ts).
   */
  auctionSets?: true;
  /** Tags the channel lists that cannot serve (paused, archived, invalid), for the trace. */
  idleTags: readonly { id: number; reason: string }[];
  /**
   * The seller id its inventory is sold under (its subpublisher's sellers.json id, else the account
   * id; the tenant's for its own inventory): the `sid` of our schain node and `publisher.id` of
   * outbound bid requests. Absent on channels built by hand (a tag test, a supplier's impression):
   * read it through `channelSellerId`.
   */
  sellerId?: string;
  /**
   * The IVT check this channel's requests get: its own blockIVT, else the tenant's options (compiled,
   * so a request reads one field). Absent ('off'): not checked, as for a demand tag tested alone.
   */
  ivt?: IvtMode;
}

/** An SDK app (SDK Admin): its key is the row's uid, which the app's VAST requests carry as `app_key`. */
interface SnapSdkApp {
  id: number;
  tenantId: number;
  bundle: string;
  /** Active and not archived: a paused or archived app's key is revoked. */
  serving: boolean;
}

/** A supplier (DSP mode) that posts OpenRTB bid requests to `/rtb/bid/<uid>`. */
export interface SnapSupplier {
  id: number;
  uid: string;
  tenantId: number;
  name: string;
  /** False when paused, archived, or its tenant cannot trade (no DSP view): answered no-bid, counted. */
  serving: boolean;
  qpsLimit: Limit;
  /** Our margin on what the supplier's request earns: its bid is the demand's price less this share. */
  marginPercent: number;
  formats: readonly ('video' | 'display')[];
  targeting: CompiledTargeting | null;
  /** The ad categories its targeting blocks and the tenant's creatives they block; absent when none (its channel carries them). */
  categoryBlocks?: CategoryBlocks;
  /** Its user-sync URL with the id's macro ('' for none): where `/rtb/sync/<uid>` sends a browser (doors/openrtbBidder/supplierSync.ts). */
  userSyncUrl: string;
}

/** An ad exchange (DSP mode) the tenant sends OpenRTB bid requests to. */
export interface SnapAdExchange {
  id: number;
  tenantId: number;
  name: string;
  endpoint: string;
  tmaxMs: number;
  qpsLimit: Limit;
  /** Our seat id at the exchange ('' when none). */
  seat: string;
  marginPercent: number;
  targeting: CompiledTargeting | null;
}

/** A private-marketplace deal (DSP mode). `start`/`end` in ms since the epoch, whole days in the tenant's zone. */
export interface SnapDeal {
  id: number;
  tenantId: number;
  name: string;
  dealId: string;
  floorCpm: number;
  /** 1 first price, 2 second price, 3 fixed price (the floor is the price). */
  auctionType: 1 | 2 | 3;
  buyerSeats: readonly string[];
  /** Suppliers that may send it; empty means any of the tenant's. */
  supplierIds: readonly number[];
  start: number;
  end: number;
  /** The advertiser domains allowed to buy it (OpenRTB `wadomain`): a supply deal's; absent or empty: any. */
  advertiserDomains?: readonly string[];
  /**
   * Offered in a bid request only (matchDeals): the request deal's floor per second of the ad
   * (OpenRTB 2.6 deal.mincpmpersec, else the video's), in demand's money; absent or 0: none.
   */
  floorPerSecondCpm?: number;
}

/**
 * A supply deal (SSP mode): the tenant's supply sold to buyers under a deal, offered in the bid
 * requests of the RTB and Prebid tags it names (`tagIds`; empty: every one its channel calls).
 * `buyerSeats` and `advertiserDomains` are its `wseat` and `wadomain`, which a bid on it must meet;
 * `supplierIds` is always empty (a DSP deal's field).
 */
export interface SnapSupplyDeal extends SnapDeal {
  /** The impression takes deal bids only while this deal is in force on it (imp.pmp.private_auction = 1). */
  privateAuction: boolean;
  advertiserDomains: readonly string[];
  tagIds: readonly number[];
  /** Narrows the channels it covers to the requests it lets through; null: every request of them. */
  targeting: CompiledTargeting | null;
  /**
   * Its impression caps, over its life and per day of its tenant (`timezone`, whole hours from UTC):
   * delivery control's `DealLimits` (delivery/types.ts), so the deal is its own limits.
   */
  impCap: Limit;
  dailyImpCap: Limit;
  timezone: number;
}

export interface Snapshot {
  /** The config version it was compiled from. */
  version: number;
  builtAt: number;
  buildMs: number;
  tenants: ReadonlyMap<number, SnapTenant>;
  channelsByUid: ReadonlyMap<string, SnapChannel>;
  channels: ReadonlyMap<number, SnapChannel>;
  tags: ReadonlyMap<number, SnapTag>;
  campaigns: ReadonlyMap<number, SnapCampaign>;
  creatives: ReadonlyMap<number, SnapCreative>;
  suppliersByUid: ReadonlyMap<string, SnapSupplier>;
  /** Every SDK app by its key, revoked ones too (to say why); absent: none (hand-built snapshots). */
  sdkAppsByKey?: ReadonlyMap<string, SnapSdkApp>;
  /** Live ad exchanges per tenant (tenants with the DSP view only). */
  adExchanges: ReadonlyMap<number, readonly SnapAdExchange[]>;
  /** Live deals per tenant, by OpenRTB deal id. */
  deals: ReadonlyMap<number, ReadonlyMap<string, SnapDeal>>;
  /** Live supply deals by the channel they cover (compileSupplyDeals); absent: none (hand-built snapshots). */
  supplyDeals?: ReadonlyMap<number, readonly SnapSupplyDeal[]>;
  /** Each tenant's live campaigns behind targeting indexes. */
  campaignIndex: ReadonlyMap<number, CampaignIndex<SnapCampaign>>;
  /** Stored rows the current schema rejected, per kind (skipped, never fatal). */
  skipped: Readonly<Record<string, number>>;
  /** Post-bid pixels by channel and account, and the monthly cap (edge/postbid/); absent: none (hand-built snapshots). */
  postbid?: PostbidSnapshot;
  /**
   * Campaigns and demand tags that left the snapshot (paused, archived, their flight over) while
   * this process served them, as they last were, for a day (snapshot/departed.ts): an impression
   * decided before they left still books its spend, caps and frequency on whichever process hears
   * it. Absent: none known (the first build, hand-built snapshots).
   */
  departed?: Departed;
  /**
   * The first build of a process only: what it would have seen leave in the last day had it been
   * running, read from the store (paused or archived since, by updated_at; flights over since), with
   * when each left. The holder adds them to what it keeps as departed and drops this field.
   */
  leftBeforeStart?: LeftBeforeStart;
  /** What this build set aside and why (SetAside); absent in hand-built snapshots. */
  setAside?: SetAside;
}

/**
 * One reason an entity does not serve: a code of the shared contract (NOT_SERVING_REASONS in
 * packages/shared/src/delivery/deliveryState.ts, which holds its sentence) and what it concerns when
 * there is more to say (the names of the creatives pending approval, a flight's end date).
 */
export interface SetAsideReason {
  code: NotServingCode;
  detail?: string;
}

/**
 * What a build set aside, by kind and row id, with every reason: rows it left out (paused, archived,
 * under a stopped account, a campaign without a creative that can serve or whose flight is over) and
 * rows it compiled that nothing can reach (a tag on no serving channel, a channel with no demand, a
 * creative or deal no serving campaign uses). A row not listed was compiled and can be reached; the
 * rules of the moment (a flight not started yet, budgets, caps, pacing) are delivery control's and the
 * request's, read at the time asked (setAside.ts `deliveryStates`).
 */
export interface SetAside {
  campaigns: ReadonlyMap<number, readonly SetAsideReason[]>;
  creatives: ReadonlyMap<number, readonly SetAsideReason[]>;
  tags: ReadonlyMap<number, readonly SetAsideReason[]>;
  channels: ReadonlyMap<number, readonly SetAsideReason[]>;
  deals: ReadonlyMap<number, readonly SetAsideReason[]>;
  supplydeals: ReadonlyMap<number, readonly SetAsideReason[]>;
}

export interface Departed {
  campaigns: ReadonlyMap<number, SnapCampaign>;
  tags: ReadonlyMap<number, SnapTag>;
}

/** An entity that left the snapshot, as it last was, and when it left (ms since the epoch). */
export interface LeftAt<T> {
  value: T;
  at: number;
}

export interface LeftBeforeStart {
  campaigns: ReadonlyMap<number, LeftAt<SnapCampaign>>;
  tags: ReadonlyMap<number, LeftAt<SnapTag>>;
}
