import { type ChannelRow, isLive, type IvtRow } from '@adplane/shared';

/**
 * Which impressions may carry post-bid pixels (docs/traffic-quality.md, Post-bid pixels), compiled
 * once per snapshot so a decision reads one map entry:
 *
 * - the account's options in force: `postbidPercent` (the share of impressions that carry pixels)
 *   and `setPostbidAll` (every channel carries all of the account's post-bid pixels), both only while
 *   the admin grants the account post-bid (showPostbidPix or showPostbidWh: without it the console
 *   hides the options and stored values wait, as the IVT options do);
 * - otherwise a channel's own pixels: its `ivtIds` that are live post-bid pixels of its account.
 */
export interface SnapPostbidPixel {
  id: number;
  vendor: string;
  urlTemplate: string;
  /** 0..100: the share of the account's sampled impressions this pixel is added to. */
  samplePercent: number;
}

export interface PostbidPlan {
  tenantId: number;
  /** 0..100, the account's postbidPercent. */
  percent: number;
  pixels: readonly SnapPostbidPixel[];
  /** Where the pixels come from: the channel's own list, or the account's setPostbidAll. */
  source: 'channel' | 'account';
}

export interface PostbidSnapshot {
  /** The admin's postbidMaxImps: post-bid impressions per account and calendar month (UTC); 0: no cap. */
  maxImps: number;
  /** Plans of channels with pixels of their own (accounts without setPostbidAll). */
  channels: ReadonlyMap<number, PostbidPlan>;
  /** Plans of accounts with setPostbidAll: every channel (and supplier) of the account. */
  tenants: ReadonlyMap<number, PostbidPlan>;
  /** Accounts whose post-bid is granted by the admin (the others never carry pixels). */
  enabled: ReadonlySet<number>;
}

/** An account's post-bid options as the snapshot reads them from its row. */
export interface AccountPostbid {
  tenantId: number;
  /** showPostbidPix or showPostbidWh: the admin's grant. */
  granted: boolean;
  percent: number;
  all: boolean;
}

export const NO_POSTBID: PostbidSnapshot = { maxImps: 0, channels: new Map(), tenants: new Map(), enabled: new Set() };

export function compilePostbid(
  accounts: readonly AccountPostbid[],
  ivts: readonly IvtRow[],
  channels: readonly ChannelRow[],
  maxImps: number,
): PostbidSnapshot {
  const pixelsByTenant = new Map<number, Map<number, SnapPostbidPixel>>();
  for (const p of ivts) {
    if (p.stage !== 'postbid' || !isLive(p) || p.tenantId === null || p.samplePercent <= 0) continue;
    let own = pixelsByTenant.get(p.tenantId);
    if (!own) pixelsByTenant.set(p.tenantId, (own = new Map()));
    own.set(p.id, { id: p.id, vendor: p.vendor, urlTemplate: p.urlTemplate, samplePercent: p.samplePercent });
  }
  const settings = new Map<number, AccountPostbid>();
  const enabled = new Set<number>();
  const tenants = new Map<number, PostbidPlan>();
  for (const a of accounts) {
    if (!a.granted) continue;
    enabled.add(a.tenantId);
    settings.set(a.tenantId, a);
    const pixels = pixelsByTenant.get(a.tenantId);
    if (a.all && pixels?.size)
      tenants.set(a.tenantId, {
        tenantId: a.tenantId,
        percent: a.percent,
        pixels: [...pixels.values()],
        source: 'account',
      });
  }
  const byChannel = new Map<number, PostbidPlan>();
  for (const c of channels) {
    if (c.tenantId === null || !c.ivtIds.length) continue;
    const account = settings.get(c.tenantId);
    if (!account || account.all) continue;
    const own = pixelsByTenant.get(c.tenantId);
    // only the account's own live post-bid pixels: a stale or foreign id in the list is ignored
    const pixels = c.ivtIds.map((id) => own?.get(id)).filter((p): p is SnapPostbidPixel => p !== undefined);
    if (pixels.length)
      byChannel.set(c.id, { tenantId: c.tenantId, percent: account.percent, pixels, source: 'channel' });
  }
  return { maxImps: maxImps > 0 ? maxImps : 0, channels: byChannel, tenants, enabled };
}

/** The plan of a channel's impression: the account's (setPostbidAll) first, else the channel's own; null: no pixel configured. */
export function postbidPlanOf(postbid: PostbidSnapshot, channel: { id: number; tenantId: number }): PostbidPlan | null {
  return postbid.tenants.get(channel.tenantId) ?? postbid.channels.get(channel.id) ?? null;
}
