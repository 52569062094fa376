import { describe, expect, it } from 'vitest';
import { type CachedDoc, PrebidCache, type SharedCacheStore } from './bidCache.js';

/** A shared store in a Map (what Redis or the cluster primary keep), with a switch to make it fail. */
function mapStore() {
  const entries = new Map<string, { doc: CachedDoc; ttl: number }>();
  const state = { down: false, gets: 0 };
  const store: SharedCacheStore = {
    put(uuid, doc, ttlSeconds) {
      if (state.down) return Promise.reject(new Error('connection refused'));
      entries.set(uuid, { doc, ttl: ttlSeconds });
      return Promise.resolve();
    },
    get(uuid) {
      state.gets++;
      if (state.down) return Promise.reject(new Error('connection refused'));
      return Promise.resolve(entries.get(uuid)?.doc);
    },
  };
  return { store, entries, state };
}

function logSink() {
  const lines: string[] = [];
  return { lines, log: { warn: (_o: object, msg: string) => void lines.push(msg) } };
}

describe('PrebidCache', () => {
  const vast: CachedDoc = { type: 'xml', body: '<VAST version="4.2"/>' };

  it('stores an entry in the shared store with its lifetime, and another process reads it from there', async () => {
    const shared = mapStore();
    const a = new PrebidCache(shared.store);
    const b = new PrebidCache(shared.store);
    const uuid = (await a.put(vast, 60))!;
    expect(shared.entries.get(uuid)).toEqual({ doc: vast, ttl: 60 });
    expect(await b.get(uuid)).toEqual(vast);
    // the process that stored it answers from its own memory
    const before = shared.state.gets;
    expect(await a.get(uuid)).toEqual(vast);
    expect(shared.state.gets).toBe(before);
    expect(await b.get('not-a-known-id')).toBeUndefined();
  });

  it('caps the lifetime asked at 15 minutes and takes 5 by default', async () => {
    const shared = mapStore();
    const cache = new PrebidCache(shared.store);
    expect(shared.entries.get((await cache.put(vast, 86_400))!)?.ttl).toBe(900);
    expect(shared.entries.get((await cache.put(vast, null))!)?.ttl).toBe(300);
  });

  it('keeps answering from its own memory while the shared store is down, and says so once', async () => {
    const shared = mapStore();
    const { lines, log } = logSink();
    const cache = new PrebidCache(shared.store, log);
    shared.state.down = true;
    const uuid = (await cache.put(vast, 60))!;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(await cache.get(uuid)).toEqual(vast);
    expect(await cache.get('elsewhere')).toBeUndefined();
    await cache.put(vast, 60);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/shared store/);
    // back: the next failure is news again
    shared.state.down = false;
    await cache.put(vast, 60);
    shared.state.down = true;
    await cache.put(vast, 60);
    expect(lines).toHaveLength(2);
  });

  it('refuses an entry larger than one may be, without storing it anywhere', async () => {
    const shared = mapStore();
    const cache = new PrebidCache(shared.store);
    expect(await cache.put({ type: 'xml', body: 'x'.repeat(600_000) }, 60)).toBeNull();
    expect(shared.entries.size).toBe(0);
  });
});
