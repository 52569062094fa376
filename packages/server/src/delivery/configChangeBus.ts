import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { type DeliveryLog } from './types.js';

/**
 * Snapshot invalidation: a process that changed the config (the API) publishes the new config
 * version; every edge process hears it and rebuilds its snapshot at once instead of at its next poll.
 * In one process it is a local emitter; with Redis, pub/sub, so a change reaches every edge process
 * within milliseconds. Polling stays the safety net: a message lost while Redis is down is made up
 * for by the listener being called with `null` ("check now") when the subscription comes back.
 */
export type ConfigChangeListener = (version: number | null) => void;

export interface ConfigChangeBus {
  readonly engine: 'memory' | 'redis';
  /** Tell every process that the config is now at `version` (best effort, never throws). */
  publish(version: number): void;
  /** Called with each published version, and with null after a reconnect; returns the unsubscribe. */
  subscribe(listener: ConfigChangeListener): () => void;
  close(): Promise<void>;
}

/** The listeners of one process, each called on its own (one that throws is logged, the others still hear). */
export class Listeners {
  private readonly all = new Set<ConfigChangeListener>();

  constructor(private readonly log: DeliveryLog) {}

  add(listener: ConfigChangeListener): () => void {
    this.all.add(listener);
    return () => this.all.delete(listener);
  }

  emit(version: number | null): void {
    for (const listener of this.all) {
      try {
        listener(version);
      } catch (error) {
        this.log.error({ err: error }, 'config change listener failed');
      }
    }
  }
}

/** In one process: listeners are called on the next turn of the event loop. */
export class LocalConfigChangeBus implements ConfigChangeBus {
  readonly engine = 'memory' as const;
  private readonly listeners: Listeners;

  constructor(log: DeliveryLog) {
    this.listeners = new Listeners(log);
  }

  publish(version: number): void {
    setImmediate(() => this.listeners.emit(version));
  }

  subscribe(listener: ConfigChangeListener): () => void {
    return this.listeners.add(listener);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const retryStrategy = (times: number) => Math.min(times * 100, 1_000);

/**
 * Over Redis pub/sub on `<prefix>config`. The message is `<origin>:<version>`: this process's own
 * listeners are called directly (also while Redis is down) and skip the echo.
 */
export class RedisConfigChangeBus implements ConfigChangeBus {
  readonly engine = 'redis' as const;
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly channel: string;
  private readonly origin = randomBytes(6).toString('base64url');
  private readonly listeners: Listeners;
  private readyOnce = false;

  constructor(url: string, prefix: string, log: DeliveryLog) {
    this.listeners = new Listeners(log);
    this.channel = `${prefix}config`;
    // config changes are rare: one published while Redis is away waits for it (the offline queue)
    this.pub = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3, retryStrategy });
    this.pub.on('error', () => {});
    this.pub.connect().catch(() => {});
    this.sub = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: null, retryStrategy });
    this.sub.on('error', () => {});
    this.sub.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const at = message.lastIndexOf(':');
      if (message.slice(0, at) === this.origin) return;
      const version = Number(message.slice(at + 1));
      this.listeners.emit(Number.isFinite(version) ? version : null);
    });
    // after a reconnect (not the first connect), changes may have been missed: check now
    this.sub.on('ready', () => {
      if (this.readyOnce) this.listeners.emit(null);
      this.readyOnce = true;
    });
  }

  private subscription: Promise<boolean> | null = null;

  /** Resolves once both connections are up and the subscription is in place (false after `timeoutMs`: it keeps trying). */
  ready(timeoutMs = 2_000): Promise<boolean> {
    this.subscription ??= this.sub.subscribe(this.channel).then(
      () => true,
      () => false,
    );
    const published =
      this.pub.status === 'ready'
        ? Promise.resolve(true)
        : new Promise<boolean>((resolve) => this.pub.once('ready', () => resolve(true)));
    const both = Promise.all([this.subscription, published]).then(([a, b]) => a && b);
    return Promise.race([both, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref())]);
  }

  publish(version: number): void {
    setImmediate(() => this.listeners.emit(version));
    this.pub.publish(this.channel, `${this.origin}:${version}`).catch(() => {});
  }

  subscribe(listener: ConfigChangeListener): () => void {
    void this.ready();
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {
    for (const c of [this.pub, this.sub]) {
      if (c.status === 'ready') await c.quit().catch(() => c.disconnect());
      else c.disconnect();
    }
  }
}
