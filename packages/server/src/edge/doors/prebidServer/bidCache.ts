import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { PREBID_CACHE_PATH } from '@adplane/shared';

/**
 * The edge's Prebid Cache: what the auction endpoint caches when a request asks
 * (ext.prebid.cache.vastxml: the VAST of a video bid, for players that load it by URL;
 * ext.prebid.cache.bids: the bid JSON, for the ad server's creative to fetch by hb_cache_id), kept in
 * this process under a random UUID and served at GET /cache?uuid=<id> as Prebid Cache serves it.
 *
 * In memory, bounded by entries, bytes and time: the least recently used entry goes first when full,
 * and an entry is gone after its TTL. Several edge processes share their entries (PrebidCache below):
 * the page's GET may reach another worker or node than the auction that stored it.
 */
export interface CachedDoc {
  type: 'xml' | 'json';
  body: string;
}

export const CACHE_PATH = PREBID_CACHE_PATH;
const DEFAULT_CACHE_TTL_S = 300;
/** A caller may ask for longer (ttlseconds), up to this: an instream ad may play minutes after the auction. */
const MAX_CACHE_TTL_S = 900;

/** One document at most (a VAST or a bid is a few KB). */
const MAX_ENTRY_BYTES = 1024 * 1024;
/** UTF-16 in memory: two bytes a character, plus the key and the entry's own weight. */
const sizeOf = (doc: CachedDoc): number => doc.body.length * 2 + 200;

export interface BidCacheOptions {
  maxEntries?: number;
  maxBytes?: number;
}

export class BidCache {
  private readonly lru: LRUCache<string, CachedDoc>;

  constructor({ maxEntries = 5000, maxBytes = 32 * 1024 * 1024 }: BidCacheOptions = {}) {
    this.lru = new LRUCache<string, CachedDoc>({
      max: maxEntries,
      maxSize: maxBytes,
      maxEntrySize: MAX_ENTRY_BYTES,
      sizeCalculation: sizeOf,
      ttl: DEFAULT_CACHE_TTL_S * 1000,
      ttlAutopurge: false,
    });
  }

  /** Stores a document; its UUID, or null when it is larger than one entry may be. */
  put(doc: CachedDoc, ttlSeconds: number | null): string | null {
    if (!this.fits(doc)) return null;
    const uuid = randomUUID();
    this.set(uuid, doc, ttlSeconds);
    return uuid;
  }

  fits(doc: CachedDoc): boolean {
    return sizeOf(doc) <= Math.min(MAX_ENTRY_BYTES, this.lru.maxSize);
  }

  /** Stores a document under a UUID given by another process (the cluster primary's copy). */
  set(uuid: string, doc: CachedDoc, ttlSeconds: number | null): void {
    if (this.fits(doc)) this.lru.set(uuid, doc, { ttl: cacheTtl(ttlSeconds) * 1000 });
  }

  get(uuid: string): CachedDoc | undefined {
    return this.lru.get(uuid);
  }

  get size(): number {
    return this.lru.size;
  }
}

/** Seconds an entry lives: what the request asked (ttlseconds), else 5 minutes, at most 15. */
export const cacheTtl = (asked: number | null): number =>
  Math.min(asked && asked > 0 ? asked : DEFAULT_CACHE_TTL_S, MAX_CACHE_TTL_S);

/** The public URL of a cached document. */
export const cacheUrl = (origin: string, uuid: string): string => `${origin}${CACHE_PATH}?uuid=${uuid}`;

/**
 * Where the other edge processes keep what this one cached: Redis (every node on it), or the
 * cluster primary (the workers of one `--workers N`). `put` resolves once the entry is stored;
 * `get` resolves undefined for an entry it does not have. Both may reject (down, timed out).
 */
export interface SharedCacheStore {
  put(uuid: string, doc: CachedDoc, ttlSeconds: number): Promise<void>;
  get(uuid: string): Promise<CachedDoc | undefined>;
  close?(): Promise<void>;
}

export interface CacheLog {
  warn(obj: object, msg: string): void;
}

/**
 * The Prebid cache of one edge process: its own memory first (the process that stored an entry
 * answers it without a trip), then the shared store. An auction's answer waits for its entries to
 * be stored in the shared store (a page fetches the URL right after), unless the store fails: the
 * entry then answers on this process only, and the failure is logged once per outage.
 */
export class PrebidCache {
  private readonly local: BidCache;
  private down = false;

  constructor(
    private readonly shared: SharedCacheStore | null = null,
    private readonly log: CacheLog | null = null,
    options: BidCacheOptions = {},
  ) {
    this.local = new BidCache(options);
  }

  /** Stores a document; its UUID, or null when it is larger than one entry may be. */
  async put(doc: CachedDoc, ttlSeconds: number | null): Promise<string | null> {
    const uuid = this.local.put(doc, ttlSeconds);
    if (uuid && this.shared) {
      try {
        await this.shared.put(uuid, doc, cacheTtl(ttlSeconds));
        this.down = false;
      } catch (error) {
        this.failed(error, 'stored');
      }
    }
    return uuid;
  }

  async get(uuid: string): Promise<CachedDoc | undefined> {
    const hit = this.local.get(uuid);
    if (hit || !this.shared) return hit;
    try {
      const doc = await this.shared.get(uuid);
      this.down = false;
      return doc;
    } catch (error) {
      this.failed(error, 'read');
      return undefined;
    }
  }

  get size(): number {
    return this.local.size;
  }

  close(): Promise<void> {
    return this.shared?.close?.() ?? Promise.resolve();
  }

  private failed(error: unknown, what: string): void {
    if (this.down) return;
    this.down = true;
    this.log?.warn(
      { err: error },
      `prebid cache: an entry could not be ${what} in the shared store; entries answer on the process that stored them until it is back`,
    );
  }
}

/** A cached document as the shared stores keep it (JSON, for Redis and IPC alike). */
export function parseCachedDoc(text: string | null): CachedDoc | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Partial<CachedDoc>;
    return (v.type === 'xml' || v.type === 'json') && typeof v.body === 'string'
      ? { type: v.type, body: v.body }
      : undefined;
  } catch {
    return undefined;
  }
}
