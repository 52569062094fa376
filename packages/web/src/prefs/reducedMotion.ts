import { useMediaQuery } from './mediaQuery.js';

/**
 * Whether the person asked their system for less motion (`prefers-reduced-motion: reduce`). The
 * console then opens drawers, modals and menus and draws charts without animating them. Followed
 * live: changing the system setting applies without a reload.
 */
export const useReducedMotion = (): boolean => useMediaQuery('(prefers-reduced-motion: reduce)');
