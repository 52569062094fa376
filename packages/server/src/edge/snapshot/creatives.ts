import { type CreativeRow, creativeServes } from '@adplane/shared';
import { type Owners, ownersServe } from './accounts.js';
import { Kept } from './kept.js';
import { creativeReasons, record } from './setAside.js';
import { type SetAsideReason, type SnapCreative } from './types.js';

/**
 * Approved, live creatives of live advertisers and tenants. `kept` (the snapshot compiler's, across
 * builds) keeps the object of a creative whose row did not change. Why each other one was left out
 * goes into `setAside` (setAside.ts).
 */
export function compileCreatives(
  rows: readonly CreativeRow[],
  owners: Owners,
  kept = new Kept<CreativeRow, SnapCreative>(),
  setAside?: Map<number, SetAsideReason[]>,
): Map<number, SnapCreative> {
  const out = new Map<number, SnapCreative>();
  for (const c of rows) {
    if (
      !creativeServes(c, { tenant: { status: 1, archived: false } }) ||
      !ownersServe(owners, c.tenantId, { advertiserId: c.advertiserId })
    ) {
      if (setAside) record(setAside, c.id, creativeReasons(c, owners));
      continue;
    }
    out.set(
      c.id,
      kept.take(c, always, () => compileCreative(c)),
    );
  }
  return out;
}

/** A creative is made from its row alone. */
const always = (): boolean => true;

function compileCreative(c: CreativeRow): SnapCreative {
  return {
    id: c.id,
    tenantId: c.tenantId!,
    name: c.name,
    advertiserId: c.advertiserId ?? 0,
    format: c.format,
    videoSource: c.videoSource,
    mediaFiles: c.mediaFiles,
    vastUrl: c.vastUrl,
    duration: c.duration || Math.max(0, ...c.mediaFiles.map((m) => m.duration)),
    displayType: c.displayType,
    imageUrl: c.imageUrl,
    html: c.html,
    width: c.width,
    height: c.height,
    clickUrl: c.clickUrl,
    adomain: c.adomain,
    iabCategories: c.iabCategories,
    // only our own media can be made skippable: a third-party VAST says so itself (always set: one object shape)
    skipAfter: c.format === 'video' && c.videoSource === 'media' ? c.skipAfter : 0,
  };
}
