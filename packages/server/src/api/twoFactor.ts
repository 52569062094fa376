import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  type AuthUser,
  type EnrolledSignIn,
  PendingSignInBody,
  type RecoveryCodes,
  SecondStepBody,
  TwoFactorCodeBody,
  TwoFactorPasswordBody,
  type TwoFactorSetup,
  type TwoFactorStatus,
} from '@adplane/shared';
import { type AuthContext, requireAuth } from '../auth/guards.js';
import { confirmOwnPassword, logSignIn, tooManyFailures } from '../auth/signInEvents.js';
import { type PendingStep, readPending } from '../auth/twoFactor.js';
import { badField, forbidden, HttpError, notFound, parseInput } from '../http/errors.js';
import { canSignIn, findUserById, type User } from '../store/users.js';

/** Ends a sign-in whose every step passed: the session, the log's success row, the user's answer. */
export type FinishSignIn = (request: FastifyRequest, reply: FastifyReply, user: User) => Promise<AuthUser>;

/** The account's own sign-in, not an admin acting as it nor an API key: only they change how they sign in. */
function ownSignIn(request: FastifyRequest): AuthContext {
  const auth = requireAuth(request);
  if (auth.adminId !== null) throw forbidden('An admin acting as this account cannot change how it signs in');
  if (auth.apiKeyId !== undefined) throw forbidden('Two-factor sign-in is set up in the console, not with an API key');
  return auth;
}

/**
 * Two-factor sign-in (docs/security.md): the second step of a sign-in (a code, or the enrolment a
 * tenant requires) reached with the pending token the password step answered; a signed-in user's
 * own enrolment, recovery codes and turning it off; an admin's view and reset of any account's.
 */
export async function twoFactorRoutes(app: FastifyInstance, finishSignIn: FinishSignIn): Promise<void> {
  const now = () => app.clock.now();
  const tf = app.twoFactor;

  /** The account a pending token names, for the step it was issued for; 400 when it has expired or is not one. */
  async function pendingUser(pendingToken: string, step: PendingStep): Promise<User> {
    const pending = readPending(app.twoFactorKeys, pendingToken, now());
    if (!pending || pending.step !== step)
      throw badField('pendingToken', 'has expired or is not a sign-in in progress: sign in again');
    const user = await findUserById(app.store.db, pending.userId);
    // disabled or archived between the two steps
    if (!user || !canSignIn(user)) throw new HttpError(401, 'Bad credentials');
    return user;
  }

  /**
   * A second-step code under the sign-in brakes (auth/loginThrottle.ts), counted with the account's
   * wrong passwords: a password thief cannot guess codes faster than passwords.
   */
  async function throttledCode<T>(request: FastifyRequest, user: User, attempt: () => Promise<T | null>): Promise<T> {
    const account = `user:${user.id}`;
    const verdict = app.loginThrottle.assess(account, request.ip);
    if (verdict.retryAfterMs > 0) {
      app.metrics.loginFailures.inc({ reason: 'throttled' });
      await logSignIn(app, request, user.id, 'failure', 'throttled');
      throw tooManyFailures(verdict.retryAfterMs);
    }
    if (verdict.delayMs > 0) await app.loginThrottle.sleep(verdict.delayMs);
    const result = await attempt();
    if (result === null) {
      app.loginThrottle.recordFailure(account, request.ip);
      app.metrics.loginFailures.inc({ reason: 'bad_code' });
      await logSignIn(app, request, user.id, 'failure', 'bad_code');
      request.log.info({ userId: user.id }, 'sign-in refused: wrong two-factor code');
      throw badField(
        'code',
        'is wrong, or was used already: enter the current code of your app or an unused recovery code',
      );
    }
    app.loginThrottle.recordSuccess(account);
    return result;
  }

  app.post('/api/auth/login/code', { config: { guard: 'public' } }, async (request, reply) => {
    const { pendingToken, code } = parseInput(SecondStepBody, request.body);
    const user = await pendingUser(pendingToken, 'code');
    const kind = await throttledCode(request, user, () => tf.check(user.id, code));
    request.log.info({ userId: user.id, kind }, 'two-factor step passed');
    return finishSignIn(request, reply, user);
  });

  app.post('/api/auth/login/setup', { config: { guard: 'public' } }, async (request): Promise<TwoFactorSetup> => {
    const { pendingToken } = parseInput(PendingSignInBody, request.body);
    const user = await pendingUser(pendingToken, 'enrol');
    const setup = await tf.begin(user);
    if (!setup) throw new HttpError(409, 'Two-factor sign-in is on for this account already: sign in again');
    return setup;
  });

  app.post(
    '/api/auth/login/confirm',
    { config: { guard: 'public' } },
    async (request, reply): Promise<EnrolledSignIn> => {
      const { pendingToken, code } = parseInput(SecondStepBody, request.body);
      const user = await pendingUser(pendingToken, 'enrol');
      const recoveryCodes = await throttledCode(request, user, () => tf.confirm(user.id, code));
      request.log.info({ userId: user.id }, 'two-factor sign-in turned on at sign-in');
      return { user: await finishSignIn(request, reply, user), recoveryCodes };
    },
  );

  app.get('/api/auth/twoFactor', { config: { guard: 'auth' } }, async (request): Promise<TwoFactorStatus> => {
    return tf.status(requireAuth(request).user);
  });

  app.post('/api/auth/twoFactor/setup', { config: { guard: 'auth' } }, async (request): Promise<TwoFactorSetup> => {
    const setup = await tf.begin(ownSignIn(request).user);
    if (!setup) throw new HttpError(409, 'Two-factor sign-in is on already: turn it off first to enrol a new app');
    return setup;
  });

  app.post('/api/auth/twoFactor/confirm', { config: { guard: 'auth' } }, async (request): Promise<RecoveryCodes> => {
    const { user } = ownSignIn(request);
    const { code } = parseInput(TwoFactorCodeBody, request.body);
    const recoveryCodes = await tf.confirm(user.id, code);
    if (!recoveryCodes) throw badField('code', 'is not the current code of the app you are setting up');
    request.log.info({ userId: user.id }, 'two-factor sign-in turned on');
    return { recoveryCodes };
  });

  app.post(
    '/api/auth/twoFactor/recoveryCodes',
    { config: { guard: 'auth' } },
    async (request): Promise<RecoveryCodes> => {
      const { user } = ownSignIn(request);
      const { password } = parseInput(TwoFactorPasswordBody, request.body);
      await confirmOwnPassword(app, request, user.id, password, 'password');
      const recoveryCodes = await tf.renewCodes(user.id);
      if (!recoveryCodes) throw new HttpError(409, 'Two-factor sign-in is off: there are no recovery codes to renew');
      return { recoveryCodes };
    },
  );

  app.post('/api/auth/twoFactor/disable', { config: { guard: 'auth' } }, async (request) => {
    const { user } = ownSignIn(request);
    const { password } = parseInput(TwoFactorPasswordBody, request.body);
    if (await tf.required(user)) throw forbidden('Your account requires two-factor sign-in: it cannot be turned off');
    await confirmOwnPassword(app, request, user.id, password, 'password');
    await tf.turnOff(user.id);
    request.log.info({ userId: user.id }, 'two-factor sign-in turned off');
    return { ok: true };
  });

  /** The account of an admin route's :id; 404 when there is none. */
  async function accountOf(request: FastifyRequest<{ Params: { id: string } }>): Promise<User> {
    const id = Number(request.params.id);
    if (!Number.isSafeInteger(id) || id <= 0) throw badField('id', 'must be a positive whole number');
    const user = await findUserById(app.store.db, id);
    if (!user) throw notFound('No such user');
    return user;
  }

  app.get<{ Params: { id: string } }>('/api/users/:id/twoFactor', { config: { guard: 'admin' } }, async (request) =>
    tf.status(await accountOf(request)),
  );

  // For an account that lost its app and its recovery codes: it signs in with its password alone
  // again, or, when its tenant requires two-factor sign-in, enrols anew at its next sign-in.
  app.post<{ Params: { id: string } }>(
    '/api/users/:id/twoFactor/reset',
    { config: { guard: 'admin' } },
    async (request) => {
      const user = await accountOf(request);
      const had = await tf.turnOff(user.id);
      request.log.info(
        { userId: user.id, by: requireAuth(request).user.id, had },
        'two-factor sign-in reset by an admin',
      );
      return { ok: true, reset: had };
    },
  );
}
