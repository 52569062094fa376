/**
 * Requests per viewer over a sliding window, for the "impossible rate" rule: O(1) per request,
 * bounded memory, no timers.
 *
 * Two fixed windows (generations) stand in for a sliding one, as a rate limiter or a replay guard
 * does: the count in the last `windowMs` is estimated as this window's count plus the previous
 * window's, weighted by how much of it still overlaps the sliding window. When a window ends, the
 * current map becomes the previous one and the old previous map is cleared and reused, so memory
 * holds at most two windows of keys, and each window at most `maxKeys` of them: past that, new keys
 * in the window are not tracked (counted in `untracked`), which errs towards not flagging.
 */
export interface RateLimit {
  /** More than this many requests in the window is impossible for one device. */
  maxPerDevice: number;
  /** The same for IP + user agent (no device id): higher, as a carrier NAT puts many phones behind one address. */
  maxPerIpUa: number;
  windowMs: number;
  /** Keys one window holds at most. */
  maxKeys: number;
}

/** A CTV ad pod asks for at most a handful of ads a few times a minute; 30 in 10 s is far above any player. */
export const DEFAULT_RATE_LIMIT: RateLimit = Object.freeze({
  maxPerDevice: 30,
  maxPerIpUa: 60,
  windowMs: 10_000,
  maxKeys: 200_000,
});

export class RequestRateCounter {
  private current = new Map<string | number, number>();
  private previous = new Map<string | number, number>();
  private windowStart = -Infinity;
  /** Requests whose key could not be tracked because the window was full. */
  untracked = 0;

  constructor(readonly limit: RateLimit = DEFAULT_RATE_LIMIT) {}

  /** Counts one request for `key` at `now` (ms); whether the estimated requests in the last window, this one included, exceed `max`. */
  exceeds(key: string | number, now: number, max: number): boolean {
    return this.hit(key, now) > max;
  }

  /** Counts one request for `key` at `now` (ms) and answers the estimated requests in the last window, this one included. */
  hit(key: string | number, now: number): number {
    const w = this.limit.windowMs;
    let elapsed = now - this.windowStart;
    if (elapsed >= w) {
      const recycled = this.previous;
      recycled.clear();
      if (elapsed < 2 * w) {
        this.previous = this.current;
        this.windowStart += w;
      } else {
        // idle for a whole window or more (or the first request): nothing overlaps any more
        this.current.clear();
        this.previous = this.current;
        this.windowStart = now;
      }
      this.current = recycled;
      elapsed = now - this.windowStart;
    } else if (elapsed < 0) elapsed = 0; // the clock stepped back: count it in the current window
    let count = this.current.get(key);
    if (count !== undefined) this.current.set(key, ++count);
    else if (this.current.size < this.limit.maxKeys) this.current.set(key, (count = 1));
    else {
      this.untracked++;
      count = 1;
    }
    const before = this.previous.get(key);
    return before === undefined ? count : count + before * ((w - elapsed) / w);
  }

  get keys(): number {
    return this.current.size + this.previous.size;
  }
}
