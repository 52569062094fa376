import '../test/setup.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, data, RouterProvider } from 'react-router';
import { STORAGE_KEYS } from '@adplane/shared';
import { browser } from '../browser.js';
import { ErrorPageBoundary, ERROR_PAGE_FAILED, RouteErrorPage, routeErrorTitle } from './RouteErrorPage.js';

beforeEach(() => {
  // The chunk-reload guard lives in session storage: another test's reload must not hold this one's back.
  sessionStorage.clear();
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(browser, 'reload').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

function renderFailing(loader: () => never) {
  const router = createMemoryRouter(
    [{ path: '/', loader, element: <div />, errorElement: <RouteErrorPage />, hydrateFallbackElement: <div /> }],
    { initialEntries: ['/'] },
  );
  render(<RouterProvider router={router} />);
}

describe('route error page', () => {
  it("titles the page with the error's message, default 'Error'", () => {
    expect(routeErrorTitle(new Error('Campaign 12 does not exist'))).toBe('Campaign 12 does not exist');
    expect(routeErrorTitle(new Error(''))).toBe('Error');
    expect(routeErrorTitle(undefined)).toBe('Error');
    expect(routeErrorTitle('text')).toBe('text');
  });

  it('renders a thrown error with its message and a way home', async () => {
    renderFailing(() => {
      throw new Error('Report 7 failed to load');
    });
    expect((await screen.findByTestId('error-page-title')).textContent).toBe('Report 7 failed to load');
    expect(screen.getByTestId('error-page-home').getAttribute('href')).toBe('/');
  });

  it('shows the not-found page for a 404 response', async () => {
    renderFailing(() => {
      throw data({ message: 'nope' }, { status: 404 });
    });
    expect(await screen.findByText('This page could not be found')).toBeTruthy();
  });

  it('uses the message of an error response', async () => {
    renderFailing(() => {
      throw data({ message: 'Tag 3 is archived' }, { status: 410 });
    });
    expect((await screen.findByTestId('error-page-title')).textContent).toBe('Tag 3 is archived');
  });

  it('reloads once for a failed page chunk', async () => {
    renderFailing(() => {
      throw new TypeError('Failed to fetch dynamically imported module: /assets/page-tags.js');
    });
    await screen.findByTestId('error-page-title');
    // the reload starts from an effect, which may flush after the page is on screen
    await waitFor(() => expect(browser.reload).toHaveBeenCalledTimes(1));
    expect(sessionStorage.getItem(STORAGE_KEYS.chunkReloadAt)).not.toBeNull();
  });

  it('falls back when the error page itself fails', () => {
    function Broken(): never {
      throw new Error('render failure');
    }
    render(
      <ErrorPageBoundary>
        <Broken />
      </ErrorPageBoundary>,
    );
    expect(screen.getByText(ERROR_PAGE_FAILED)).toBeTruthy();
    expect(screen.getByText('Go back to home').getAttribute('href')).toBe('/');
  });
});
