import { digestOfSecret, newSecretToken } from '../auth/secretTokens.js';
import { type FastifyInstance } from 'fastify';
import {
  ChangePasswordBody,
  FORGOT_PASSWORD_ANSWER,
  ForgotPasswordBody,
  ResetPasswordBody,
  completeContacts,
} from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { LoginThrottle } from '../auth/loginThrottle.js';
import { hashPassword } from '../auth/passwords.js';
import { confirmOwnPassword, logSignIn, tooManyFailures } from '../auth/signInEvents.js';
import { badField, forbidden, HttpError, notFound, parseInput } from '../http/errors.js';
import { changeOwnPassword, insertPasswordReset, usePasswordReset } from '../store/passwordResets.js';
import { listSignIns } from '../store/signInLog.js';
import { canSignIn, findUserById, findUserForLogin, type User } from '../store/users.js';

/** A reset link works for an hour after it was asked for, once. */
const RESET_TTL_MS = 60 * 60 * 1000;

/** Where a reset link goes: the account's e-mail, else its contacts' (the general contact first). */
function resetAddressOf(user: Pick<User, 'email' | 'contacts'>): string | null {
  if (user.email) return user.email;
  for (const contact of completeContacts(user.contacts)) if (contact.contactEmail) return contact.contactEmail;
  return null;
}

function resetMail(link: string, user: User) {
  const text = [
    `Hello ${user.name},`,
    '',
    `someone (we hope you) asked to set a new password for the adplane account "${user.username}".`,
    'Open this link within an hour to choose one; it works once:',
    '',
    link,
    '',
    'If it was not you, ignore this message: your password stays as it is.',
  ].join('\n');
  const escape = (v: string) => v.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const html =
    `<p>Hello ${escape(user.name)},</p><p>someone (we hope you) asked to set a new password for the adplane account ` +
    `"${escape(user.username)}".</p><p><a href="${escape(link)}">Choose a new password</a> within an hour; the link works once.</p>` +
    '<p>If it was not you, ignore this message: your password stays as it is.</p>';
  return { subject: 'Set a new adplane password', text, html };
}

/**
 * The password routes: a signed-in user's change of their own password, the reset by an e-mailed
 * link (ask, then use), and the sign-in log (one's own; an admin's view of any account's).
 */
export async function passwordRoutes(app: FastifyInstance): Promise<void> {
  const { mailer } = app;
  const now = () => app.clock.now();
  // Reset requests count per address asked for and per client address, every request (not only
  // failures, since the answer never says which failed): 5 an hour per address, 30 per client.
  // Wrong tokens count per client address alike. Never slowed down, only refused (slowAfter above refuseAfter).
  const resetThrottle = new LoginThrottle({
    now,
    windowMs: 60 * 60 * 1000,
    account: { slowAfter: 1_000, refuseAfter: 5 },
    address: { slowAfter: 1_000, refuseAfter: 30 },
  });
  // Links being made and mailed after their request was answered; the app's close waits for them.
  const mailing = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...mailing]);
  });
  if (!mailer.on) app.log.info('mail is off (ADPLANE_SMTP_URL and ADPLANE_MAIL_FROM unset): no password-reset mails');

  app.post('/api/auth/password', { config: { guard: 'auth' } }, async (request) => {
    const { user, adminId, sessionId, apiKeyId } = requireAuth(request);
    if (adminId !== null) throw forbidden('An admin acting as this account cannot change its password');
    // A key acts for its owner in scripts; the password is the owner's own, changed in the console.
    if (apiKeyId !== undefined) throw forbidden('A password is changed in the console, not with an API key');
    const { currentPassword, newPassword } = parseInput(ChangePasswordBody, request.body);
    await confirmOwnPassword(app, request, user.id, currentPassword, 'currentPassword');
    const sessionsEnded = await changeOwnPassword(app.store.db, user.id, await hashPassword(newPassword), sessionId);
    await logSignIn(app, request, user.id, 'password_changed');
    request.log.info({ userId: user.id, sessionsEnded }, 'password changed');
    return { ok: true, sessionsEnded };
  });

  // Whether this server can mail reset links: the login page says so before anyone asks for one.
  app.get('/api/auth/passwordReset', { config: { guard: 'public' } }, () => ({ mail: mailer.on }));

  app.post('/api/auth/forgotPassword', { config: { guard: 'public' } }, async (request) => {
    const { login } = parseInput(ForgotPasswordBody, request.body);
    if (!mailer.on) throw new HttpError(503, 'Mail is off on this server: ask an administrator to set a new password');
    const key = login.toLowerCase();
    const verdict = resetThrottle.assess(`login:${key}`, request.ip);
    if (verdict.retryAfterMs > 0) throw tooManyFailures(verdict.retryAfterMs, 'password-reset requests');
    resetThrottle.recordFailure(`login:${key}`, request.ip);
    // The account is looked up, the link made and mailed after the answer, which is the same 200
    // at once whether the address belongs to an account or not.
    const ip = request.ip ?? null;
    const log = request.log;
    const job = (async () => {
      const found = await findUserForLogin(app.store.db, key);
      const to = found && canSignIn(found.user) ? resetAddressOf(found.user) : null;
      if (!found || !to) {
        log.info({ reason: found ? 'no address or cannot sign in' : 'no account' }, 'password reset: no mail sent');
        return;
      }
      const token = newSecretToken();
      await insertPasswordReset(app.store.db, {
        id: digestOfSecret(token),
        userId: found.user.id,
        ip,
        nowMs: now(),
        ttlMs: RESET_TTL_MS,
      });
      const link = `${app.settings.publicHost}/reset-password?token=${token}`;
      await mailer.send({ to, ...resetMail(link, found.user) });
      log.info({ userId: found.user.id }, 'password reset: link mailed');
    })()
      .catch((error: unknown) => log.error({ err: error }, 'password reset: mailing the link failed'))
      .finally(() => mailing.delete(job));
    mailing.add(job);
    return { ok: true, message: FORGOT_PASSWORD_ANSWER };
  });

  app.post('/api/auth/resetPassword', { config: { guard: 'public' } }, async (request, reply) => {
    const { token, password } = parseInput(ResetPasswordBody, request.body);
    const client = `client:${request.ip}`;
    const verdict = resetThrottle.assess(client, request.ip);
    if (verdict.retryAfterMs > 0) throw tooManyFailures(verdict.retryAfterMs, 'invalid reset links');
    const used = await usePasswordReset(app.store.db, digestOfSecret(token), now(), await hashPassword(password));
    if (!used) {
      resetThrottle.recordFailure(client, request.ip);
      throw badField('token', 'is not a valid reset link, or it was used or has expired: ask for a new one');
    }
    // Control of the mailbox is proof enough: the account's failed sign-ins no longer hold it back.
    app.loginThrottle.recordSuccess(`user:${used.userId}`);
    await logSignIn(app, request, used.userId, 'password_reset');
    // Every session of the account ended, this browser's too: sign in with the new password.
    if (request.auth) app.sessions.clearCookie(reply);
    request.log.info({ userId: used.userId, sessionsEnded: used.sessionsEnded }, 'password reset by link');
    return { ok: true };
  });

  app.get('/api/auth/signIns', { config: { guard: 'auth' } }, async (request) => {
    const { user } = requireAuth(request);
    return { items: await listSignIns(app.store.db, user.id, now()) };
  });

  app.get<{ Params: { id: string } }>('/api/users/:id/signIns', { config: { guard: 'admin' } }, async (request) => {
    const id = Number(request.params.id);
    if (!Number.isSafeInteger(id) || id <= 0) throw badField('id', 'must be a positive whole number');
    if (!(await findUserById(app.store.db, id))) throw notFound('No such user');
    return { items: await listSignIns(app.store.db, id, now()) };
  });
}
