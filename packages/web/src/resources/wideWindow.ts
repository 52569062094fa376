import { useMediaQuery } from '../prefs/mediaQuery.js';
import { WIDE_WINDOW } from './columnWidths.js';

/** Whether the window is at least WIDE_WINDOW wide, kept up to date as it is resized (jsdom: narrow). */
export const useWideWindow = (): boolean => useMediaQuery(`(min-width: ${WIDE_WINDOW}px)`);
