import { z } from 'zod';
import {
  AD_FORMATS,
  domainName,
  ENVIRONMENTS,
  id,
  ids,
  INTEGRATIONS,
  micros,
  name,
  optionalId,
  Price,
  Status,
  wholeBetween,
} from '../entities/common.js';
import { FloorRules } from '../edge/floorRules.js';
import { DynamicFloorSettings, FLOOR_MODES, type FloorMode } from '../edge/dynamicFloors.js';
import { storedRowParser } from './storedRow.js';
import { defineKind, many, one, targetingRef } from './kindDef.js';

/**
 * Channels: the supply a tenant hands to a publisher (a VAST tag URL, an OpenRTB or Prebid endpoint),
 * with the floor, what the publisher earns, the targeting and the demand tags it calls.
 */

/**
 * What the publisher earns: a share in percent of what demand pays, or a fixed CPM in micro-dollars
 * whatever the clearing price. The type says the unit.
 */
export const Payout = Price;
export type Payout = z.infer<typeof Payout>;
const DEFAULT_PAYOUT: Payout = { type: 'revshare', percent: 70 };

export const DEMAND_MODES = ['priority', 'auction'] as const;
/** The VAST version a channel answers in (its player's). */
export const VAST_VERSIONS = ['2.0', '3.0', '4.0', '4.1', '4.2'] as const;
export type VastVersion = (typeof VAST_VERSIONS)[number];
/** First price: the winner pays its bid; second price: the runner-up's bid (or the floor) plus one cent. */
export const AUCTION_PRICES = ['first', 'second'] as const;

/**
 * An optimised demand order (docs/ad-server.md, "Optimised demand order"): the channel's demand tags
 * called in the order of what each earned per call lately, a share of requests exploring.
 */
const DemandOptimisation = z.object({
  /** The share of requests that call the unpinned tags in a random order, so that each keeps being measured. */
  explorePercent: wholeBetween(0, 50, 'percent').default(10),
  /** How far back each tag's calls are measured. */
  windowMinutes: wholeBetween(5, 1440, 'minutes').default(60),
  /** Auction mode: how many tags are called first (then as many more when none fills); null: every tag at once. */
  maxCalls: wholeBetween(1, 200).nullable().default(null),
  /** What a call that times out costs, CPM micro-dollars: taken off the tag's worth per call. */
  timeoutCostCpm: micros.default(1_000_000),
});
export type DemandOptimisationInput = z.input<typeof DemandOptimisation>;

/** Demand tags a channel (or its split's arm B) may call; lower priority numbers are called first in priority mode. */
const DemandList = z
  .array(
    z.object({
      tagId: id,
      priority: wholeBetween(1, 100).default(1),
      /** An optimised order leaves it where it was put (its slot in a waterfall; always in an auction's first set). */
      pinned: z.boolean().optional(),
    }),
  )
  .max(200, 'must hold at most 200 tags')
  .default([])
  .refine((d) => new Set(d.map((x) => x.tagId)).size === d.length, 'lists a tag twice');

/**
 * An A/B split (docs/ad-server.md, "A/B splits"): arm B, another demand configuration, serves
 * `percent` of the channel's requests; arm A, the channel's own, the rest.
 */
const ChannelSplit = z.object({
  /** The share of requests arm B serves. */
  percent: wholeBetween(1, 99, 'percent'),
  /** Arm B's demand tags. */
  demand: DemandList,
  demandMode: z.enum(DEMAND_MODES).default('auction'),
  /** Arm B's floor CPM, in force on every request of arm B; null: the channel's floor (its rules included). */
  floorCpm: micros.nullable().default(null),
  /** Arm B's optimised demand order; null: its tags are called as set. */
  optimise: DemandOptimisation.nullable().default(null),
});

export const ChannelInput = z
  .object({
    name,
    status: Status.default(1),
    subpublisherId: optionalId,
    integration: z.enum(INTEGRATIONS).default('VAST'),
    environment: z.enum(ENVIRONMENTS).default('web'),
    format: z.enum(AD_FORMATS).default('video'),
    domain: domainName.default(''),
    floorCpm: micros.default(0),
    /**
     * Floors by the request (Prebid floors module data: edge/floorRules.ts); null: none, the account's
     * rule set applies, else `floorCpm`. A request no rule (nor the default) matches gets `floorCpm`.
     */
    floorRules: FloorRules.nullable().default(null),
    /**
     * How the floor is set (edge/dynamicFloors.ts): `static` (floorCpm, or the account's rules),
     * `rules` (floorRules) or `dynamic` (dynamicFloor). Absent on channels saved before modes: read by
     * channelFloorMode. The other modes' settings are kept, not in force.
     */
    floorMode: z.enum(FLOOR_MODES, { error: `must be one of ${FLOOR_MODES.join(', ')}` }).optional(),
    /** The dynamic floor's settings: a percentile of the channel's recent clearing prices, within bounds. */
    dynamicFloor: DynamicFloorSettings.nullable().default(null),
    payout: Payout.default(DEFAULT_PAYOUT),
    targetingId: optionalId,
    demandMode: z.enum(DEMAND_MODES).default('auction'),
    vastVersion: z.enum(VAST_VERSIONS).default('4.2'),
    auctionPrice: z.enum(AUCTION_PRICES).default('first'),
    /** How long the channel waits for demand in total (the player's patience), in ms. */
    timeoutMs: z.number().int().min(50, 'must be at least 50 ms').max(10_000, 'must be at most 10000 ms').default(1500),
    demand: DemandList,
    /** The demand order by what each tag earned lately; null: as set. */
    optimise: DemandOptimisation.nullable().default(null),
    /** A share of requests served by another demand configuration; null: none. */
    split: ChannelSplit.nullable().default(null),
    ivtIds: ids,
    blockIVT: z.boolean().default(false),
  })
  .superRefine((c, ctx) => {
    if (c.floorMode === 'rules' && !c.floorRules)
      ctx.addIssue({ code: 'custom', path: ['floorRules'], message: "must be set when the floor mode is 'rules'" });
    if (c.floorMode === 'dynamic' && !c.dynamicFloor)
      ctx.addIssue({ code: 'custom', path: ['dynamicFloor'], message: "must be set when the floor mode is 'dynamic'" });
  });
export type ChannelInput = z.input<typeof ChannelInput>;

/** A channel's floor mode: the one it was saved with, else (saved before modes) `rules` when it has floor rules, else `static`. */
export function channelFloorMode(c: { floorMode?: unknown; floorRules?: unknown }): FloorMode {
  return (FLOOR_MODES as readonly unknown[]).includes(c.floorMode)
    ? (c.floorMode as FloorMode)
    : c.floorRules
      ? 'rules'
      : 'static';
}

export const parseChannelRow = storedRowParser('channels', ChannelInput);
export type ChannelRow = NonNullable<ReturnType<typeof parseChannelRow>>;

/** What the shared list carries besides id, name, uid and status. */
const channelListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({
  integration: d.integration,
  format: d.format,
  environment: d.environment,
  subpublisherId: d.subpublisherId ?? null,
});

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const channelsKind = defineKind({
  kind: 'channels',
  label: 'Channel',
  plural: 'Channels',
  route: '/channels',
  api: '/api/demand/channels',
  mode: 'ssp',
  storage: 'entity',
  audience: 'tenant',
  uid: true,
  schema: ChannelInput,
  refs: [
    { kind: 'subs', field: 'subpublisherId', ids: one('subpublisherId') },
    targetingRef,
    {
      kind: 'tags',
      field: 'demand',
      ids: (r) =>
        [
          ...((r.demand as { tagId: number }[]) ?? []),
          ...((r.split as { demand?: { tagId: number }[] })?.demand ?? []),
        ].map((d) => d.tagId),
    },
    { kind: 'ivts', field: 'ivtIds', ids: many('ivtIds') },
  ],
  assignedTo: { sub: 'subpublisherId' },
  sortable: ['integration', 'environment', 'floorCpm'],
  listExtras: channelListExtras,
  namesApi: '/api/demand/channelNames/list',
  parseRow: parseChannelRow,
});
