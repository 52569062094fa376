import {
  channelFloorMode,
  type ChannelRow,
  compileFloorRules,
  type DynamicFloorBasis,
  type DynamicFloorTable,
  fallbackFloorTable,
  floorRulesOfTable,
  isLive,
  subpublisherSellerId,
  tenantSellerId,
} from '@adplane/shared';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { channelLayout } from './channelLayout.js';
import { channelIvtMode, type Owners, ownersServe } from './accounts.js';
import { type CategoryBlocksCompiler } from './categoryBlocks.js';
import { record, rowReasons } from './setAside.js';
import { type Sliced, SUPPLY_SLICE_ROWS } from './slices.js';
import { type SetAsideReason, type SnapChannel, type SnapDemand, type SnapTag } from './types.js';

/**
 * Channels by uid. A channel that cannot serve (paused, archived, paused account) stays in the
 * snapshot with `serving: false`, so its requests get an empty VAST and a counted reason, not a 404.
 * Only tags of the channel's own tenant are called. Why a channel does not serve goes into `setAside`
 * (setAside.ts). Cut into slices of SUPPLY_SLICE_ROWS rows (slices.ts).
 */
export function* compileChannelSlices(
  rows: readonly ChannelRow[],
  owners: Owners,
  tags: { live: ReadonlyMap<number, SnapTag>; idle: ReadonlyMap<number, string> },
  targetings: ReadonlyMap<number, CompiledTargeting>,
  blocks?: CategoryBlocksCompiler,
  setAside?: Map<number, SetAsideReason[]>,
  floorTables?: ReadonlyMap<number, DynamicFloorTable>,
): Sliced<Map<number, SnapChannel>> {
  const out = new Map<number, SnapChannel>();
  let inSlice = 0;
  for (const c of rows) {
    if (++inSlice > SUPPLY_SLICE_ROWS) {
      inSlice = 1;
      yield;
    }
    if (!c.uid || c.tenantId === null) continue;
    const { demand, idleTags } = demandOf(c.demand, c.tenantId, tags);
    const targeting = c.targetingId ? (targetings.get(c.targetingId) ?? null) : null;
    const categoryBlocks = blocks?.of(c.tenantId, targeting);
    const serving = isLive(c) && ownersServe(owners, c.tenantId, { subpublisherId: c.subpublisherId });
    if (!serving && setAside)
      record(setAside, c.id, rowReasons(c, owners, c.tenantId, { subpublisherId: c.subpublisherId }));
    const channel: SnapChannel = {
      id: c.id,
      uid: c.uid,
      tenantId: c.tenantId,
      subpublisherId: c.subpublisherId ?? 0,
      name: c.name,
      serving,
      integration: c.integration,
      environment: c.environment,
      format: c.format,
      vastVersion: c.vastVersion,
      floorCpm: c.floorCpm,
      ...floorRulesOf(c, owners, floorTables?.get(c.id)),
      payout: c.payout,
      demandMode: c.demandMode,
      auctionPrice: c.auctionPrice,
      timeoutMs: c.timeoutMs,
      targeting,
      ...(categoryBlocks ? { categoryBlocks } : {}),
      demand,
      ...optimiseOf(c.optimise),
      idleTags,
      sellerId: c.subpublisherId
        ? (owners.sellerIds.get(c.subpublisherId) ?? subpublisherSellerId(c.subpublisherId, null))
        : tenantSellerId(c.tenantId),
      ivt: channelIvtMode(owners.tenants.get(c.tenantId), c.blockIVT),
    };
    out.set(c.id, channelLayout(c.split ? withSplit(channel, c.split, tags) : channel));
  }
  return out;
}

/** A channel's live demand tags (of its own tenant) with their priorities, and those it lists that cannot serve. */
function demandOf(
  list: ChannelRow['demand'],
  tenantId: number,
  tags: { live: ReadonlyMap<number, SnapTag>; idle: ReadonlyMap<number, string> },
): Pick<SnapChannel, 'demand' | 'idleTags'> {
  const demand: SnapDemand[] = [];
  const idleTags: { id: number; reason: string }[] = [];
  for (const d of list) {
    const tag = tags.live.get(d.tagId);
    if (tag && tag.tenantId === tenantId)
      demand.push(d.pinned ? { tag, priority: d.priority, pinned: true } : { tag, priority: d.priority });
    else idleTags.push({ id: d.tagId, reason: tags.idle.get(d.tagId) ?? 'not_found' });
  }
  return { demand, idleTags };
}

/** An optimised demand order, compiled; none: nothing. */
function optimiseOf(o: ChannelRow['optimise']): Pick<SnapChannel, 'optimise'> {
  if (!o) return {};
  return {
    optimise: {
      explorePercent: o.explorePercent,
      windowMs: o.windowMinutes * 60_000,
      maxCalls: o.maxCalls,
      timeoutCostCpm: o.timeoutCostCpm,
    },
  };
}

/**
 * A split channel: arm A, the channel as set, holding arm B, the same channel with the split's
 * demand, mode, optimised order and (when it sets one) floor, which is then its floor on every
 * request, without the channel's floor rules.
 */
function withSplit(
  a: SnapChannel,
  split: NonNullable<ChannelRow['split']>,
  tags: { live: ReadonlyMap<number, SnapTag>; idle: ReadonlyMap<number, string> },
): SnapChannel {
  const { floorRules, optimise: _optimise, ...shared } = a;
  const b: SnapChannel = {
    ...shared,
    ...(split.floorCpm === null ? (floorRules ? { floorRules } : {}) : { floorCpm: split.floorCpm }),
    ...demandOf(split.demand, a.tenantId, tags),
    demandMode: split.demandMode,
    ...optimiseOf(split.optimise),
    arm: 'B',
  };
  return { ...a, arm: 'A', split: { percent: split.percent, b: channelLayout(b) } };
}

/**
 * The floor rules of the channel's mode: its dynamic floors' table as a rule set (none computed yet:
 * its floor CPM within the bounds), its own rules, else its account's (compiled once with the
 * owners); none: nothing.
 */
function floorRulesOf(c: ChannelRow, owners: Owners, table?: DynamicFloorTable): Pick<SnapChannel, 'floorRules'> {
  const mode = channelFloorMode(c);
  if (mode === 'dynamic' && c.dynamicFloor)
    return { floorRules: dynamicFloorsOf(table ?? fallbackFloorTable(c.dynamicFloor, c.floorCpm), !table) };
  if (mode === 'rules' && c.floorRules)
    return { floorRules: { rules: compileFloorRules(c.floorRules), source: 'channel' } };
  const account = c.tenantId === null ? undefined : owners.tenants.get(c.tenantId)?.floorRules;
  return account ? { floorRules: { rules: account, source: 'account' } } : {};
}

/** A dynamic floor table as the channel's rule set, with how each rule was computed (by key, '*' the default). */
function dynamicFloorsOf(table: DynamicFloorTable, pending: boolean): NonNullable<SnapChannel['floorRules']> {
  const dynamic = new Map<string, DynamicFloorBasis>();
  for (const cell of [...table.cells, table.default])
    dynamic.set(cell.key, {
      percentile: table.percentile,
      windowHours: table.windowHours,
      minImpressions: table.minImpressions,
      impressions: cell.impressions,
      measuredCpm: cell.measuredCpm,
      clamped: cell.clamped,
      computedAt: pending ? null : table.computedAt,
    });
  return { rules: compileFloorRules(floorRulesOfTable(table)), source: 'dynamic', dynamic };
}

/** The seller id a channel's inventory is sold under (see SnapChannel.sellerId), for channels built by hand too. */
export function channelSellerId(channel: SnapChannel): string {
  return (
    channel.sellerId ??
    (channel.subpublisherId ? subpublisherSellerId(channel.subpublisherId, null) : tenantSellerId(channel.tenantId))
  );
}
