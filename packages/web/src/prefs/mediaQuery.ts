import { useSyncExternalStore } from 'react';

/** The browser's media query list for `query`, where the browser has one (jsdom has none). */
const media = (query: string): MediaQueryList | null =>
  typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(query) : null;

/** Whether `query` matches now (false where the browser cannot tell). */
function matchesMedia(query: string): boolean {
  return media(query)?.matches ?? false;
}

/** Whether the CSS media query `query` matches, kept up to date as it changes (a resize, a system setting). */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = media(query);
      list?.addEventListener('change', onChange);
      return () => list?.removeEventListener('change', onChange);
    },
    () => matchesMedia(query),
    () => false,
  );
}
