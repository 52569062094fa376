import { type SkipSink } from '@adplane/shared';
import { readConfigVersion } from '../../store/configVersion.js';
import { CampaignIndex } from '../targeting/campaignIndex.js';
import { compileOwners } from './accounts.js';
import { compileCampaigns } from './campaigns.js';
import { compileChannels } from './channels.js';
import { compileCreatives } from './creatives.js';
import { loadAccounts, loadKind, type StoreDb } from './loadRows.js';
import { compileTags } from './tags.js';
import { compileTargetings } from './targetings.js';
import { type SnapCampaign, type Snapshot } from './types.js';

/** Read every kind through its typed parser and compile the snapshot (one read of the store). */
export async function compileSnapshot(db: StoreDb, now = Date.now()): Promise<Snapshot> {
  const started = performance.now();
  // The version is read first: a write that lands while we read makes the next poll rebuild again.
  const version = await readConfigVersion(db);
  const [accounts, channels, tags, campaigns, creatives, targetings, applists, publists, crelists] = await Promise.all([
    loadAccounts(db),
    loadKind(db, 'channels'),
    loadKind(db, 'tags'),
    loadKind(db, 'campaigns'),
    loadKind(db, 'creatives'),
    loadKind(db, 'targetings'),
    loadKind(db, 'applists'),
    loadKind(db, 'publists'),
    loadKind(db, 'crelists'),
  ]);
  const sink: SkipSink = { skipped: [] };
  const owners = compileOwners(accounts);
  const compiledTargetings = compileTargetings({ targetings, applists, publists, crelists }, sink);
  const snapCreatives = compileCreatives(creatives, owners, sink);
  const snapTags = compileTags(tags, owners, compiledTargetings, sink);
  const snapCampaigns = compileCampaigns(campaigns, owners, snapCreatives, compiledTargetings, sink);
  const snapChannels = compileChannels(channels, owners, snapTags, compiledTargetings, sink);

  const byTenant = new Map<number, SnapCampaign[]>();
  for (const c of snapCampaigns.values()) {
    let list = byTenant.get(c.tenantId);
    if (!list) byTenant.set(c.tenantId, (list = []));
    list.push(c);
  }
  const campaignIndex = new Map<number, CampaignIndex<SnapCampaign>>();
  for (const [tenantId, list] of byTenant) campaignIndex.set(tenantId, new CampaignIndex(list, (c) => c.targeting));

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
    campaignIndex,
    skipped,
  };
}
