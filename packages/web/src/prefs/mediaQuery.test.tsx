import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { themeFor } from '../theme.js';
import { useMediaQuery } from './mediaQuery.js';
import { useReducedMotion } from './reducedMotion.js';

/** A media query list the test switches, as a system setting or a resize switches the browser's. */
function fakeMedia(matching: Set<string>) {
  const listeners = new Map<string, Set<() => void>>();
  window.matchMedia = (query: string) =>
    ({
      get matches() {
        return matching.has(query);
      },
      media: query,
      addEventListener: (_: string, f: () => void) => {
        listeners.set(query, (listeners.get(query) ?? new Set()).add(f));
      },
      removeEventListener: (_: string, f: () => void) => listeners.get(query)?.delete(f),
    }) as unknown as MediaQueryList;
  return {
    set(query: string, on: boolean) {
      if (on) matching.add(query);
      else matching.delete(query);
      for (const f of listeners.get(query) ?? []) f();
    },
    listening: (query: string) => listeners.get(query)?.size ?? 0,
  };
}

const original = window.matchMedia;
afterEach(() => {
  window.matchMedia = original;
});

function Probe() {
  const wide = useMediaQuery('(min-width: 1600px)');
  const reduced = useReducedMotion();
  return <span data-testid="probe">{`${wide ? 'wide' : 'narrow'} ${reduced ? 'still' : 'moving'}`}</span>;
}

describe('media queries', () => {
  it('follow the browser as its answer changes, and stop listening on unmount', () => {
    const media = fakeMedia(new Set(['(prefers-reduced-motion: reduce)']));
    const { unmount } = render(<Probe />);
    expect(screen.getByTestId('probe').textContent).toBe('narrow still');
    act(() => media.set('(min-width: 1600px)', true));
    expect(screen.getByTestId('probe').textContent).toBe('wide still');
    act(() => media.set('(prefers-reduced-motion: reduce)', false));
    expect(screen.getByTestId('probe').textContent).toBe('wide moving');
    unmount();
    expect(media.listening('(prefers-reduced-motion: reduce)')).toBe(0);
  });

  it('answer false where the browser has no matchMedia', () => {
    // @ts-expect-error: a browser without media queries (jsdom's default)
    window.matchMedia = undefined;
    render(<Probe />);
    expect(screen.getByTestId('probe').textContent).toBe('narrow moving');
  });
});

describe('the theme', () => {
  it("turns antd's motion off for reduced motion only", () => {
    expect(themeFor(true).token?.motion).toBe(false);
    expect(themeFor(false).token?.motion).toBeUndefined();
    expect(themeFor(true).token?.colorPrimary).toBe(themeFor(false).token?.colorPrimary);
  });
});
