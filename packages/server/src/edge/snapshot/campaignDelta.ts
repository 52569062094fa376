import { type CampaignIndex } from '../targeting/campaignIndex.js';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type Owners } from './accounts.js';
import { type CampaignBook } from './campaignBook.js';
import { type CampaignColumns } from './campaignColumns.js';
import { type CampaignFacts, compileCampaignSlices, nextFlightEnd, tenantIndex } from './campaigns.js';
import { OverlayMap } from './overlayMap.js';
import { type CampaignUses } from './setAside.js';
import { type Sliced, SLICE_ROWS } from './slices.js';
import { type SetAsideReason, type SnapCampaign, type SnapCreative } from './types.js';

/**
 * What a build made of the campaigns, for the next build to update by what changed (`updateCampaigns`).
 * The maps are the snapshot's own: a later build copies them before it changes anything.
 */
export interface CampaignsBuilt {
  campaigns: ReadonlyMap<number, SnapCampaign>;
  /** Why each campaign left out was (setAside.ts). */
  setAside: ReadonlyMap<number, readonly SetAsideReason[]>;
  index: ReadonlyMap<number, CampaignIndex<SnapCampaign>>;
  /** The creatives and deals the campaigns use (updated in place by the next build). */
  uses: CampaignUses;
  /** The account rows the owners were compiled from, as text: any change to them rebuilds every campaign. */
  accountsKey: string;
  /** When the first flight of a stored campaign ends after the build (campaigns.ts nextFlightEnd). */
  nextEnd: number;
}

/** What a build reads to update the last one's campaigns. */
export interface CampaignInputs {
  owners: Owners;
  accountsKey: string;
  targetings: ReadonlyMap<number, CompiledTargeting>;
  /** Ids of the targetings compiled into another object (or none) since the last build (`changedKeys`). */
  targetingsChanged: ReadonlySet<number>;
  creatives: ReadonlyMap<number, SnapCreative>;
  /** The creatives' own reasons for being set aside, and their names (campaigns.ts CampaignsSetAside). */
  creativesAside: ReadonlyMap<number, readonly SetAsideReason[]>;
  creativeName: (id: number) => string | undefined;
  now: number;
  /** The stored campaigns: by id, and as columns to find those naming a changed targeting or creative. */
  rows: { value(id: number): CampaignFacts | null };
  columns: CampaignColumns;
  /** Ids of the campaign and creative rows read again (or dropped) since the last build. */
  changedCampaigns: readonly number[];
  changedCreatives: readonly number[];
  book: CampaignBook;
}

/** More changed campaigns than this and a build compiles every campaign: its merge would cost as much. */
const MOST_CHANGED = 50_000;

/**
 * Tenants whose index a build re-makes beside those it changed, in turn: ties are shuffled when an
 * index is made (campaigns.ts tenantIndex), so over builds every tied campaign still gets its turn.
 */
const ROTATED_TENANTS = 20;

/**
 * The last build's campaigns updated by what changed since: the changed campaign rows, and those
 * naming a targeting whose compiled object changed or a creative whose row did, compiled again with
 * the same rules as a full build (compileCampaigns) and laid over its maps (overlayMap.ts); the index of
 * each tenant they belong to (or belonged to) made again. Null when a change is not one a merge can
 * take: the accounts changed (a tenant's switch, zone or DSP view, an advertiser's name reach every
 * campaign of theirs), a flight ended since (`nextEnd`), or too many campaigns changed; the caller
 * then compiles every campaign. `last.uses` is updated in place: a caller keeps `last` only through
 * what this answers. Cut into slices (slices.ts): the changed campaigns' compile, and the tenants'
 * indexes by SLICE_ROWS campaigns, as a full build's are.
 */
export function* updateCampaignSlices(
  last: CampaignsBuilt,
  input: CampaignInputs,
  rotate: { next: number },
): Sliced<CampaignsBuilt | null> {
  if (input.accountsKey !== last.accountsKey || input.now >= last.nextEnd) return null;
  const affected = new Set(input.changedCampaigns);
  if (affected.size > MOST_CHANGED) return null;
  for (const id of input.columns.idsNaming(input.targetingsChanged, new Set(input.changedCreatives))) affected.add(id);
  if (affected.size > MOST_CHANGED) return null;

  // what changes: a campaign made again or taken out (null), a set-aside campaign's reasons
  const changes = new Map<number, SnapCampaign | null>();
  const asideChanges = new Map<number, readonly SetAsideReason[] | null>();
  const { uses } = last;
  const tenants = new Set<number>();
  const rows: CampaignFacts[] = [];
  for (const id of affected) {
    const was = last.campaigns.get(id);
    if (was) {
      tenants.add(was.tenantId);
      uses.remove(was);
    }
    changes.set(id, null);
    asideChanges.set(id, null);
    const row = input.rows.value(id);
    if (row) rows.push(row);
  }
  const { book } = input;
  const aside = new Map<number, SetAsideReason[]>();
  const made = yield* compileCampaignSlices(
    rows,
    input.owners,
    input.creatives,
    input.targetings,
    input.now,
    { take: (row, stillValid, make) => book.take(row, stillValid, make) },
    { campaigns: aside, creatives: input.creativesAside, creativeName: input.creativeName },
  );
  for (const [id, c] of made) {
    changes.set(id, c);
    uses.add(c);
    tenants.add(c.tenantId);
  }
  for (const [id, reasons] of aside) asideChanges.set(id, reasons);
  const campaigns = OverlayMap.of(last.campaigns).with(changes);
  const setAside = OverlayMap.of(last.setAside).with(asideChanges);
  book.settle(campaigns);

  // ties rotate in a few more tenants each build (the index's tenants in turn)
  const order = [...last.index.keys()];
  for (let i = 0; i < Math.min(ROTATED_TENANTS, order.length); i++)
    tenants.add(order[(rotate.next + i) % order.length]!);
  rotate.next = order.length ? (rotate.next + ROTATED_TENANTS) % order.length : 0;

  const index = new Map(last.index);
  let inSlice = 0;
  for (const tenantId of tenants) {
    if (inSlice >= SLICE_ROWS) {
      inSlice = 0;
      yield;
    }
    inSlice += last.index.get(tenantId)?.items.length ?? 0;
    const list = (last.index.get(tenantId)?.items ?? []).filter((c) => !affected.has(c.id));
    for (const c of made.values()) if (c.tenantId === tenantId) list.push(c);
    if (list.length) index.set(tenantId, tenantIndex(list));
    else index.delete(tenantId);
  }
  return {
    campaigns,
    setAside,
    index,
    uses,
    accountsKey: input.accountsKey,
    nextEnd: Math.min(last.nextEnd, nextFlightEnd(rows, input.owners, input.now)),
  };
}

/** The keys whose value is another object (or none) in `after` than in `before`. */
export function changedKeys<V>(before: ReadonlyMap<number, V>, after: ReadonlyMap<number, V>): Set<number> {
  const out = new Set<number>();
  for (const [id, value] of after) if (before.get(id) !== value) out.add(id);
  for (const id of before.keys()) if (!after.has(id)) out.add(id);
  return out;
}
