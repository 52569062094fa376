import { createHash } from 'node:crypto';

/**
 * Frequency caps: a viewer sees at most `count` impressions of a campaign per window of
 * `periodHours`. The window is anchored on the viewer: it opens at the first counted impression and
 * closes `periodHours` later; the next impression after that opens a new one. (A fixed calendar
 * window would let a viewer see 2 x count around its boundary; an anchored one never does.)
 *
 * Each process keeps the viewers it has seen recently in a local cache that decides synchronously:
 * the shared count (as of the last exchange) plus what this process committed since and what it has
 * reserved. A viewer new to the process is decided on the local part alone while its shared count is
 * fetched in the background.
 */

/** All-zero advertising ids (a limited-ad-tracking device) identify nobody. */
const BLANK_DEVICE = /^[0-]*$/;

/**
 * The viewer a frequency cap counts: the device id when there is one, else adplane's own id for the
 * browser (`userId`: the `uids` cookie of Prebid Server's user sync, edge/doors/prebidServer/userSync.ts, or the
 * buyer uid a bid request carries), else a hash of the IP and user agent.
 */
export function viewerKey(deviceId: string | null | undefined, ip: string, userAgent: string, userId = ''): string {
  const device = (deviceId ?? '').trim().toLowerCase();
  if (device && !BLANK_DEVICE.test(device))
    return `d:${device.length > 64 ? createHash('sha1').update(device).digest('base64url') : device}`;
  if (userId) return `u:${userId.length > 64 ? createHash('sha1').update(userId).digest('base64url') : userId}`;
  return `h:${createHash('sha1').update(ip).update('\n').update(userAgent).digest('base64url').slice(0, 16)}`;
}

export class ViewerCount {
  /** The shared count in the window, as of the last exchange (this process's sent impressions included). */
  count = 0;
  windowEnd = 0;
  /** The campaign's cap (count per window). */
  cap = Infinity;
  /** Admitted here, not yet an impression. */
  pending = 0;
  /** Impressions counted here and not yet sent; being sent. */
  unsent = 0;
  sending = 0;
  fetchedAt = -Infinity;
  inFlight = false;
  /**
   * The shared count and window end as the last exchange answered (`count` moves on with other
   * processes' notices too), and the generation of the shared counters' data they were seen in.
   */
  seenCount = 0;
  seenEnd = 0;
  generation = '';
  /** The shared counters lost their data (a Redis restarted empty): the next exchange sends the count back. */
  restore = false;
  usedAt: number;

  constructor(
    readonly key: string,
    public periodMs: number,
    now: number,
  ) {
    this.usedAt = now;
  }

  total(now: number): number {
    return (this.windowEnd > now ? this.count : 0) + this.unsent + this.sending + this.pending;
  }

  get idle(): boolean {
    return !this.pending && !this.unsent && !this.sending && !this.inFlight;
  }
}

/** The local cache of viewer counts, bounded: the oldest idle entries go first. */
export class ViewerCounts {
  private readonly entries = new Map<string, ViewerCount>();
  /** Entries asked about or counted since they were last exchanged: the only ones a tick looks at. */
  readonly touched = new Set<ViewerCount>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(campaignId: number, viewer: string, periodMs: number, now: number): ViewerCount {
    const key = `${campaignId}:${viewer}`;
    let entry = this.entries.get(key);
    if (!entry) {
      if (this.entries.size >= this.max) this.evict();
      this.entries.set(key, (entry = new ViewerCount(key, periodMs, now)));
    }
    entry.periodMs = periodMs;
    entry.usedAt = now;
    this.touched.add(entry);
    return entry;
  }

  values(): IterableIterator<ViewerCount> {
    return this.entries.values();
  }

  /** The entry if this process has it (a notice never creates one). */
  peek(key: string): ViewerCount | undefined {
    return this.entries.get(key);
  }

  private evict(): void {
    let looked = 0;
    for (const [key, entry] of this.entries) {
      if (entry.idle) {
        this.entries.delete(key);
        this.touched.delete(entry);
      }
      if (++looked >= 16 || this.entries.size < this.max) return;
    }
  }
}
