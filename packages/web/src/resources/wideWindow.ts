import { useSyncExternalStore } from 'react';
import { WIDE_WINDOW } from './columnWidths.js';

const QUERY = `(min-width: ${WIDE_WINDOW}px)`;

/** The media query, where the browser has one (jsdom has none: a narrow window there). */
const media = (): MediaQueryList | null =>
  typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(QUERY) : null;

function subscribe(onChange: () => void): () => void {
  const list = media();
  list?.addEventListener('change', onChange);
  return () => list?.removeEventListener('change', onChange);
}

/** Whether the window is at least WIDE_WINDOW wide, kept up to date as it is resized. */
export function useWideWindow(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => media()?.matches ?? false,
    () => false,
  );
}
