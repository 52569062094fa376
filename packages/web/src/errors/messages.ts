/** Toast titles of the error catalogue, the same on every page. */
export const LOAD_ERROR_TITLE = 'Error on load data';
export const SAVE_ERROR_TITLE = 'Error on save';

/** The window event any code can dispatch to show an error toast. */
export const SHOW_ERROR_EVENT = 'showError';

export interface ShowErrorDetail {
  title?: string;
  message?: string;
}

/**
 * The text of an error toast: the error's own message; 'Error' for an error object without one;
 * 'Unknown Error' for anything that is not an error at all (undefined, a number, an empty string).
 */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error.trim() !== '' ? error : 'Unknown Error';
  if (error instanceof Error || (typeof error === 'object' && error !== null)) {
    const message = (error as { message?: unknown }).message;
    return typeof message === 'string' && message.trim() !== '' ? message : 'Error';
  }
  return 'Unknown Error';
}

/** Show an error toast from anywhere, through the global `showError` event. */
export function dispatchShowError(detail: ShowErrorDetail): void {
  window.dispatchEvent(new CustomEvent<ShowErrorDetail>(SHOW_ERROR_EVENT, { detail }));
}
