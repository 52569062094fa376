/**
 * Brute-force brakes on sign-in, as the OWASP authentication guidance describes: failures are counted
 * per account and per client address separately, within a sliding window.
 *
 * - Per account: after `account.slowAfter` failures each further attempt is slowed down (1 s, 2 s,
 *   4 s... up to `maxDelayMs`), after `account.refuseAfter` it is refused until the oldest failure
 *   leaves the window. Only that account's own successful sign-in clears its count: a success of
 *   another account, from the same address or not, never does.
 * - Per address: the same, with limits high enough that one person's typos never lock out everyone
 *   behind an office proxy or a carrier NAT, but a guessing run from one address is stopped.
 *
 * In memory, per process: with several api nodes each node brakes on its own.
 */

import { systemClock } from '../clock.js';
interface ThrottleLimits {
  /** Failures within the window after which attempts are slowed down. */
  slowAfter: number;
  /** Failures within the window after which attempts are refused. */
  refuseAfter: number;
}

export interface LoginThrottleOptions {
  account?: Partial<ThrottleLimits>;
  address?: Partial<ThrottleLimits>;
  windowMs?: number;
  /** Delay of the first slowed-down attempt; doubles with each further failure. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Keys tracked at most per counter; the least recently failing are forgotten first. */
  maxKeys?: number;
  now?: () => number;
  /** How a slowed-down attempt waits; tests pass one that records instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
}

/** What to do with a sign-in attempt before checking its password. */
export interface ThrottleVerdict {
  /** > 0: refuse, the client may try again in this many milliseconds. */
  retryAfterMs: number;
  /** > 0: answer only after this many milliseconds (slow down). */
  delayMs: number;
}

const DEFAULT_ACCOUNT_LIMITS: ThrottleLimits = { slowAfter: 3, refuseAfter: 10 };
const DEFAULT_ADDRESS_LIMITS: ThrottleLimits = { slowAfter: 20, refuseAfter: 100 };

/** Failure times per key within a sliding window. */
class FailureWindow {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limits: ThrottleLimits,
    private readonly windowMs: number,
    private readonly maxKeys: number,
    private readonly now: () => number,
  ) {}

  recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.failures.get(key) ?? []).filter((at) => at > since);
  }

  retryAfterMs(key: string): number {
    const recent = this.recent(key);
    if (recent.length < this.limits.refuseAfter) return 0;
    const oldestCounted = recent[recent.length - this.limits.refuseAfter];
    return Math.max(0, oldestCounted + this.windowMs - this.now());
  }

  /** How many failures beyond the slow-down limit (0: none). */
  excess(key: string): number {
    return Math.max(0, this.recent(key).length - this.limits.slowAfter + 1);
  }

  record(key: string): void {
    const recent = this.recent(key);
    recent.push(this.now());
    this.failures.delete(key);
    if (this.failures.size >= this.maxKeys) this.evict();
    this.failures.set(key, recent.slice(-this.limits.refuseAfter));
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  get size(): number {
    return this.failures.size;
  }

  private evict(): void {
    const since = this.now() - this.windowMs;
    for (const [key, times] of this.failures) {
      if (times[times.length - 1] <= since) this.failures.delete(key);
    }
    // Still full: forget the keys whose last failure is oldest (a Map keeps insertion order).
    for (const key of this.failures.keys()) {
      if (this.failures.size < this.maxKeys) break;
      this.failures.delete(key);
    }
  }
}

export class LoginThrottle {
  private readonly accounts: FailureWindow;
  private readonly addresses: FailureWindow;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  /** Wait before answering a slowed-down attempt. */
  readonly sleep: (ms: number) => Promise<void>;

  constructor(options: LoginThrottleOptions = {}) {
    const windowMs = options.windowMs ?? 15 * 60_000;
    const maxKeys = options.maxKeys ?? 10_000;
    const now = options.now ?? systemClock.now;
    this.accounts = new FailureWindow({ ...DEFAULT_ACCOUNT_LIMITS, ...options.account }, windowMs, maxKeys, now);
    this.addresses = new FailureWindow({ ...DEFAULT_ADDRESS_LIMITS, ...options.address }, windowMs, maxKeys, now);
    this.baseDelayMs = options.baseDelayMs ?? 1_000;
    this.maxDelayMs = options.maxDelayMs ?? 4_000;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** The verdict for an attempt on `account` (a stable key of the account tried) from `address`. */
  assess(account: string, address: string): ThrottleVerdict {
    const retryAfterMs = Math.max(this.accounts.retryAfterMs(account), this.addresses.retryAfterMs(address));
    const excess = Math.max(this.accounts.excess(account), this.addresses.excess(address));
    const delayMs = excess === 0 ? 0 : Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (excess - 1));
    return { retryAfterMs, delayMs };
  }

  recordFailure(account: string, address: string): void {
    this.accounts.record(account);
    this.addresses.record(address);
  }

  /** A successful sign-in clears that account's failures only; the address keeps its count. */
  recordSuccess(account: string): void {
    this.accounts.clear(account);
  }

  get trackedKeys(): { accounts: number; addresses: number } {
    return { accounts: this.accounts.size, addresses: this.addresses.size };
  }
}
