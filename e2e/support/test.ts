import { type BrowserContext, type Page, test as base } from '@playwright/test';
import { EDITION_SERVERS } from './servers.js';

/**
 * The specs' `test`: Playwright's, except that the tests of a worker share one browser page instead
 * of each opening a browser context of its own. A page that Chromium opens and closes costs about two
 * CPU-seconds beyond loading the console in it (a renderer process started, warmed and torn down);
 * a page that navigates to the next test's address stays in its renderer. Before each test the page
 * is put back as a fresh one would be: cookies, local and session storage and IndexedDB of the test
 * servers' origins cleared, permissions revoked, routes and the listeners a test added removed,
 * other pages of the context closed, the test's viewport set, and the previous test's console
 * replaced by a document without script (the default server's health answer, a navigation inside
 * the same site, so the renderer stays). What a test sees of the servers is unchanged: each file
 * still finds the rows the files before it in its slot left.
 *
 * A spec that changes what cannot be undone on a page (an init script, an exposed function) uses
 * Playwright's own `test` and gets a fresh context.
 */
interface Shared {
  context: BrowserContext;
  page: Page;
  /** the listeners Playwright itself keeps on the page and the context, by event */
  pageListeners: Map<string | symbol, Set<unknown>>;
  contextListeners: Map<string | symbol, Set<unknown>>;
}

/**
 * Playwright's pages and contexts are Node event emitters (its client classes extend EventEmitter);
 * its types declare only on/once/off, and listing what is registered needs the rest.
 */
type Listeners = Pick<NodeJS.EventEmitter, 'eventNames' | 'listeners' | 'off'>;
const emitterOf = (target: Page | BrowserContext) => target as unknown as Listeners;

function listenersOf(target: Page | BrowserContext): Map<string | symbol, Set<unknown>> {
  const emitter = emitterOf(target);
  const all = new Map<string | symbol, Set<unknown>>();
  for (const name of emitter.eventNames()) all.set(name, new Set(emitter.listeners(name)));
  return all;
}

/** Removes the listeners added since `kept` was taken. */
function dropListenersAdded(target: Page | BrowserContext, kept: Map<string | symbol, Set<unknown>>): void {
  const emitter = emitterOf(target);
  for (const name of emitter.eventNames()) {
    const keep = kept.get(name) ?? new Set();
    for (const listener of emitter.listeners(name))
      if (!keep.has(listener)) emitter.off(name, listener as (...args: unknown[]) => void);
  }
}

/** The origins whose storage a test may have written: every edition server of this worker's slot. */
const ORIGINS = Object.values(EDITION_SERVERS).map((s) => s.url);

async function openShared(context: BrowserContext): Promise<Shared> {
  const page = await context.newPage();
  return { context, page, pageListeners: listenersOf(page), contextListeners: listenersOf(context) };
}

export const test = base.extend<object, { shared: Shared }>({
  shared: [
    async ({ browser }, use, workerInfo) => {
      const { baseURL, viewport, reducedMotion } = workerInfo.project.use;
      const context = await browser.newContext({ baseURL, viewport, reducedMotion });
      const shared = await openShared(context);
      await use(shared);
      await context.close();
    },
    { scope: 'worker' },
  ],
  context: async ({ shared }, use) => {
    await use(shared.context);
  },
  page: async ({ shared, viewport }, use) => {
    const { context } = shared;
    // a test that closed the page leaves the next one a new page
    if (shared.page.isClosed()) Object.assign(shared, await openShared(context));
    const { page } = shared;
    for (const other of context.pages()) if (other !== page) await other.close();
    dropListenersAdded(page, shared.pageListeners);
    dropListenersAdded(context, shared.contextListeners);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await context.unrouteAll({ behavior: 'ignoreErrors' });
    // the previous test's console stops (its timers and requests) before its session goes
    if (page.url().startsWith('http')) await page.goto(`${EDITION_SERVERS.default.url}/healthz`);
    await context.clearCookies();
    await context.clearPermissions();
    const cdp = await context.newCDPSession(page);
    for (const origin of ORIGINS)
      await cdp.send('Storage.clearDataForOrigin', {
        origin,
        storageTypes: 'local_storage,session_storage,indexeddb,websql,service_workers,cache_storage',
      });
    await cdp.detach();
    if (viewport) await page.setViewportSize(viewport);
    await use(page);
  },
});

export { expect } from '@playwright/test';
