import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { type SignInFailure, type SignInOutcome } from '@adplane/shared';
import { badField, HttpError } from '../http/errors.js';
import { passwordHashOf } from '../store/passwordResets.js';
import { recordSignIn } from '../store/signInLog.js';
import { verifyPassword } from './passwords.js';

/** A 429 with Retry-After: `what` ("failed sign-ins") came too often; when to try again. */
export function tooManyFailures(waitMs: number, what = 'failed sign-ins'): HttpError {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return new HttpError(429, `Too many ${what}; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`, undefined, {
    'retry-after': String(Math.ceil(waitMs / 1000)),
  });
}

/** One row of the account's sign-in log for this request (store/signInLog.ts). */
export function logSignIn(
  app: FastifyInstance,
  request: FastifyRequest,
  userId: number,
  outcome: SignInOutcome,
  reason: SignInFailure | null = null,
): Promise<void> {
  return recordSignIn(app.store.db, userId, app.clock.now(), {
    ip: request.ip ?? null,
    userAgent: request.headers['user-agent'] ?? null,
    outcome,
    reason,
  });
}

/**
 * A signed-in user's password, asked again before a change to how they sign in (a new password,
 * two-factor sign-in off, new recovery codes): with the same brakes and counts as sign-in
 * (auth/loginThrottle.ts), so a stolen session cannot guess the password faster. A wrong one is a
 * 400 naming `field`, logged as a failed sign-in.
 */
export async function confirmOwnPassword(
  app: FastifyInstance,
  request: FastifyRequest,
  userId: number,
  password: string,
  field: string,
): Promise<void> {
  const account = `user:${userId}`;
  const verdict = app.loginThrottle.assess(account, request.ip);
  if (verdict.retryAfterMs > 0) {
    await logSignIn(app, request, userId, 'failure', 'throttled');
    throw tooManyFailures(verdict.retryAfterMs, 'wrong passwords');
  }
  if (verdict.delayMs > 0) await app.loginThrottle.sleep(verdict.delayMs);
  const currentHash = await passwordHashOf(app.store.db, userId);
  if (!currentHash || !(await verifyPassword(currentHash, password))) {
    app.loginThrottle.recordFailure(account, request.ip);
    await logSignIn(app, request, userId, 'failure', 'bad_password');
    throw badField(field, 'is not your current password');
  }
  app.loginThrottle.recordSuccess(account);
}
