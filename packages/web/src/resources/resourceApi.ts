import { type BulkAnswer, type BulkInput, type ListPage, type ResourceDef, type ResourceKind } from '@adplane/shared';
import { api } from '../api/client.js';
import { type ListName, setList } from '../api/lists.js';

/** A row as the API answers it: meta columns and the kind's typed fields side by side. */
export type ResourceRow = Record<string, unknown> & {
  id: number;
  name: string;
  status: number;
  archived: boolean;
  uid?: string | null;
  tenantId?: number | null;
  createdAt: string;
  updatedAt: string;
};

export interface ListParams {
  page: number;
  pageSize: number;
  sort: string;
  order: 'asc' | 'desc';
  search: string;
  status: 'all' | 'active' | 'paused' | 'archived';
}

export interface Usage {
  kind: string;
  label: string;
  id: number;
  name: string;
  field: string;
  archived: boolean;
}

/** The shared lists that hold a kind's rows: dropped after every change so that pickers see it. */
const CACHED_LISTS: Partial<Record<ResourceKind, ListName[]>> = {
  channels: ['channels', 'channelNames'],
  tags: ['tags', 'tagNames'],
  sups: ['suppliers'],
  campaigns: ['campaigns'],
  creatives: ['creatives'],
  adexchanges: ['adexchanges'],
  deals: ['deals'],
  targetings: ['targetings'],
  applists: ['appLists'],
  publists: ['pubLists'],
  crelists: ['creLists'],
  iplists: ['ipLists'],
  ivts: ['ivts'],
  advs: ['advertisers'],
  subs: ['subpublishers'],
  demands: ['demands'],
  tooltips: ['tooltips'],
};

/** The list a kind's pickers read. */
export function listNameOf(kind: ResourceKind): ListName | undefined {
  return CACHED_LISTS[kind]?.[0];
}

/** One data contract for every resource (list, get, create, update, duplicate, archive, restore, delete). */
export function resourceApi(def: ResourceDef) {
  const base = def.api;
  const changed = <T>(value: T): T => {
    for (const name of CACHED_LISTS[def.kind] ?? []) setList(name, null);
    return value;
  };
  return {
    list: (p: ListParams) =>
      api.get<ListPage<ResourceRow>>(
        `${base}?${new URLSearchParams({ page: String(p.page), pageSize: String(p.pageSize), sort: p.sort, order: p.order, search: p.search, status: p.status })}`,
      ),
    get: (id: number) => api.get<ResourceRow>(`${base}/${id}`),
    create: async (body: Record<string, unknown>) => changed(await api.post<ResourceRow>(base, body)),
    update: async (id: number, body: Record<string, unknown>) =>
      changed(await api.put<ResourceRow>(`${base}/${id}`, body)),
    duplicate: async (id: number) => changed(await api.post<ResourceRow>(`${base}/${id}/duplicate`)),
    archive: async (id: number) => changed(await api.post<ResourceRow>(`${base}/${id}/archive`)),
    restore: async (id: number) => changed(await api.post<ResourceRow>(`${base}/${id}/restore`)),
    remove: async (id: number) => changed(await api.delete<void>(`${base}/${id}`)),
    usage: (id: number) => api.get<Usage[]>(`${base}/${id}/usage`),
    /** Pause, activate, archive, restore or retarget the selected rows at once (all or nothing). */
    bulk: async (body: BulkInput) => changed(await api.post<BulkAnswer>(`${base}/bulk`, body)),
  };
}
export type ResourceApi = ReturnType<typeof resourceApi>;
