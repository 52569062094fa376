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
 * and an entry is gone after its TTL. With several edge processes behind a balancer an entry answers
 * only on the node that stored it (a shared store, Redis, is future work; docs/prebid.md says so).
 */
export interface CachedDoc {
  type: 'xml' | 'json';
  body: string;
}

export const CACHE_PATH = PREBID_CACHE_PATH;
export const DEFAULT_CACHE_TTL_S = 300;
/** A caller may ask for longer (ttlseconds), up to this: an instream ad may play minutes after the auction. */
export const MAX_CACHE_TTL_S = 900;

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
    if (sizeOf(doc) > Math.min(MAX_ENTRY_BYTES, this.lru.maxSize)) return null;
    const uuid = randomUUID();
    this.lru.set(uuid, doc, { ttl: cacheTtl(ttlSeconds) * 1000 });
    return uuid;
  }

  get(uuid: string): CachedDoc | undefined {
    return this.lru.get(uuid);
  }

  get size(): number {
    return this.lru.size;
  }
}

/** Seconds an entry lives: what the request asked (ttlseconds), else 5 minutes, at most 15. */
export const cacheTtl = (asked: number | null): number => Math.min(asked && asked > 0 ? asked : DEFAULT_CACHE_TTL_S, MAX_CACHE_TTL_S);

/** The public URL of a cached document. */
export const cacheUrl = (origin: string, uuid: string): string => `${origin}${CACHE_PATH}?uuid=${uuid}`;
