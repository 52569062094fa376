export interface LoginThrottleOptions {
  /** Failed sign-ins allowed within the window before the client is refused. */
  maxFailures?: number;
  windowMs?: number;
  /** Clients tracked at most; the least recently failing are forgotten first. */
  maxClients?: number;
  now?: () => number;
}

/**
 * Brute-force brake per client IP: after `maxFailures` failed sign-ins within `windowMs` the client is
 * refused until the oldest of those failures leaves the window. A successful sign-in clears it. In
 * memory, per process: with several api nodes each node brakes on its own.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly maxClients: number;
  private readonly now: () => number;

  constructor(options: LoginThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? 5;
    this.windowMs = options.windowMs ?? 15 * 60_000;
    this.maxClients = options.maxClients ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  private recent(client: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.failures.get(client) ?? []).filter((at) => at > since);
  }

  /** Milliseconds until the client may try again; 0 when it may try now. */
  retryAfterMs(client: string): number {
    const recent = this.recent(client);
    if (recent.length < this.maxFailures) return 0;
    const oldestCounted = recent[recent.length - this.maxFailures];
    return Math.max(0, oldestCounted + this.windowMs - this.now());
  }

  recordFailure(client: string): void {
    const recent = this.recent(client);
    recent.push(this.now());
    this.failures.delete(client);
    if (this.failures.size >= this.maxClients) this.evict();
    this.failures.set(client, recent.slice(-this.maxFailures));
  }

  clear(client: string): void {
    this.failures.delete(client);
  }

  get trackedClients(): number {
    return this.failures.size;
  }

  private evict(): void {
    const since = this.now() - this.windowMs;
    for (const [client, times] of this.failures) {
      if (times[times.length - 1] <= since) this.failures.delete(client);
    }
    // Still full: forget the clients whose last failure is oldest (Map keeps insertion order).
    for (const client of this.failures.keys()) {
      if (this.failures.size < this.maxClients) break;
      this.failures.delete(client);
    }
  }
}
