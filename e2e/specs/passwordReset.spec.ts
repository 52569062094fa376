import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMailServer } from '../../packages/server/test/mailServer.js';
import { expect, test } from '../support/test.js';
import { ResourcePage } from '../support/resourcePage.js';
import { signInThroughPage } from '../support/session.js';

/**
 * Password change in the profile, and a password reset by an e-mailed link from the sign-in page
 * through the reset page. The e2e servers have no mail, so this spec starts its own: an SMTP server
 * on loopback (packages/server/test/mailServer.ts, as the server's tests start it) and an adplane
 * server of its own (the production bundle, on the slot's ninth port, a fresh store) pointed at it;
 * the link is read from the mail that server receives.
 */
test.describe.configure({ mode: 'serial' });

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const slot = Number(process.env.TEST_PARALLEL_INDEX ?? 0);
const port = Number(process.env.E2E_PORT_BASE ?? 18180) + slot * 10 + 9;
const base = `http://127.0.0.1:${port}`;
let smtp: Awaited<ReturnType<typeof startMailServer>>;
let server: ChildProcess;
let dataDir: string;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  smtp = await startMailServer();
  dataDir = mkdtempSync(join(tmpdir(), 'adplane-e2e-mail-'));
  server = spawn(process.execPath, ['packages/server/dist/main.mjs'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADPLANE_HOST: base,
      ADPLANE_DEMO: '1',
      ADPLANE_DEMO_PASSWORD: 'demo',
      ADPLANE_SMTP_URL: smtp.url,
      ADPLANE_MAIL_FROM: 'adplane <noreply@e2e.test>',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      CLICKHOUSE_URL: '',
      REDIS_URL: '',
    },
  });
  await expect
    .poll(
      async () => {
        try {
          return (await fetch(`${base}/healthz`)).status;
        } catch {
          return 0;
        }
      },
      { timeout: 110_000 },
    )
    .toBe(200);
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await smtp?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('a user changes their password in the profile; the old one no longer signs in', async ({ page }) => {
  await signInThroughPage(page, 'adv', 'demo', base);
  await page.getByTestId('user-menu').click();
  await page.getByTestId('user-menu-profile').click();
  await page.getByTestId('account-tab-password').click();
  const section = page.getByTestId('profile-password');
  await section.scrollIntoViewIfNeeded();
  await section.getByTestId('password-current').fill('not-my-password');
  await section.getByTestId('password-new').fill('e2e-changed-passphrase');
  await section.getByTestId('password-confirm').fill('e2e-changed-passphrase');
  await section.getByTestId('password-submit').click();
  await expect(section).toContainText('is not your current password');
  await section.getByTestId('password-current').fill('demo');
  await section.getByTestId('password-submit').click();
  await expect(page.getByRole('alert').getByText('Password changed')).toBeVisible();
  const log = section.getByTestId('sign-in-log');
  await expect(log).toContainText('Password changed');
  await expect(log).toContainText('wrong password');
  await section.screenshot({ path: test.info().outputPath('profile-password.png') });
  expect(
    (await page.request.post(`${base}/api/auth/login`, { data: { username: 'adv', password: 'demo' } })).status(),
  ).toBe(401);
  expect(
    (
      await page.request.post(`${base}/api/auth/login`, {
        data: { username: 'adv', password: 'e2e-changed-passphrase' },
      })
    ).status(),
  ).toBe(200);
});

test('"Forgot password?" mails a link; its page sets a new password, which signs in', async ({ page }) => {
  await page.context().clearCookies();
  await page.goto(`${base}/login`);
  await page.getByTestId('login-forgot').click();
  await page.getByTestId('forgot-login').fill('sub@demo.adplane.test');
  await page.getByTestId('forgot-submit').click();
  await expect(page.getByTestId('forgot-sent')).toContainText('If an account has this address');
  await page.screenshot({ path: test.info().outputPath('forgot-password.png') });

  await expect.poll(() => smtp.received.filter((r) => r.envelopeTo.includes('sub@demo.adplane.test')).length).toBe(1);
  const mail = smtp.received.find((r) => r.envelopeTo.includes('sub@demo.adplane.test'))!.mail;
  const link = /(http\S+\/reset-password\?token=\S+)/.exec(mail.text ?? '')?.[1];
  expect(link?.startsWith(`${base}/reset-password?token=`)).toBe(true);

  await page.goto(link!);
  await page.getByTestId('reset-password-new').fill('short');
  await page.getByTestId('reset-password-confirm').fill('short');
  await page.getByTestId('reset-submit').click();
  await expect(page.getByTestId('reset-password')).toContainText('at least 8 characters');
  await page.getByTestId('reset-password-new').fill('e2e-reset-passphrase');
  await page.getByTestId('reset-password-confirm').fill('e2e-reset-passphrase');
  await page.screenshot({ path: test.info().outputPath('reset-page.png') });
  await page.getByTestId('reset-submit').click();
  await expect(page.getByTestId('reset-done')).toBeVisible();
  await page.getByTestId('reset-sign-in').click();
  await page.getByTestId('login-username').fill('sub');
  await page.getByTestId('login-password').fill('e2e-reset-passphrase');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('user-menu')).toBeVisible();

  // the link works once
  await page.goto(link!);
  await page.getByTestId('reset-password-new').fill('another-e2e-passphrase');
  await page.getByTestId('reset-password-confirm').fill('another-e2e-passphrase');
  await page.getByTestId('reset-submit').click();
  await expect(page.getByTestId('reset-error')).toContainText('was used already or has expired');
});

test("an admin reads a demand account's sign-in log in its drawer", async ({ page }) => {
  await page.context().clearCookies();
  expect(
    (
      await page.request.post(`${base}/api/auth/login`, { data: { username: 'demand', password: 'nope-nope' } })
    ).status(),
  ).toBe(401);
  await page.context().clearCookies();
  await signInThroughPage(page, 'admin', 'demo', base);
  const demands = new ResourcePage(page, 'demands', `${base}/demands`);
  await demands.open();
  await demands.openRow('Northwind Media');
  const section = demands.drawer.getByTestId('account-sign-ins');
  await section.scrollIntoViewIfNeeded();
  await section.getByText('Sign-in log').click();
  await expect(section.getByTestId('sign-in-log')).toContainText('wrong password');
  await demands.drawer.screenshot({ path: test.info().outputPath('admin-drawer-sign-ins.png') });
});
