import { type Clock, systemClock } from '../../clock.js';
import {
  parseAdExchangeRow,
  parseAppListRow,
  parseCreativeRow,
  parseCreListRow,
  parseDealRow,
  parseIpListRow,
  parseIvtRow,
  parseSdkAppRow,
  parsePubListRow,
  parseSupplierRow,
  parseSupplyDealRow,
  parseTargetingRow,
  type ChannelRow,
  type CreativeRow,
  type DemandTagRow,
  type SkipSink,
} from '@adplane/shared';
import { getAppConfig } from '../../store/appConfig.js';
import { readConfigVersion } from '../../store/configVersion.js';
import { compilePostbid } from './postbidPlan.js';
import { compileOwners, compileOwnersBefore, type Owners } from './accounts.js';
import {
  type CampaignFacts,
  compileCampaignSlices,
  compileLeftCampaigns,
  indexCampaignSlices,
  nextFlightEnd,
} from './campaigns.js';
import { type CampaignsBuilt, changedKeys, updateCampaignSlices } from './campaignDelta.js';
import { oneByOne, withTurns } from './slices.js';
import { readCampaign } from './campaignRead.js';
import { CategoryBlocksCompiler } from './categoryBlocks.js';
import { compileChannelSlices } from './channels.js';
import { compileCreatives } from './creatives.js';
import { loadAccounts, type StoreDb } from './loadRows.js';
import { loadFloorTables } from '../../store/dynamicFloors.js';
import { ParsedRows } from './parsedRows.js';
import { compileAdExchanges, compileDeals, compileSuppliers, compileSupplyDeals } from './programmatic.js';
import { DEPARTED_MS } from './departed.js';
import { compileLeftTags, compileTagSlices } from './tags.js';
import {
  CampaignUses,
  newSetAside,
  recordUnreachedDemand,
  recordUnreachedSupplySlices,
  withUnservedAssignments,
} from './setAside.js';
import { compileTargetings, type TargetingsKept } from './targetings.js';
import { Kept } from './kept.js';
import { CampaignBook } from './campaignBook.js';
import { readChannel, readTag } from './supplyRead.js';
import { CampaignColumns } from './campaignColumns.js';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import {
  type LeftBeforeStart,
  type SetAsideReason,
  type SnapChannel,
  type SnapCreative,
  type Snapshot,
  type SnapTag,
} from './types.js';

/** One turn of the event loop: what waits behind a build (requests, timers) runs. */
const loopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Compiles snapshots from the config store, every kind read through its typed parser. Parsed rows
 * are kept between builds (./parsedRows.ts), so a rebuild after a change re-reads and re-parses only
 * the rows that changed; the compile itself (owners, targeting, indexes) runs over every row, keeping
 * the objects of unchanged campaigns, creatives and targetings (./kept.ts).
 *
 * The compile runs on the serving thread while the current snapshot serves: it hands the event loop
 * back between its steps (`between`, a loop turn), and inside the long ones (the campaigns' compile,
 * update and index; the tags', the channels' and what the supply cannot reach) between slices of a
 * thousand to a few thousand rows (slices.ts), so that requests wait behind one slice, not the whole build. Nothing a step writes is read by the snapshot that serves meanwhile (compiled objects are
 * new or kept unchanged; campaign columns are written once, campaignBook.ts).
 */
export class SnapshotCompiler {
  private readonly clock: Clock;
  private readonly rows: ReturnType<typeof parsedRowsOf>;

  constructor(
    clock: Clock = systemClock,
    private readonly between: () => Promise<void> = loopTurn,
  ) {
    this.clock = clock;
    this.rows = parsedRowsOf(clock, this.campaignColumns);
  }

  /** The stored campaigns' facts as columns (parsedRows.ts), scanned for those naming a changed targeting or creative. */
  private readonly campaignColumns = new CampaignColumns();
  /** What the last build made of the campaigns, for this one to update by what changed (campaignDelta.ts); unset while a build runs. */
  private campaignsBuilt: CampaignsBuilt | undefined;
  /** Where the next build's turn of re-shuffled tenants starts (campaignDelta.ts). */
  private readonly rotate = { next: 0 };
  /** Whether the last build compiled every campaign (a test's and the build log's view). */
  lastBuildFull = true;
  /** The targetings the last build compiled: those compiled into another object since are the changed ones. */
  private lastTargetings: ReadonlyMap<number, CompiledTargeting> = new Map();
  /** What the last build made of the tags and channels, unset while a build runs. */
  private supplyBuilt: SupplyBuilt | undefined;

  /** Tags and channels compiled, with why those that do not serve do not (setAside.ts). */
  private async compileSupply(
    tags: readonly DemandTagRow[],
    channels: readonly ChannelRow[],
    owners: Owners,
    targetings: ReadonlyMap<number, CompiledTargeting>,
    categoryBlocks: CategoryBlocksCompiler,
    campaignIndex: Snapshot['campaignIndex'],
    made: { accountsKey: string; floorTables: Awaited<ReturnType<typeof loadFloorTables>>; floorTablesKey: string },
  ): Promise<SupplyBuilt> {
    const aside = { tags: new Map<number, SetAsideReason[]>(), channels: new Map<number, SetAsideReason[]>() };
    const snapTags = await withTurns(compileTagSlices(tags, owners, targetings, aside.tags), this.between);
    await this.between();
    const snapChannels = await withTurns(
      compileChannelSlices(channels, owners, snapTags, targetings, categoryBlocks, aside.channels, made.floorTables),
      this.between,
    );
    await this.between();
    await withTurns(
      recordUnreachedSupplySlices(aside, { channels: snapChannels, tags: snapTags.live, campaignIndex }, tags),
      this.between,
    );
    return {
      accountsKey: made.accountsKey,
      floorTablesKey: made.floorTablesKey,
      indexTenants: campaignIndex,
      tags: snapTags,
      channels: snapChannels,
      channelsByUid: new Map([...snapChannels.values()].map((c) => [c.uid, c])),
      tagsAside: aside.tags,
      channelsAside: aside.channels,
    };
  }

  /** What the last build made of unchanged rows, kept by this build (kept.ts). */
  private readonly kept = {
    creatives: new Kept<CreativeRow, SnapCreative>(),
    targetings: new Kept() as TargetingsKept,
    campaigns: new CampaignBook(),
  };

  /** Whether a build has been made: the first one also reads what left the store's live set lately (leftBeforeStart). */
  private built = false;

  async compile(db: StoreDb, now = this.clock.now()): Promise<Snapshot> {
    const started = performance.now();
    // The version is read first: a write that lands while we read makes the next poll rebuild again.
    const version = await readConfigVersion(db);
    const sink: SkipSink = { skipped: [] };
    const r = this.rows;
    const [
      accounts,
      floorTables,
      channels,
      tags,
      ,
      creatives,
      targetings,
      applists,
      publists,
      crelists,
      iplists,
      sups,
      adexchanges,
      deals,
      ivts,
      sdkapps,
      appConfig,
      supplyDeals,
    ] = await oneByOne(
      [
        () => loadAccounts(db),
        () => loadFloorTables(db),
        () => r.channels.load(db, sink),
        () => r.tags.load(db, sink),
        () => r.campaigns.refresh(db),
        () => r.creatives.load(db, sink),
        () => r.targetings.load(db, sink),
        () => r.applists.load(db, sink),
        () => r.publists.load(db, sink),
        () => r.crelists.load(db, sink),
        () => r.iplists.load(db, sink),
        () => r.sups.load(db, sink),
        () => r.adexchanges.load(db, sink),
        () => r.deals.load(db, sink),
        () => r.ivts.load(db, sink),
        () => r.sdkapps.load(db, sink),
        () => getAppConfig(db),
        () => r.supplydeals.load(db, sink),
      ] as const,
      this.between,
    );
    const owners = compileOwners(accounts);
    // what the owners are compiled from (an account's updatedAt only dates a first build's departed ones)
    const accountsKey = JSON.stringify(accounts, (key, value: unknown) => (key === 'updatedAt' ? undefined : value));
    // the dynamic channels' floor tables, by when each was computed: a new one compiles the channels again
    const floorTablesKey = [...floorTables].map(([id, t]) => `${id}@${t.computedAt}`).join(',');
    // why each row is set aside, recorded by the compile functions as they decide (setAside.ts)
    const setAside = newSetAside();
    const compiledTargetings = compileTargetings(
      { targetings, applists, publists, crelists, iplists },
      this.kept.targetings,
    );
    const targetingsChanged = changedKeys(this.lastTargetings, compiledTargetings);
    this.lastTargetings = compiledTargetings;
    const snapCreatives = compileCreatives(creatives, owners, this.kept.creatives, setAside.creatives);
    await this.between();
    let creativeNames: Map<number, string> | undefined;
    // built the first time a campaign without a creative asks
    const creativeName = (id: number) => (creativeNames ??= new Map(creatives.map((c) => [c.id, c.name]))).get(id);
    // the last build's campaigns updated by what changed since, when a merge can take the change
    const last = this.campaignsBuilt;
    this.campaignsBuilt = undefined;
    let built =
      last &&
      (await withTurns(
        updateCampaignSlices(
          last,
          {
            owners,
            accountsKey,
            targetings: compiledTargetings,
            targetingsChanged,
            creatives: snapCreatives,
            creativesAside: setAside.creatives,
            creativeName,
            now,
            rows: r.campaigns,
            columns: this.campaignColumns,
            changedCampaigns: r.campaigns.changedIds,
            changedCreatives: r.creatives.changedIds,
            book: this.kept.campaigns,
          },
          this.rotate,
        ),
        this.between,
      ));
    // the stored campaigns as rows: read by a full compile and by the first build's departed ones
    let campaigns: CampaignFacts[] = [];
    this.lastBuildFull = !built;
    if (built) r.campaigns.reportSkipped(sink);
    else {
      campaigns = r.campaigns.rows(sink);
      const aside = new Map<number, SetAsideReason[]>();
      const snapCampaigns = await withTurns(
        compileCampaignSlices(campaigns, owners, snapCreatives, compiledTargetings, now, this.kept.campaigns, {
          campaigns: aside,
          creatives: setAside.creatives,
          creativeName,
        }),
        this.between,
      );
      await this.between();
      built = {
        campaigns: snapCampaigns,
        setAside: aside,
        index: await withTurns(indexCampaignSlices(snapCampaigns.values()), this.between),
        uses: new CampaignUses(snapCampaigns.values()),
        accountsKey,
        nextEnd: nextFlightEnd(campaigns, owners, now),
      };
    }
    const { campaigns: snapCampaigns, index: campaignIndex } = built;
    await this.between();
    // the creatives each channel's (and supplier's) blocked ad categories refuse, once per targeting
    const categoryBlocks = new CategoryBlocksCompiler(snapCreatives.values());
    // tags and channels: the last build's kept whole when nothing they are made from changed
    const lastSupply = this.supplyBuilt;
    this.supplyBuilt = undefined;
    const supply =
      lastSupply &&
      lastSupply.accountsKey === accountsKey &&
      lastSupply.floorTablesKey === floorTablesKey &&
      !targetingsChanged.size &&
      !r.tags.changedIds.length &&
      !r.channels.changedIds.length &&
      !r.creatives.changedIds.length &&
      sameKeys(lastSupply.indexTenants, campaignIndex)
        ? lastSupply
        : await this.compileSupply(tags, channels, owners, compiledTargetings, categoryBlocks, campaignIndex, {
            accountsKey,
            floorTables,
            floorTablesKey,
          });
    setAside.tags = supply.tagsAside;
    setAside.channels = supply.channelsAside;
    const { tags: snapTags, channels: snapChannels } = supply;
    await this.between();
    const snapDeals = compileDeals(deals, owners, setAside.deals);
    recordUnreachedDemand(
      setAside,
      { creatives: snapCreatives, deals: snapDeals, tenants: owners.tenants },
      built.uses,
    );
    await this.between();
    // the first build knows nothing of what left before it: the store says what left in the last day
    let leftBeforeStart: LeftBeforeStart | undefined;
    if (!this.built) {
      const before = compileOwnersBefore(accounts);
      leftBeforeStart = {
        campaigns: compileLeftCampaigns(
          campaigns,
          owners,
          before,
          snapCreatives,
          compiledTargetings,
          { campaign: (id) => r.campaigns.updatedAt(id), creative: (id) => r.creatives.updatedAt(id) },
          now,
          DEPARTED_MS,
        ),
        tags: compileLeftTags(tags, owners, before, compiledTargetings, (id) => r.tags.updatedAt(id), now, DEPARTED_MS),
      };
      this.built = true;
    }
    this.campaignsBuilt = built;
    this.supplyBuilt = supply;

    const skipped: Record<string, number> = {};
    for (const s of sink.skipped) skipped[s.kind] = (skipped[s.kind] ?? 0) + 1;
    return {
      version,
      builtAt: now,
      buildMs: Math.round(performance.now() - started),
      tenants: owners.tenants,
      channelsByUid: supply.channelsByUid,
      channels: snapChannels,
      tags: snapTags.live,
      campaigns: snapCampaigns,
      creatives: snapCreatives,
      suppliersByUid: compileSuppliers(sups, owners, compiledTargetings, categoryBlocks),
      sdkAppsByKey: new Map(
        sdkapps
          .filter((a) => a.uid && a.tenantId !== null)
          .map((a) => [
            a.uid!,
            { id: a.id, tenantId: a.tenantId!, bundle: a.bundle, serving: a.status === 1 && !a.archived },
          ]),
      ),
      adExchanges: compileAdExchanges(adexchanges, owners, compiledTargetings),
      deals: snapDeals,
      supplyDeals: compileSupplyDeals(supplyDeals, owners, compiledTargetings, snapChannels, setAside.supplydeals),
      campaignIndex,
      skipped,
      // always present (undefined after the first build): every snapshot has one shape for the request path's loads
      leftBeforeStart,
      setAside: { ...setAside, campaigns: withUnservedAssignments(built.setAside, snapChannels, built.uses) },
      postbid: compilePostbid(
        accounts
          .filter((a) => a.type === 'demand' && a.managerId === null && owners.tenants.has(a.id))
          .map((a) => ({ tenantId: a.id, granted: a.postbidGranted, percent: a.postbidPercent, all: a.setPostbidAll })),
        ivts,
        channels,
        appConfig.postbidMaxImps,
      ),
    };
  }
}

/** Every kind's rows, kept parsed between builds; `clock` says when every head was last read. */
function parsedRowsOf(clock: Clock, campaignColumns: CampaignColumns) {
  return {
    channels: new ParsedRows('channels', readChannel, clock),
    tags: new ParsedRows('tags', readTag, clock),
    campaigns: new ParsedRows('campaigns', readCampaign, clock, campaignColumns),
    creatives: new ParsedRows('creatives', parseCreativeRow, clock),
    targetings: new ParsedRows('targetings', parseTargetingRow, clock),
    applists: new ParsedRows('applists', parseAppListRow, clock),
    publists: new ParsedRows('publists', parsePubListRow, clock),
    crelists: new ParsedRows('crelists', parseCreListRow, clock),
    iplists: new ParsedRows('iplists', parseIpListRow, clock),
    sups: new ParsedRows('sups', parseSupplierRow, clock),
    adexchanges: new ParsedRows('adexchanges', parseAdExchangeRow, clock),
    deals: new ParsedRows('deals', parseDealRow, clock),
    supplydeals: new ParsedRows('supplydeals', parseSupplyDealRow, clock),
    ivts: new ParsedRows('ivts', parseIvtRow, clock),
    sdkapps: new ParsedRows('sdkapps', parseSdkAppRow, clock),
  };
}

/** What a build made of the tags and channels, with what it was made from that a change would not show in their rows. */
interface SupplyBuilt {
  accountsKey: string;
  /** The dynamic channels' floor tables it was compiled with (ids and when computed). */
  floorTablesKey: string;
  /** The tenants with campaigns (a channel of one without demand of its own is reached by them). */
  indexTenants: ReadonlyMap<number, unknown>;
  tags: { live: Map<number, SnapTag>; idle: Map<number, string> };
  channels: Map<number, SnapChannel>;
  channelsByUid: Map<string, SnapChannel>;
  tagsAside: Map<number, SetAsideReason[]>;
  channelsAside: Map<number, SetAsideReason[]>;
}

/** Whether two maps hold the same keys. */
function sameKeys(a: ReadonlyMap<number, unknown>, b: ReadonlyMap<number, unknown>): boolean {
  if (a.size !== b.size) return false;
  for (const key of a.keys()) if (!b.has(key)) return false;
  return true;
}
