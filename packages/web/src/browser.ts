/**
 * Full-page navigation in one place, so that tests can watch it (jsdom cannot leave the page).
 */
export const browser = {
  reload(): void {
    window.location.reload();
  },
  assign(href: string): void {
    window.location.assign(href);
  },
};
