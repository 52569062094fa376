import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, renderHook, waitFor } from '@testing-library/react';
import { STORAGE_KEYS } from '@adplane/shared';
import { jsonResponse } from '../test/fixtures.js';
import '../test/setup.js';
import {
  clearLists,
  findListItem,
  getCachedList,
  LIST_ENDPOINTS,
  listStorageKey,
  loadList,
  setList,
  statusOf,
  useList,
} from './lists.js';

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  clearLists();
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  fetchMock.mockReset();
});

const TAGS = [
  { id: 1, name: 'Preroll', uid: 't1', status: 0 },
  { id: 2, name: 'Midroll', uid: 't2' },
  { id: 3, name: 'Outstream', uid: 't3', status: '2' },
];

describe('list cache', () => {
  it('fetches a list once and keeps it in session storage', async () => {
    fetchMock.mockImplementation(async () => jsonResponse(TAGS));
    await expect(loadList('tags')).resolves.toEqual(TAGS);
    await expect(loadList('tags')).resolves.toEqual(TAGS);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0][0]).toBe('/api/demand/tags/list');
    expect(JSON.parse(sessionStorage.getItem(`${STORAGE_KEYS.listPrefix}tags`) ?? 'null')).toEqual(TAGS);
  });

  it('shares one request between concurrent loads', async () => {
    fetchMock.mockImplementation(async () => jsonResponse([{ id: 1, name: 'A' }]));
    await Promise.all([loadList('deals'), loadList('deals'), loadList('deals')]);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('reads the stored copy instead of calling the server (e.g. after a reload)', async () => {
    sessionStorage.setItem(listStorageKey('campaigns'), JSON.stringify([{ id: 9, name: 'Stored' }]));
    await expect(loadList('campaigns')).resolves.toEqual([{ id: 9, name: 'Stored' }]);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('setting a list to null removes its stored copy, so the next load fetches again', async () => {
    fetchMock.mockImplementation(async () => jsonResponse([{ id: 1, name: 'A' }]));
    await loadList('advertisers');
    setList('advertisers', null);
    expect(sessionStorage.getItem(listStorageKey('advertisers'))).toBeNull();
    expect(getCachedList('advertisers')).toBeNull();
    await loadList('advertisers');
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('setList stores a new copy', () => {
    setList('deals', [{ id: 5, name: 'PMP' }]);
    expect(getCachedList('deals')).toEqual([{ id: 5, name: 'PMP' }]);
    expect(sessionStorage.getItem(listStorageKey('deals'))).toBe('[{"id":5,"name":"PMP"}]');
  });

  it('clearLists drops every list and nothing else', async () => {
    fetchMock.mockImplementation(async () => jsonResponse([{ id: 1, name: 'A' }]));
    await loadList('tags');
    await loadList('channels');
    sessionStorage.setItem('unrelated', 'keep');
    clearLists();
    expect(sessionStorage.getItem(listStorageKey('tags'))).toBeNull();
    expect(sessionStorage.getItem(listStorageKey('channels'))).toBeNull();
    expect(sessionStorage.getItem('unrelated')).toBe('keep');
    await loadList('tags');
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('does not store a list whose fetch started before a clear', async () => {
    let resolve!: (r: Response) => void;
    fetchMock.mockReturnValueOnce(new Promise((r) => (resolve = r)));
    const pending = loadList('tags');
    clearLists();
    resolve(jsonResponse(TAGS));
    await pending;
    expect(getCachedList('tags')).toBeNull();
  });

  it('writes load errors to the console only and answers an empty list', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    fetchMock.mockImplementation(async () => jsonResponse({ message: 'Not Found' }, 404));
    await expect(loadList('ivts')).resolves.toEqual([]);
    expect(consoleError).toHaveBeenCalledTimes(1);
    expect(getCachedList('ivts')).toBeNull();
  });

  it('indexes tags, channels and creatives by id with status defaulting to 1', () => {
    setList('tags', TAGS);
    expect(findListItem('tags', 1)).toMatchObject({ name: 'Preroll', status: 0 });
    expect(findListItem('tags', '2')).toMatchObject({ name: 'Midroll', status: 1 });
    expect(findListItem('tags', 3)?.status).toBe(2);
    expect(statusOf('tags', 2)).toBe(1);
    expect(statusOf('tags', 404)).toBe(1);
    expect(statusOf('channels', 1)).toBe(1);
    setList('creatives', [{ id: 'c-1', name: 'Spot', status: null }]);
    expect(statusOf('creatives', 'c-1')).toBe(1);
  });

  it('maps every list to its API endpoint', () => {
    expect(Object.values(LIST_ENDPOINTS).sort()).toEqual(
      [
        'applists',
        'crelists',
        'publists',
        'iplists',
        'adexchanges',
        'deals',
        'campaigns',
        'advs',
        'subs',
        'sups',
        'channels',
        'channelNames',
        'targetings',
        'tags',
        'tagnames',
        'creatives',
        'ivts',
      ]
        .map((x) => `/api/demand/${x}/list`)
        .concat('/api/demands/list', '/api/tooltips/list')
        .sort(),
    );
  });
});

describe('useList', () => {
  it('loads the list and follows changes and clears', async () => {
    fetchMock.mockImplementation(async () => jsonResponse([{ id: 1, name: 'Exchange A' }]));
    const { result } = renderHook(() => useList('adexchanges'));
    expect(result.current.loading).toBe(true);
    await waitFor(() => expect(result.current.items).toEqual([{ id: 1, name: 'Exchange A' }]));
    expect(result.current.loading).toBe(false);
    act(() => setList('adexchanges', [{ id: 2, name: 'Exchange B' }]));
    expect(result.current.items).toEqual([{ id: 2, name: 'Exchange B' }]);
    fetchMock.mockImplementation(async () => jsonResponse([{ id: 3, name: 'Exchange C' }]));
    act(() => clearLists());
    await waitFor(() => expect(result.current.items).toEqual([{ id: 3, name: 'Exchange C' }]));
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('stops loading after a failed load without retrying in a loop', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    fetchMock.mockImplementation(async () => jsonResponse({ message: 'Forbidden' }, 404));
    const { result } = renderHook(() => useList('suppliers'));
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(result.current.items).toEqual([]);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});
