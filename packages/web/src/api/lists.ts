import { useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { type Feature, STORAGE_KEYS, userEntitlementRefusal } from '@adplane/shared';
import { AuthContext } from '../auth/authContext.js';
import { api } from './client.js';
import { readStorage, storageKeys, writeStorage } from '../prefs/storage.js';

/**
 * Shared lists: every list is fetched once, kept in session storage under
 * `STORAGE_KEYS.listPrefix + name`, and later loads read the stored copy. Setting a list to null
 * removes the stored copy so that the next load fetches it again; `clearLists()` drops them all
 * (sign-in, sign-out, 403, back to admin, Force data reload).
 */
export const LIST_ENDPOINTS = {
  tags: '/api/demand/tags/list',
  tagNames: '/api/demand/tagnames/list',
  channels: '/api/demand/channels/list',
  channelNames: '/api/demand/channelNames/list',
  adexchanges: '/api/demand/adexchanges/list',
  deals: '/api/demand/deals/list',
  campaigns: '/api/demand/campaigns/list',
  creatives: '/api/demand/creatives/list',
  targetings: '/api/demand/targetings/list',
  appLists: '/api/demand/applists/list',
  creLists: '/api/demand/crelists/list',
  ipLists: '/api/demand/iplists/list',
  pubLists: '/api/demand/publists/list',
  advertisers: '/api/demand/advs/list',
  subpublishers: '/api/demand/subs/list',
  suppliers: '/api/demand/sups/list',
  ivts: '/api/demand/ivts/list',
  demands: '/api/demands/list',
  /** Help texts of fields (`key`, `text`), written by admins on the Tooltips page; every user reads them. */
  tooltips: '/api/tooltips/list',
} as const;

export type ListName = keyof typeof LIST_ENDPOINTS;

/**
 * Lists of kinds with a mode or edition rule (packages/shared entitlements.ts). The server refuses
 * them with 403 to a user the rule shuts out (and a 403 signs the console out): such a user gets an
 * empty list without a call.
 */
export const LIST_FEATURES: Partial<Record<ListName, Feature>> = {
  adexchanges: 'adexchanges',
  deals: 'deals',
  campaigns: 'campaigns',
  creatives: 'creatives',
  creLists: 'crelists',
  pubLists: 'publists',
  suppliers: 'sups',
};

/** Lists whose items are also looked up by id, with a status that defaults to 1. */
export type IndexedListName = 'tags' | 'channels' | 'creatives';

export interface ListItem {
  id: number | string;
  name: string;
  [field: string]: unknown;
}

/** A tag, channel or creative as the index holds it: status is always a number. */
export interface StatusItem extends ListItem {
  uid?: string;
  status: number;
}

const DEFAULT_STATUS = 1;

type Listener = () => void;

const memory = new Map<ListName, ListItem[]>();
const inflight = new Map<ListName, Promise<ListItem[]>>();
const listeners = new Set<Listener>();
const indexes = new WeakMap<ListItem[], Map<string, StatusItem>>();
/** Bumped by clearLists so that a fetch started before the clear does not store stale data. */
let generation = 0;

export function listStorageKey(name: ListName): string {
  return STORAGE_KEYS.listPrefix + name;
}

function emit(): void {
  for (const listener of listeners) listener();
}

function subscribeLists(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The cached copy (memory, then session storage), or null when the list has not been loaded. */
export function getCachedList(name: ListName): ListItem[] | null {
  const held = memory.get(name);
  if (held) return held;
  const stored = readStorage(sessionStorage, listStorageKey(name));
  if (stored === null) return null;
  try {
    const parsed: unknown = JSON.parse(stored);
    if (!Array.isArray(parsed)) throw new Error('not an array');
    memory.set(name, parsed as ListItem[]);
    return parsed as ListItem[];
  } catch {
    writeStorage(sessionStorage, listStorageKey(name), null);
    return null;
  }
}

/** Store a list (after a create or an edit, say), or remove its stored copy with null. */
export function setList(name: ListName, items: ListItem[] | null): void {
  if (items === null) {
    memory.delete(name);
    writeStorage(sessionStorage, listStorageKey(name), null);
  } else {
    memory.set(name, items);
    writeStorage(sessionStorage, listStorageKey(name), JSON.stringify(items));
  }
  emit();
}

/** Drop every cached list, in memory and in session storage. */
export function clearLists(): void {
  generation += 1;
  memory.clear();
  inflight.clear();
  for (const key of storageKeys(sessionStorage, STORAGE_KEYS.listPrefix)) writeStorage(sessionStorage, key, null);
  emit();
}

/**
 * The list, fetched at most once: a cached copy is answered without a call and concurrent loads
 * share one request. A failed load is written to the browser's console only (no toast) and answers an
 * empty list without caching it, so that a later load tries again.
 */
export function loadList(name: ListName): Promise<ListItem[]> {
  const cached = getCachedList(name);
  if (cached) return Promise.resolve(cached);
  const running = inflight.get(name);
  if (running) return running;
  const started = generation;
  const promise = api
    .get<unknown>(LIST_ENDPOINTS[name])
    .then((data) => {
      const items = Array.isArray(data) ? (data as ListItem[]) : [];
      if (started === generation) setList(name, items);
      return items;
    })
    .catch((error: unknown) => {
      console.error(`Could not load the ${name} list:`, error);
      return [] as ListItem[];
    })
    .finally(() => {
      if (inflight.get(name) === promise) inflight.delete(name);
    });
  inflight.set(name, promise);
  return promise;
}

/** A status read as a number; missing or unreadable values are DEFAULT_STATUS (1). */
function normalizeStatus(status: unknown): number {
  if (status === null || status === undefined || status === '') return DEFAULT_STATUS;
  const n = Number(status);
  return Number.isFinite(n) ? n : DEFAULT_STATUS;
}

/** Tags, channels or creatives by id (string keys, so `7` and `'7'` find the same item). */
function listIndex(name: IndexedListName): Map<string, StatusItem> {
  const items = getCachedList(name) ?? [];
  let index = indexes.get(items);
  if (!index) {
    index = new Map(items.map((item) => [String(item.id), { ...item, status: normalizeStatus(item.status) }]));
    indexes.set(items, index);
  }
  return index;
}

export function findListItem(name: IndexedListName, id: number | string): StatusItem | undefined {
  return listIndex(name).get(String(id));
}

/** The status of a tag, channel or creative; an item missing from the list counts as 1. */
export function statusOf(name: IndexedListName, id: number | string): number {
  return findListItem(name, id)?.status ?? DEFAULT_STATUS;
}

export interface ListState {
  items: ListItem[];
  loading: boolean;
}

/**
 * A shared list for a component: loads it once and re-renders when it changes or is cleared. A list
 * the signed-in user is not entitled to (LIST_FEATURES) is empty and never asked for.
 */
export function useList(name: ListName): ListState {
  const user = useContext(AuthContext)?.user ?? null;
  const feature = LIST_FEATURES[name];
  const refused = !!feature && !!user && userEntitlementRefusal(feature, user) !== null;
  const cached = useSyncExternalStore(
    subscribeLists,
    () => getCachedList(name),
    () => null,
  );
  const items = refused ? EMPTY : cached;
  const [attempted, setAttempted] = useState<{ name: ListName; at: number } | null>(null);
  const needsLoad = items === null;
  useEffect(() => {
    if (!needsLoad) return;
    let active = true;
    void loadList(name).then(() => {
      if (active) setAttempted({ name, at: Date.now() });
    });
    return () => {
      active = false;
    };
  }, [name, needsLoad]);
  return { items: items ?? EMPTY, loading: items === null && attempted?.name !== name };
}

const EMPTY: ListItem[] = [];
