import { type Page, expect, test } from '@playwright/test';
import { EDITION_SERVERS } from '../support/servers.js';
import { signIn, signInAt, signInThroughPage } from '../support/session.js';

/**
 * Cross-site request refusal and the security headers (CSP, creative previews) in a real Chromium:
 * the console runs under its CSP without a single violation, other origins cannot frame it nor make
 * it change state, and an HTML creative runs sandboxed under its own policy.
 */
const consoleUrl = EDITION_SERVERS.default.url;
const consolePort = EDITION_SERVERS.default.port;
// A page of another site, and one of a sibling origin of the same site (same host, another port):
// served by Playwright, so they are exactly what an attacker would host.
const CROSS_SITE = 'http://attacker.e2e.test/page.html';
const SIBLING = `http://127.0.0.1:${consolePort + 90}/page.html`;

/** Record every CSP violation the page reports, from the first script on. */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction('__cspViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolation: (t: string) => void }).__cspViolation(
        `${e.violatedDirective} ${e.blockedURI} at ${location.pathname}`,
      );
    });
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

async function serveAttackerPage(page: Page, url: string, html: string): Promise<void> {
  await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
}

async function actingUserId(page: Page): Promise<number> {
  const response = await page.request.get(`${consoleUrl}/api/auth/user`);
  return ((await response.json()) as { id: number }).id;
}

test('the console sends its security headers and runs under its CSP without a violation', async ({ page }) => {
  const violations = await watchCsp(page);
  const response = await page.goto('/login');
  const headers = response!.headers();
  expect(headers['content-security-policy']).toContain("script-src 'self'");
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');

  await signInThroughPage(page, 'admin');
  for (const path of ['/', '/demands', '/tooltips', '/report']) {
    await page.goto(path);
    await expect(page.getByTestId('user-menu')).toBeVisible();
  }
  await page.screenshot({ path: test.info().outputPath('security-console-under-csp.png') });
  expect(violations).toEqual([]);
});

test('another site cannot frame the console', async ({ page }) => {
  await serveAttackerPage(
    page,
    CROSS_SITE,
    `<!doctype html><iframe id="victim" src="${consoleUrl}/login" width="800" height="600"></iframe>`,
  );
  await page.goto(CROSS_SITE);
  // The frame shows Chromium's error page, not the console's login form.
  const frame = page.frames().find((f) => f !== page.mainFrame());
  expect(frame).toBeDefined();
  await expect.poll(() => frame!.url()).toMatch(/^chrome-error:/);
  expect(await frame!.locator('[data-testid="login-username"]').count()).toBe(0);
});

test('a link on another site cannot start an impersonation or sign the admin out', async ({ page }) => {
  await signIn(page, 'admin');
  const adminId = await actingUserId(page);
  const demands = await page.request.get(`${consoleUrl}/api/demands/list`);
  const target = ((await demands.json()) as { id: number }[])[0];
  await serveAttackerPage(
    page,
    CROSS_SITE,
    `<!doctype html><a id="switch" href="${consoleUrl}/api/switch?type=demand&id=${target.id}">win a prize</a>
     <a id="logout" href="${consoleUrl}/api/auth/logout">unsubscribe</a>`,
  );
  await page.goto(CROSS_SITE);
  const switched = await Promise.all([page.waitForResponse(`${consoleUrl}/api/switch**`), page.click('#switch')]);
  expect(switched[0].status()).toBe(403);
  expect(await actingUserId(page)).toBe(adminId);

  await page.goto(CROSS_SITE);
  const loggedOut = await Promise.all([page.waitForResponse(`${consoleUrl}/api/auth/logout`), page.click('#logout')]);
  expect(loggedOut[0].status()).toBe(403);
  expect(await actingUserId(page)).toBe(adminId);

  // The console's own link still works: the same-origin navigation is followed.
  await page.goto(`${consoleUrl}/demands`);
  await page.goto(`${consoleUrl}/api/switch?type=demand&id=${target.id}`);
  await expect(page).toHaveURL(`${consoleUrl}/`);
  expect(await actingUserId(page)).toBe(target.id);
});

test('a sibling origin of the same site cannot archive, duplicate or delete with the Lax cookie', async ({ page }) => {
  await signIn(page, 'demand');
  const list = await page.request.get(`${consoleUrl}/api/demand/tags?pageSize=10`);
  const tag = ((await list.json()) as { items: { id: number; name: string }[] }).items[0];
  const api = `${consoleUrl}/api/demand/tags/${tag.id}`;
  await serveAttackerPage(
    page,
    SIBLING,
    // The answers are opaque to the page (and Cross-Origin-Resource-Policy blocks them), but the
    // requests reach the server with the cookie: only the server's refusal keeps the row as it is.
    `<!doctype html><script>
      const sent = (p) => p.then(() => 'answered', () => 'blocked');
      window.attempts = Promise.all([
        sent(fetch('${api}/archive', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{}' })),
        sent(fetch('${api}/duplicate', { method: 'POST', mode: 'no-cors', credentials: 'include' })),
        sent(fetch('${api}', { method: 'DELETE', credentials: 'include' })),
      ]).then(() => 'sent');
    </script>
    <form id="form" method="POST" enctype="text/plain" action="${api}/archive"><input name='{"a":"' value='"}'></form>`,
  );
  await page.goto(SIBLING);
  expect(await page.evaluate(() => (window as unknown as { attempts: Promise<string> }).attempts)).toBe('sent');
  // A form posted as text/plain navigates to the server's answer: the refusal itself.
  const [answer] = await Promise.all([
    page.waitForResponse(`${api}/archive`),
    page.evaluate(() => (document.getElementById('form') as HTMLFormElement).submit()),
  ]);
  expect(answer.status()).toBe(403);
  await expect(page.locator('body')).toContainText('Cross-site request refused');

  const after = await page.request.get(api);
  expect(after.status()).toBe(200);
  expect(((await after.json()) as { archived: boolean }).archived).toBe(false);
  const copies = await page.request.get(
    `${consoleUrl}/api/demand/tags?search=${encodeURIComponent(`${tag.name} (copy)`)}`,
  );
  expect(((await copies.json()) as { total: number }).total).toBe(0);
});

test('an HTML creative runs in a sandboxed preview under its own policy, the console under its own', async ({
  page,
}) => {
  const violations = await watchCsp(page);
  await signInAt(page, 'demand', '/campaigns', 'dsp');
  for (const path of ['/targetings', '/creatives']) {
    await page.goto(path);
    await expect(page.getByTestId('user-menu')).toBeVisible();
  }
  await page.getByTestId('resource-new').click();
  const drawer = page.getByTestId('resource-drawer');
  await drawer.getByText('Display', { exact: true }).click();
  await drawer.getByText('HTML', { exact: true }).click();
  await drawer.getByRole('textbox', { name: /HTML/ }).fill(
    // Reading cookies throws in an opaque-origin sandbox: the script says where it ran.
    '<div id="ad">static</div><script>var at; try { at = "a document with cookies: " + document.cookie; } catch (e) { at = "an opaque sandbox"; } document.getElementById("ad").textContent = "script ran in " + at;</script>',
  );
  const frame = page.frameLocator('iframe[data-testid="creative-preview"]');
  await expect(frame.locator('#ad')).toHaveText('script ran in an opaque sandbox');
  await expect(page.locator('iframe[data-testid="creative-preview"]')).toHaveAttribute(
    'sandbox',
    'allow-scripts allow-popups',
  );
  await page.screenshot({ path: test.info().outputPath('security-html-creative-preview.png') });
  expect(violations).toEqual([]);
});
