/**
 * What each demand tag of a channel with an optimised demand order was worth lately
 * (decision/demandOrder.ts): its calls, its fills (a bid at or above the floor it was held to), the
 * sum of those bids' CPMs and its timeouts, over a rolling window. Kept in this process's memory:
 * each edge process learns from its own traffic (docs/ad-server.md, "Optimised demand order"), which
 * costs a request one map lookup and a few additions per tag called, and no shared store.
 *
 * A window is WINDOW_BUCKETS buckets of a twelfth of it each; a bucket that fell out of the window
 * reads as empty and is reset when next written, so a reading covers between eleven twelfths of the
 * window and all of it.
 */
export const WINDOW_BUCKETS = 12;

/** Per bucket: its number (time / width), calls, fills, the fills' CPM sum, timeouts. */
const FIELDS = 5;
/** Before the buckets: the bucket width the series was made with (a changed window starts afresh). */
const HEAD = 1;

export interface TagMeasure {
  calls: number;
  /** Calls whose bid reached the floor it was held to (won, lost to a better one, or refused by delivery control after). */
  fills: number;
  /** The CPMs of those bids, micro-dollars, summed. */
  fillCpmSum: number;
  timeouts: number;
}

/** One call's outcome. */
interface TagCall {
  filled: boolean;
  /** The bid's CPM when filled, micro-dollars. */
  cpm: number;
  timeout: boolean;
}

const bucketWidth = (windowMs: number): number => Math.max(1, Math.floor(windowMs / WINDOW_BUCKETS));

export class TagValues {
  /** Series by channel key (decision/demandOrder.ts `valuesKey`), then tag id. */
  private readonly series = new Map<number, Map<number, Float64Array>>();

  record(channelKey: number, tagId: number, windowMs: number, now: number, call: TagCall): void {
    const width = bucketWidth(windowMs);
    let tags = this.series.get(channelKey);
    if (!tags) this.series.set(channelKey, (tags = new Map()));
    let s = tags.get(tagId);
    if (!s || s[0] !== width) {
      s = new Float64Array(HEAD + WINDOW_BUCKETS * FIELDS);
      s[0] = width;
      tags.set(tagId, s);
    }
    const bucket = Math.floor(now / width);
    const at = HEAD + (bucket % WINDOW_BUCKETS) * FIELDS;
    if (s[at] !== bucket) {
      s[at] = bucket;
      s.fill(0, at + 1, at + FIELDS);
    }
    s[at + 1]! += 1;
    if (call.filled) {
      s[at + 2]! += 1;
      s[at + 3]! += call.cpm;
    }
    if (call.timeout) s[at + 4]! += 1;
  }

  /** The tag's sums over the window ending at `now` (zeros when it was never called there). */
  measure(channelKey: number, tagId: number, windowMs: number, now: number): TagMeasure {
    const m: TagMeasure = { calls: 0, fills: 0, fillCpmSum: 0, timeouts: 0 };
    const width = bucketWidth(windowMs);
    const s = this.series.get(channelKey)?.get(tagId);
    if (!s || s[0] !== width) return m;
    const current = Math.floor(now / width);
    for (let i = 0; i < WINDOW_BUCKETS; i++) {
      const at = HEAD + i * FIELDS;
      const bucket = s[at]!;
      if (bucket <= current - WINDOW_BUCKETS || bucket > current) continue;
      m.calls += s[at + 1]!;
      m.fills += s[at + 2]!;
      m.fillCpmSum += s[at + 3]!;
      m.timeouts += s[at + 4]!;
    }
    return m;
  }
}
