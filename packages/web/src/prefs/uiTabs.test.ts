import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { syncUiSettings } from '../auth/AuthProvider.js';
import { jsonResponse } from '../test/fixtures.js';
import { readUiTabs, writeUiTabs } from './uiTabs.js';

const fetchMock = vi.fn<typeof fetch>();
beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock);
  localStorage.clear();
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

describe("'Open links in new Tabs' from the server", () => {
  it('copies the server copy into local storage', async () => {
    fetchMock.mockResolvedValue(jsonResponse({ tabs: true }));
    await syncUiSettings();
    expect(readUiTabs()).toBe(true);
  });

  it('keeps a choice made while the server copy was on its way (a late answer is stale)', async () => {
    let answer: (r: Response) => void = () => undefined;
    fetchMock.mockReturnValue(new Promise<Response>((resolve) => (answer = resolve)));
    const sync = syncUiSettings();
    // The user ticks the box in the Settings modal before the sign-in's copy arrives.
    writeUiTabs(true);
    answer(jsonResponse({ tabs: false }));
    await sync;
    expect(readUiTabs()).toBe(true);
  });
});
