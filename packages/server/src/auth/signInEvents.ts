import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { type SignInFailure, type SignInOutcome } from '@adplane/shared';
import { HttpError } from '../http/errors.js';
import { recordSignIn } from '../store/signInLog.js';

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
