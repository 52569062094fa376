import { type FastifyInstance } from 'fastify';
import { type LoginAnswer, LoginBody } from '@adplane/shared';
import { loadAuthUser } from '../auth/authUser.js';
import { requireAuth } from '../auth/guards.js';
import { logSignIn, tooManyFailures } from '../auth/signInEvents.js';
import { issuePending } from '../auth/twoFactor.js';
import { verifyAgainstDummy, verifyPassword } from '../auth/passwords.js';
import { HttpError, parseInput } from '../http/errors.js';
import { canSignIn, findUserForLogin } from '../store/users.js';
import { passwordRoutes } from './passwords.js';
import { type FinishSignIn, twoFactorRoutes } from './twoFactor.js';

/**
 * Sign in, sign out, and restore the session on the console's first render; password change and
 * reset, and the sign-in log, in api/passwords.ts; the second step of two-factor sign-in in
 * api/twoFactor.ts.
 */
export async function authRoutes(app: FastifyInstance): Promise<void> {
  const finishSignIn: FinishSignIn = async (request, reply, user) => {
    // A new sign-in replaces whatever session the browser had.
    if (request.auth) await app.sessions.end(request, reply);
    await app.sessions.start(request, reply, user);
    await logSignIn(app, request, user.id, 'success');
    request.log.info({ userId: user.id, type: user.type }, 'signed in');
    return loadAuthUser(app.store.db, app.settings, user, null);
  };
  await passwordRoutes(app);
  await twoFactorRoutes(app, finishSignIn);
  app.post('/api/auth/login', { config: { guard: 'public' } }, async (request, reply): Promise<LoginAnswer> => {
    const { username, password } = parseInput(LoginBody, request.body);
    const found = await findUserForLogin(app.store.db, username);
    // Counted per account (its id when it exists, so its user name and e-mail share one count; else
    // the name tried) and per client address, separately (auth/loginThrottle.ts).
    const account = found ? `user:${found.user.id}` : `name:${username.trim().toLowerCase()}`;
    const verdict = app.loginThrottle.assess(account, request.ip);
    if (verdict.retryAfterMs > 0) {
      app.metrics.loginFailures.inc({ reason: 'throttled' });
      if (found) await logSignIn(app, request, found.user.id, 'failure', 'throttled');
      throw tooManyFailures(verdict.retryAfterMs);
    }
    if (verdict.delayMs > 0) await app.loginThrottle.sleep(verdict.delayMs);
    // Unknown users cost an argon2 verify too, so timing does not reveal which usernames exist.
    const passwordOk = found ? await verifyPassword(found.passwordHash, password) : await verifyAgainstDummy(password);
    if (!found || !passwordOk || !canSignIn(found.user)) {
      app.loginThrottle.recordFailure(account, request.ip);
      const reason = !found
        ? 'unknown_user'
        : !passwordOk
          ? 'bad_password'
          : found.user.archived
            ? 'archived'
            : 'disabled';
      app.metrics.loginFailures.inc({ reason });
      if (found && reason !== 'unknown_user') await logSignIn(app, request, found.user.id, 'failure', reason);
      request.log.info({ username, reason }, 'sign-in refused');
      throw new HttpError(401, 'Bad credentials');
    }
    // With two-factor sign-in on, or required by the tenant, the password earns a pending token for
    // the second step, not a session; the account's failure count is cleared only when that passes.
    const step = (await app.twoFactor.isOn(found.user.id))
      ? 'code'
      : (await app.twoFactor.required(found.user))
        ? 'enrol'
        : null;
    if (step) {
      request.log.info({ userId: found.user.id, step }, 'password right: second step next');
      return { twoFactor: step, ...issuePending(app.twoFactorKeys, found.user.id, step, app.clock.now()) };
    }
    app.loginThrottle.recordSuccess(account);
    return finishSignIn(request, reply, found.user);
  });

  app.get('/api/auth/logout', { config: { guard: 'public', changesState: true } }, async (request, reply) => {
    await app.sessions.end(request, reply);
    return { ok: true };
  });

  // The console's session probe on its first render: signed out is an answer, not an error, so a
  // signed-out page load does not log a 403 in the browser console. (/api/auth/user still answers 403 when signed out.)
  app.get('/api/auth/session', { config: { guard: 'public' } }, async (request) => {
    const auth = request.auth;
    return { user: auth ? await loadAuthUser(app.store.db, app.settings, auth.user, auth.adminId) : null };
  });

  app.get('/api/auth/user', { config: { guard: 'auth' } }, async (request) => {
    const { user, adminId } = requireAuth(request);
    return loadAuthUser(app.store.db, app.settings, user, adminId);
  });
}
