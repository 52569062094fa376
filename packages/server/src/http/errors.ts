import { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type z, ZodError } from 'zod';
import { type ApiError, describeFieldErrors, fieldErrors } from '@adplane/shared';
import { isStoreBusy } from '../store/storeBusy.js';
import { uniqueViolationOf } from '../store/uniqueViolation.js';

/** An answer other than 2xx that a handler or hook chooses on purpose; its message is shown to the user. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const forbidden = (message = 'Forbidden') => new HttpError(403, message);
export const notFound = (message = 'Not found') => new HttpError(404, message);

/** A 400 about one field, shaped like a validation error. */
export function badField(field: string, message: string): HttpError {
  return new HttpError(400, `${field}: ${message}`, field);
}

/** Parse a body or query with a shared zod schema; a ZodError becomes a 400 naming each field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return schema.parse(value ?? {});
}

/** Messages of Fastify's own 4xx errors that we word for people. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Body is empty but its content-type is application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content-type: send JSON',
};

function answer(reply: FastifyReply, status: number, body: ApiError) {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Bad input gets a clear 4xx with the field and the reason; anything unexpected is a logged 500 without details. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ZodError) {
      const errors = fieldErrors(error);
      return answer(reply, 400, { message: describeFieldErrors(errors), field: errors[0]?.field, errors });
    }
    if (error instanceof HttpError) {
      reply.headers(error.headers);
      const body: ApiError = { message: error.message };
      const listed = (error as { errors?: ApiError['errors'] }).errors;
      if (listed?.length) {
        body.field = error.field ?? listed[0].field;
        body.errors = listed;
      } else if (error.field) {
        body.field = error.field;
        body.errors = [{ field: error.field, message: error.message.replace(`${error.field}: `, '') }];
      }
      return answer(reply, error.statusCode, body);
    }
    // Two writes racing for one unique value: the loser is told which field, whatever the timing.
    const unique = uniqueViolationOf(error);
    if (unique) {
      const message = `${unique.field}: is already taken (by another row or account); choose another`;
      return answer(reply, 409, {
        message,
        field: unique.field,
        errors: [{ field: unique.field, message: 'is already taken (by another row or account); choose another' }],
      });
    }
    // Another writer held the store past the wait (another process's save on one SQLite file, a lock
    // on PostgreSQL): nothing was written, and the same request a moment later goes through.
    if (isStoreBusy(error)) {
      request.log.warn({ err: error }, 'config store busy');
      reply.header('retry-after', '1');
      return answer(reply, 503, {
        message: 'The store is busy with another save; nothing was saved. Try again in a moment.',
      });
    }
    const status = (error as FastifyError).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const code = (error as FastifyError).code;
      return answer(reply, status, { message: FASTIFY_MESSAGES[code] ?? error.message });
    }
    request.log.error({ err: error }, 'request failed');
    return answer(reply, 500, { message: 'Internal error' });
  });
}
