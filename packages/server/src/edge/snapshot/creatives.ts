import { creativeServes, parseCreativeRow, type SkipSink, type StoredRow } from '@adplane/shared';
import { type Owners, ownersServe } from './accounts.js';
import { type SnapCreative } from './types.js';

/** Approved, live creatives of live advertisers and tenants. */
export function compileCreatives(rows: readonly StoredRow[], owners: Owners, sink: SkipSink): Map<number, SnapCreative> {
  const out = new Map<number, SnapCreative>();
  for (const row of rows) {
    const c = parseCreativeRow(row, sink);
    if (!c || !creativeServes(c, { tenant: { status: 1, archived: false } })) continue;
    if (!ownersServe(owners, c.tenantId, { advertiserId: c.advertiserId })) continue;
    out.set(c.id, {
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
    });
  }
  return out;
}
