import { type DeliveryReason } from '../delivery/deliveryState.js';
import { type FloorInForce } from './floorRules.js';

/**
 * The decision trace (one definition for the edge that builds it and the console that shows it): every
 * demand source the request considered and its fate, with timings. It is built for every request (the
 * no-fill counters read the same fates) and shown on `debug=1` and by "Test this tag".
 */
export type Fate =
  /** refused before any call: `reason` names the rule */
  | 'filtered'
  /** called (or priced at once), answered nothing usable */
  | 'no_fill'
  | 'timeout'
  | 'below_floor'
  /** a price above the floors, beaten by `lostTo` */
  | 'lost'
  | 'won'
  /** a waterfall stopped before reaching it */
  | 'not_called';

export interface SourceFate {
  /** Our campaigns, demand tags by integration, and (DSP mode) ad exchanges. */
  source: 'campaign' | 'vast_tag' | 'rtb_tag' | 'prebid_tag' | 'ad_exchange';
  id: number;
  name: string;
  priority: number;
  fate: Fate;
  reason?: string;
  /** Listed on the channel but not live for it (paused, archived, deleted, another account's): traced, not counted. */
  idle?: true;
  vastError?: number;
  /**
   * A VAST demand's no-fill: the error trackers its answers gave (wrappers' and the failing ad's),
   * with [ERRORCODE] filled, which adplane fires as the player would have (never for a test).
   */
  errorPings?: string[];
  /** How long the call took (ms), for called sources. */
  ms?: number;
  /** The price it offered, CPM micro-dollars. */
  bidCpm?: number;
  /** The floor the auction held the bid to (the channel's, the tag's, a deal's or one per second of the ad), CPM micro-dollars: set below the floor, and on the winner (its minimum to win is never under it). */
  floorCpm?: number;
  lostTo?: string;
  /** The deal a programmatic bid was made under (OpenRTB dealid). */
  dealId?: string;
  /** For the winner: what it pays (clearing CPM), what the publisher earns and our margin, micro-dollars CPM. */
  clearingCpm?: number;
  payoutCpm?: number;
  marginCpm?: number;
  /** A traced refusal by targeting (`targeting.<rule>`, `deal.targeting.<rule>`): the rule's values and the request's. */
  miss?: TargetingMiss;
  /** A traced refusal by flight (`flight_not_started`, `flight_ended`): its first or last day, YYYY-MM-DD in the tenant's time zone. */
  flightDay?: string;
}

/**
 * A targeting rule that refused a request, with what the rule holds and what the request said, so
 * that the trace can say "country US only; the viewer is in DE". Built for traced requests only.
 */
export interface TargetingMiss {
  /**
   * The rule, as a reason names it after `targeting.`: country, geo (US states), city, metro,
   * postal_code, ip_list, device, os, browser, tv_family, player_size, app_list, publisher_list,
   * key_value, iab_category, day_part.
   */
  rule: string;
  /** true: the request must be one of `values`; false: it must be none of them. */
  include: boolean;
  /** The rule's values, at most TARGETING_MISS_VALUES of them; day_part: none (its hours are a grid). */
  values: string[];
  /** How many values the rule holds besides those listed. */
  more: number;
  /**
   * What the request said ('' when it said nothing): the viewer's country, US state, city
   * (`cc-rr:city`), metro, postal code (`cc:code`), address (ip_list), device, OS, browser, TV
   * family, player size, app bundle, the site's domain (publisher_list: the domain, or the app
   * bundle), its key-values and its IAB categories joined by commas; day_part: the hour of the week
   * in UTC ("Mon 14:00 UTC"). An ip_list miss lists the lists' names as its values.
   */
  viewer: string;
}

/** How many of a rule's values a TargetingMiss lists. */
export const TARGETING_MISS_VALUES = 10;

/** A campaign the targeting indexes set aside for a request, with every indexed rule that refused it. */
export interface IndexedOutCampaign {
  id: number;
  name: string;
  /**
   * `channel_not_assigned` when its channel assignment leaves out the request's channel (the campaign
   * runs on other channels only, or on all but this one); else `targeting.<rule>` of the first rule
   * that refused (the code a campaign checked one by one would give).
   */
  reason: string;
  misses: TargetingMiss[];
}

/** How many of the campaigns the indexes set aside a trace names (by name, A to Z); so many of those not in the ad server too. */
export const INDEXED_OUT_NAMED = 200;

/**
 * A campaign of the channel's account that the ad server left out of its snapshot (it could never
 * fill), with every reason in the delivery state's codes and sentences (packages/shared/src/delivery/
 * deliveryState.ts: `creative_pending`, "Creative pending approval: Spring spot").
 */
export interface NotInAdServer {
  id: number;
  name: string;
  reasons: DeliveryReason[];
}

/**
 * The pre-bid invalid-traffic verdict of a checked request (docs/traffic-quality.md): how the channel
 * treats flagged traffic (`count`: served and counted as IVT; `block`: answered empty), the reason the
 * request was flagged ('' when it was clean) and whether it was answered empty for it.
 */
export interface IvtTrace {
  mode: 'count' | 'block';
  reason: string;
  blocked: boolean;
}

/**
 * Post-bid pixels of a filled decision (docs/traffic-quality.md, Post-bid pixels): whether the
 * answer carries the account's third-party pixels, and if not, why: the account is not granted
 * post-bid (`not_enabled`), no live post-bid pixel applies to the channel (`none_configured`), the
 * decision fell outside the account's postbidPercent (`sampled_out`) or every pixel's own
 * samplePercent (`pixels_sampled_out`), the account reached postbidMaxImps this month (`cap_reached`),
 * or the cap has room but this process's allowance of it was on its way (`cap_lease`).
 */
type PostbidResult =
  | 'added'
  | 'not_enabled'
  | 'none_configured'
  | 'sampled_out'
  | 'pixels_sampled_out'
  | 'cap_reached'
  | 'cap_lease';

export interface PostbidTrace {
  result: PostbidResult;
  /** Where the pixels came from: the channel's list or the account's setPostbidAll; null when none applies. */
  source: 'channel' | 'account' | null;
  /** The account's postbidPercent, and this decision's draw (0 <= draw < 100; sampled when draw < percent). */
  percent: number;
  draw: number | null;
  /** Each pixel considered: its draw against its own samplePercent, and whether it was added. */
  pixels: { id: number; vendor: string; samplePercent: number; draw: number; added: boolean }[];
  /** The monthly cap (0: none) and the account's post-bid impressions this month as this process sees the shared count. */
  maxImps: number;
  monthUsed: number;
}

/**
 * An optimised demand order (docs/ad-server.md, "Optimised demand order"): why the channel's tags
 * were called in this order, each with what was measured of it over the window.
 */
export interface DemandOrderTrace {
  /** `measured`: ranked by worth per call; `exploring`: this request fell in the exploration share, the unpinned tags at random. */
  basis: 'measured' | 'exploring';
  explorePercent: number;
  windowMinutes: number;
  /** Auction mode: how many tags are called first; null: a waterfall, or every tag at once. */
  maxCalls: number | null;
  /** What a timeout costs, CPM micro-dollars. */
  timeoutCostCpm: number;
  /** The channel's tags in the order called, each with the priority (waterfall tier, auction set) it was called at. */
  tags: DemandOrderTag[];
}

/**
 * The arm of a split channel a request was served by (docs/ad-server.md, "A/B splits"): B when its
 * draw (0 <= draw < 100) fell under the split's percent, drawn from the viewer's device id (so a
 * viewer stays in one arm) or at random when the request names none.
 */
export interface ArmTrace {
  arm: 'A' | 'B';
  percent: number;
  draw: number;
  by: 'viewer' | 'random';
}

interface DemandOrderTag {
  id: number;
  name: string;
  pinned: boolean;
  priority: number;
  /** In the window: its calls, fills (bids at or above their floor) and timeouts. */
  calls: number;
  fills: number;
  timeouts: number;
  /** Worth per call (eCPM x fill less timeouts' cost), CPM micro-dollars: what 1,000 calls earn; null when not measured yet. */
  valueCpm: number | null;
}

export interface DecisionTrace {
  channel: {
    id: number;
    uid: string;
    name: string;
    mode: string;
    auctionPrice: string;
    /** The floor in force for this request (micro-dollars). */
    floorCpm: number;
    /** Where that floor came from: the rule of the channel's or the account's floor rules that matched, or the static floor. */
    floor?: FloorInForce;
    vastVersion: string;
    timeoutMs: number;
  } | null;
  context: {
    ip: string;
    country: string;
    region: string;
    usState: string;
    device: string;
    os: string;
    browser: string;
    tvFamily: string;
    playerSize: string;
    width: number;
    height: number;
    appBundle: string;
    domain: string;
    /**
     * Where in the country, from the MaxMind City database (absent: it names none): the city's
     * English name, the Nielsen DMA code, the postal code with its country (`US:94043`).
     */
    city?: string;
    metro?: string;
    postalCode?: string;
    /** The request's key-values, `key=value` in lower case (absent: none). */
    keyValues?: string[];
  };
  /** The pre-bid IVT check; null when the channel's traffic is not checked (or the request never reached the check). */
  ivt: IvtTrace | null;
  /** Post-bid pixels of a filled decision; absent or null when the request did not fill. */
  postbid?: PostbidTrace | null;
  /** A channel with an optimised demand order: the order its tags were called in and why. Absent otherwise. */
  demandOrder?: DemandOrderTrace;
  /** A channel split A/B: the arm that served the request and why. Absent otherwise. */
  arm?: ArmTrace;
  /** A request-level outcome: filled, or why not (unknown_channel, channel_paused, sdk_app.unknown or sdk_app.revoked, ivt.<reason>, channel_targeting, no_demand, no_bid). */
  result: string;
  /** Campaigns the targeting indexes set aside without looking at them one by one. */
  indexedOut: number;
  /**
   * A traced request: the first INDEXED_OUT_NAMED of those campaigns by name, each with the rules that
   * refused it; `indexedOut` minus their number were set aside besides. Absent on an untraced request.
   */
  indexedOutCampaigns?: IndexedOutCampaign[];
  /**
   * "Test this tag" of a channel and `debug=1`: the account's campaigns the ad server left out of its
   * snapshot (archived ones aside), the first INDEXED_OUT_NAMED by name, and how many more there are.
   */
  notInAdServer?: { campaigns: NotInAdServer[]; more: number };
  /**
   * The channel's deals for buyers (supply deals) in force on the request, as offered to the demand
   * tags they name (floor in micro-dollars); absent when none.
   */
  deals?: { dealId: string; name: string; floorCpm: number; auctionType: number; privateAuction: boolean }[];
  /**
   * The channel's supply deals in their flight and targeting but left out of the request by delivery
   * control, with why: an impression cap reached (`deal_imp_cap`, `deal_daily_imp_cap`), or this edge
   * process still getting its share of the cap (`budget_lease`); absent when none.
   */
  dealsLeftOut?: { dealId: string; name: string; reason: string }[];
  sources: SourceFate[];
  winner: SourceFate | null;
  totalMs: number;
  snapshotVersion: number;
  /**
   * An ad pod (the player asked for more than one ad): each slot decided, in order, the first one
   * being this trace's own. Absent for a single ad.
   */
  pod?: PodSlotTrace[];
}

/** One slot of an ad pod: its result, the winner that filled it, and the seconds of the pod left before it. */
export interface PodSlotTrace {
  sequence: number;
  result: string;
  winner: SourceFate | null;
  /** The length the slot allowed (the pod's seconds left, within max_dur): 0 when neither was stated. */
  maxDurationS: number;
  /** The winner's length, seconds (0: not known). */
  durationS: number;
}
