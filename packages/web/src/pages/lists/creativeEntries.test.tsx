import '../../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { clearLists } from '../../api/lists.js';
import { jsonResponse, makeUser } from '../../test/fixtures.js';
import { renderWithAuth } from '../../test/render.js';
import { CreativeEntries } from './AllowListPage.js';

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  clearLists();
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockImplementation(async (input) => {
    const url = String(input);
    if (url === '/api/demand/creatives/list')
      return jsonResponse([{ id: 5, name: 'Holiday spot 15s', status: 1, archived: false }]);
    return jsonResponse({ message: `unexpected ${url}` }, 500);
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  fetchMock.mockReset();
});

describe("a creative list's first entries", () => {
  it('shows a creative id as the creative’s name (the id on hover) and a domain as it is', async () => {
    renderWithAuth(
      <CreativeEntries items={['5', 'brand.example.com', '99']} />,
      makeUser('demand', { showDsp: true }, 'V2V'),
    );
    const named = await screen.findByText('Holiday spot 15s');
    expect(named.getAttribute('title')).toBe('creative 5');
    expect(named.parentElement!.parentElement!.textContent).toBe('Holiday spot 15s, brand.example.com, 99');
  });

  it('shows the ids to a user who may not read the creatives, without asking for them', () => {
    const { container } = renderWithAuth(
      <CreativeEntries items={['5']} />,
      makeUser('demand', { showDsp: false }, 'V2V'),
    );
    expect(container.textContent).toBe('5');
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
