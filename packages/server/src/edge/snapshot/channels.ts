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
import { channelIvtMode, type Owners, ownersServe } from './accounts.js';
import { type CategoryBlocksCompiler } from './categoryBlocks.js';
import { record, rowReasons } from './setAside.js';
import { type SetAsideReason, type SnapChannel, type SnapDemand, type SnapTag } from './types.js';

/**
 * Channels by uid. A channel that cannot serve (paused, archived, paused account) stays in the
 * snapshot with `serving: false`, so its requests get an empty VAST and a counted reason, not a 404.
 * Only tags of the channel's own tenant are called. Why a channel does not serve goes into `setAside`
 * (setAside.ts).
 */
export function compileChannels(
  rows: readonly ChannelRow[],
  owners: Owners,
  tags: { live: ReadonlyMap<number, SnapTag>; idle: ReadonlyMap<number, string> },
  targetings: ReadonlyMap<number, CompiledTargeting>,
  blocks?: CategoryBlocksCompiler,
  setAside?: Map<number, SetAsideReason[]>,
  floorTables?: ReadonlyMap<number, DynamicFloorTable>,
): Map<number, SnapChannel> {
  const out = new Map<number, SnapChannel>();
  for (const c of rows) {
    if (!c.uid || c.tenantId === null) continue;
    const demand: SnapDemand[] = [];
    const idleTags: { id: number; reason: string }[] = [];
    for (const d of c.demand) {
      const tag = tags.live.get(d.tagId);
      if (tag && tag.tenantId === c.tenantId)
        demand.push(d.pinned ? { tag, priority: d.priority, pinned: true } : { tag, priority: d.priority });
      else idleTags.push({ id: d.tagId, reason: tags.idle.get(d.tagId) ?? 'not_found' });
    }
    const targeting = c.targetingId ? (targetings.get(c.targetingId) ?? null) : null;
    const categoryBlocks = blocks?.of(c.tenantId, targeting);
    const serving = isLive(c) && ownersServe(owners, c.tenantId, { subpublisherId: c.subpublisherId });
    if (!serving && setAside)
      record(setAside, c.id, rowReasons(c, owners, c.tenantId, { subpublisherId: c.subpublisherId }));
    out.set(c.id, {
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
      ...(c.optimise
        ? {
            optimise: {
              explorePercent: c.optimise.explorePercent,
              windowMs: c.optimise.windowMinutes * 60_000,
              maxCalls: c.optimise.maxCalls,
              timeoutCostCpm: c.optimise.timeoutCostCpm,
            },
          }
        : {}),
      idleTags,
      sellerId: c.subpublisherId
        ? (owners.sellerIds.get(c.subpublisherId) ?? subpublisherSellerId(c.subpublisherId, null))
        : tenantSellerId(c.tenantId),
      ivt: channelIvtMode(owners.tenants.get(c.tenantId), c.blockIVT),
    });
  }
  return out;
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
