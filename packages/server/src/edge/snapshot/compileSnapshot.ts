import { type Clock, systemClock } from '../../clock.js';
import {
  parseAdExchangeRow,
  parseAppListRow,
  parseCampaignRow,
  parseChannelRow,
  parseCreativeRow,
  parseCreListRow,
  parseDealRow,
  parseDemandTagRow,
  parseIvtRow,
  parseSdkAppRow,
  parsePubListRow,
  parseSupplierRow,
  parseTargetingRow,
  type CreativeRow,
  type SkipSink,
} from '@adplane/shared';
import { getAppConfig } from '../../store/appConfig.js';
import { readConfigVersion } from '../../store/configVersion.js';
import { compilePostbid } from './postbidPlan.js';
import { compileOwners, compileOwnersBefore } from './accounts.js';
import { campaignFacts, compileCampaignSlices, compileLeftCampaigns, indexCampaignSlices } from './campaigns.js';
import { withTurns } from './slices.js';
import { CategoryBlocksCompiler } from './categoryBlocks.js';
import { compileChannels } from './channels.js';
import { compileCreatives } from './creatives.js';
import { loadAccounts, type StoreDb } from './loadRows.js';
import { ParsedRows } from './parsedRows.js';
import { compileAdExchanges, compileDeals, compileSuppliers } from './programmatic.js';
import { DEPARTED_MS } from './departed.js';
import { compileLeftTags, compileTags } from './tags.js';
import { newSetAside, recordUnreached } from './setAside.js';
import { compileTargetings, type TargetingsKept } from './targetings.js';
import { Kept } from './kept.js';
import { CampaignBook } from './campaignBook.js';
import { channelFacts, tagFacts } from './sharedValues.js';
import { CampaignColumns } from './campaignColumns.js';
import { type LeftBeforeStart, type SnapCreative, type Snapshot } from './types.js';

/** One turn of the event loop: what waits behind a build (requests, timers) runs. */
const loopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Compiles snapshots from the config store, every kind read through its typed parser. Parsed rows
 * are kept between builds (./parsedRows.ts), so a rebuild after a change re-reads and re-parses only
 * the rows that changed; the compile itself (owners, targeting, indexes) runs over every row, keeping
 * the objects of unchanged campaigns, creatives and targetings (./kept.ts).
 *
 * The compile runs on the serving thread while the current snapshot serves: it hands the event loop
 * back between its steps (`between`, a loop turn), and inside the long ones (the campaigns' compile
 * and index) between slices of a few thousand rows (slices.ts), so that requests wait behind one
 * slice, not the whole build. Nothing a step writes is read by the snapshot that serves meanwhile (compiled objects are
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
    this.rows = parsedRowsOf(clock);
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
      channels,
      tags,
      campaigns,
      creatives,
      targetings,
      applists,
      publists,
      crelists,
      sups,
      adexchanges,
      deals,
      ivts,
      sdkapps,
      appConfig,
    ] = await Promise.all([
      loadAccounts(db),
      r.channels.load(db, sink),
      r.tags.load(db, sink),
      r.campaigns.load(db, sink),
      r.creatives.load(db, sink),
      r.targetings.load(db, sink),
      r.applists.load(db, sink),
      r.publists.load(db, sink),
      r.crelists.load(db, sink),
      r.sups.load(db, sink),
      r.adexchanges.load(db, sink),
      r.deals.load(db, sink),
      r.ivts.load(db, sink),
      r.sdkapps.load(db, sink),
      getAppConfig(db),
    ]);
    const owners = compileOwners(accounts);
    // why each row is set aside, recorded by the compile functions as they decide (setAside.ts)
    const setAside = newSetAside();
    const compiledTargetings = compileTargetings({ targetings, applists, publists, crelists }, this.kept.targetings);
    const snapCreatives = compileCreatives(creatives, owners, this.kept.creatives, setAside.creatives);
    await this.between();
    const snapTags = compileTags(tags, owners, compiledTargetings, setAside.tags);
    await this.between();
    let creativeNames: Map<number, string> | undefined;
    const snapCampaigns = await withTurns(
      compileCampaignSlices(campaigns, owners, snapCreatives, compiledTargetings, now, this.kept.campaigns, {
        campaigns: setAside.campaigns,
        creatives: setAside.creatives,
        // built the first time a campaign without a creative asks
        creativeName: (id) => (creativeNames ??= new Map(creatives.map((c) => [c.id, c.name]))).get(id),
      }),
      this.between,
    );
    await this.between();
    // the creatives each channel's (and supplier's) blocked ad categories refuse, once per targeting
    const categoryBlocks = new CategoryBlocksCompiler(snapCreatives.values());
    const snapChannels = compileChannels(
      channels,
      owners,
      snapTags,
      compiledTargetings,
      categoryBlocks,
      setAside.channels,
    );

    await this.between();
    const campaignIndex = await withTurns(indexCampaignSlices(snapCampaigns.values()), this.between);
    await this.between();
    const snapDeals = compileDeals(deals, owners, setAside.deals);
    recordUnreached(
      setAside,
      {
        channels: snapChannels,
        tags: snapTags.live,
        campaigns: snapCampaigns,
        creatives: snapCreatives,
        deals: snapDeals,
        campaignIndex,
        tenants: owners.tenants,
      },
      tags,
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

    const skipped: Record<string, number> = {};
    for (const s of sink.skipped) skipped[s.kind] = (skipped[s.kind] ?? 0) + 1;
    return {
      version,
      builtAt: now,
      buildMs: Math.round(performance.now() - started),
      tenants: owners.tenants,
      channelsByUid: new Map([...snapChannels.values()].map((c) => [c.uid, c])),
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
      campaignIndex,
      skipped,
      // always present (undefined after the first build): every snapshot has one shape for the request path's loads
      leftBeforeStart,
      setAside,
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
function parsedRowsOf(clock: Clock) {
  return {
    channels: new ParsedRows(
      'channels',
      (row, sink) => {
        const c = parseChannelRow(row, sink);
        return c && channelFacts(c);
      },
      clock,
    ),
    tags: new ParsedRows(
      'tags',
      (row, sink) => {
        const t = parseDemandTagRow(row, sink);
        return t && tagFacts(t);
      },
      clock,
    ),
    campaigns: new ParsedRows(
      'campaigns',
      (row, sink) => {
        const c = parseCampaignRow(row, sink);
        return c && campaignFacts(c, row.createdAt);
      },
      clock,
      new CampaignColumns(),
    ),
    creatives: new ParsedRows('creatives', parseCreativeRow, clock),
    targetings: new ParsedRows('targetings', parseTargetingRow, clock),
    applists: new ParsedRows('applists', parseAppListRow, clock),
    publists: new ParsedRows('publists', parsePubListRow, clock),
    crelists: new ParsedRows('crelists', parseCreListRow, clock),
    sups: new ParsedRows('sups', parseSupplierRow, clock),
    adexchanges: new ParsedRows('adexchanges', parseAdExchangeRow, clock),
    deals: new ParsedRows('deals', parseDealRow, clock),
    ivts: new ParsedRows('ivts', parseIvtRow, clock),
    sdkapps: new ParsedRows('sdkapps', parseSdkAppRow, clock),
  };
}
