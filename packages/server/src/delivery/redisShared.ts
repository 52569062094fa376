import { Redis } from 'ioredis';
import { EXCHANGE_SCRIPT } from './exchangeScript.js';
import { CATCH_UP, CATCH_UP_MS, PACE_BURST_MS } from './pacing.js';
import {
  type BudgetGrant,
  type Exchange,
  type ExchangeReply,
  type FrequencyCount,
  type Notices,
  paceStartOf,
  QPS_DEMAND_TTL_MS,
  type QpsShare,
  type SharedCounters,
  type SpendRead,
} from './sharedCounters.js';

/**
 * The shared counters in Redis: one script call per exchange (exchangeScript.ts), one subscriber
 * connection for the notices processes send each other (sharedCounters.ts: Notices). Commands fail at once while Redis is unreachable (no offline
 * queue, a 1 s command timeout): the caller then serves on its local allowances and retries; ioredis
 * reconnects in the background.
 */
export interface RedisSharedOptions {
  url: string;
  /** Prefix of every key and channel (several deployments, or tests, may share one Redis). */
  prefix: string;
  pid: string;
  leaseTtlMs: number;
}

type ScriptReply = [number, number[][], number[][], number[][], string];
interface WithExchange {
  adplaneExchange(...args: (string | number)[]): Promise<ScriptReply>;
}

const retryStrategy = (times: number) => Math.min(times * 100, 1_000);

export class RedisShared implements SharedCounters {
  readonly engine = 'redis' as const;
  readonly sync = false;
  private readonly client: Redis;
  private readonly sub: Redis;
  private readonly channel: string;
  private subscribed: Promise<unknown> | null = null;
  /**
   * The hashes this process has a lease or a QPS demand in (amounts, expiries), and until when they
   * count: what `leave` takes back at once, as the in-process store does.
   */
  private readonly held = new Map<string, { hashes: [string, string]; until: number }>();

  constructor(private readonly options: RedisSharedOptions) {
    this.client = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1_000,
      connectTimeout: 2_000,
      retryStrategy,
    });
    // the delivery counters log the outage once, from the failed exchanges
    this.client.on('error', () => {});
    this.client.defineCommand('adplaneExchange', { lua: EXCHANGE_SCRIPT });
    this.sub = new Redis(options.url, {
      lazyConnect: true,
      maxRetriesPerRequest: null,
      connectTimeout: 2_000,
      retryStrategy,
    });
    this.sub.on('error', () => {});
    this.channel = `${options.prefix}delivery:commits`;
  }

  /**
   * Connects, and subscribes to the other processes' notices; true when Redis answered both within
   * `timeoutMs` (otherwise ioredis keeps trying in the background). A notice published before the
   * subscription holds is lost to this process (pub/sub keeps nothing): the reservation it would have
   * dropped then holds its budget until the hold time, so the engine starts on a subscription made.
   */
  async connect(timeoutMs = 2_000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const ready = new Promise<boolean>((resolve) => this.client.once('ready', () => resolve(true)));
    this.client.connect().catch(() => {});
    const up = await Promise.race([Promise.all([ready, this.subscribe()]).then(() => true), late]);
    clearTimeout(timer);
    return up;
  }

  /** Subscribes to the notices' channel (once; ioredis subscribes again after a reconnect). */
  private subscribe(): Promise<unknown> {
    this.subscribed ??= this.sub.subscribe(this.channel).catch(() => {});
    return this.subscribed;
  }

  private key(k: string, part: string): string {
    return `${this.options.prefix}b:${k}:${part}`;
  }

  async exchange(x: Exchange): Promise<ExchangeReply> {
    const { prefix, pid, leaseTtlMs } = this.options;
    const keys: string[] = [`${prefix}procs`, `${prefix}gen`];
    const args: (string | number)[] = [
      pid,
      x.now,
      leaseTtlMs,
      x.budgets.length,
      x.frequencies.length,
      x.qps.length,
      PACE_BURST_MS,
      CATCH_UP,
      QPS_DEMAND_TTL_MS,
      CATCH_UP_MS,
    ];
    for (const b of x.budgets) {
      keys.push(
        this.key(b.key, 's'),
        this.key(b.key, 'l'),
        this.key(b.key, 'e'),
        this.key(b.key, 'p'),
        this.key(b.key, 'h'),
        this.key(b.key, 'r'),
      );
      args.push(
        b.limit,
        b.want,
        b.min,
        b.used,
        b.floor,
        b.floorGen,
        b.evenRate,
        paceStartOf(b),
        b.dayEnd,
        b.hour,
        b.ttlMs,
        b.reserved,
      );
      // the day's spend per hour sent back after a loss (exchangeScript.ts): its base per hour, the hours
      const hours = b.hours?.spend.length ? b.hours : null;
      args.push(hours?.spend.length ?? 0);
      if (hours) {
        keys.push(this.key(b.key, 'hr'));
        args.push(hours.gen);
        for (const [hour, spend] of hours.spend) args.push(hour, spend);
      }
    }
    for (const f of x.frequencies) {
      keys.push(`${prefix}f:${f.key}`);
      args.push(f.incr, f.periodMs, f.floor, f.floorEnd, f.floorGen);
    }
    for (const q of x.qps) {
      keys.push(`${prefix}q:${q.key}:d`, `${prefix}q:${q.key}:e`);
      args.push(q.limit, q.demand);
    }
    const [processes, budgets, counts, shares, generation] = await (
      this.client as unknown as WithExchange
    ).adplaneExchange(keys.length, ...keys, ...args);
    x.budgets.forEach((b, i) => {
      if ((budgets[i]?.[0] ?? 0) > 0)
        this.held.set(`b:${b.key}`, {
          hashes: [this.key(b.key, 'l'), this.key(b.key, 'e')],
          until: x.now + leaseTtlMs,
        });
      else this.held.delete(`b:${b.key}`);
    });
    for (const q of x.qps)
      this.held.set(`q:${q.key}`, {
        hashes: [`${prefix}q:${q.key}:d`, `${prefix}q:${q.key}:e`],
        until: x.now + QPS_DEMAND_TTL_MS,
      });
    for (const [id, h] of this.held) if (h.until <= x.now) this.held.delete(id);
    return {
      processes,
      generation,
      budgets: budgets.map(
        ([granted, spent, others, paced, hourNow, hourBefore]): BudgetGrant => ({
          granted,
          spent,
          others,
          paced: paced === 1,
          hourNow,
          hourBefore,
        }),
      ),
      frequencies: counts.map(([count, windowEnd]): FrequencyCount => ({ count, windowEnd })),
      qps: shares.map(([milli, n]): QpsShare => ({ share: milli / 1000, processes: n })),
    };
  }

  async readSpend(keys: readonly string[]): Promise<SpendRead[]> {
    if (!keys.length) return [];
    const pipe = this.client.pipeline();
    for (const k of keys) pipe.get(this.key(k, 's')).hgetall(this.key(k, 'h'));
    const replies = (await pipe.exec()) ?? [];
    return keys.map((_, i) => {
      const [spentErr, spent] = replies[2 * i] ?? [null, null];
      const [hourErr, hours] = replies[2 * i + 1] ?? [null, {}];
      if (spentErr || hourErr) throw spentErr ?? hourErr;
      const hourly = new Array<number>(24).fill(0);
      for (const [h, v] of Object.entries((hours ?? {}) as Record<string, string>)) hourly[Number(h)] = Number(v);
      return { spent: Number(spent ?? 0), hourly };
    });
  }

  publishNotices(notices: Notices): void {
    this.client.publish(this.channel, JSON.stringify({ from: this.options.pid, ...notices })).catch(() => {});
  }

  onNotices(listener: (notices: Notices) => void): void {
    const strings = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
    this.sub.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      try {
        const n = JSON.parse(message) as { from?: unknown; commits?: unknown; views?: unknown };
        if (n.from !== this.options.pid) listener({ commits: strings(n.commits), views: strings(n.views) });
      } catch {
        // not ours: ignored
      }
    });
    void this.subscribe();
  }

  async leave(): Promise<void> {
    const { prefix, pid } = this.options;
    const pipe = this.client.pipeline().zrem(`${prefix}procs`, pid);
    for (const { hashes } of this.held.values()) for (const hash of hashes) pipe.hdel(hash, pid);
    this.held.clear();
    await pipe.exec().catch(() => {});
  }

  async close(): Promise<void> {
    for (const c of [this.client, this.sub]) {
      if (c.status === 'ready') await c.quit().catch(() => c.disconnect());
      else c.disconnect();
    }
  }
}
