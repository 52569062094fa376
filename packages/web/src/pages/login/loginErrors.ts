import { ApiError } from '../../api/client.js';
import { errorText } from '../../errors/messages.js';

export const BAD_CREDENTIALS = 'Bad credentials';

/** What the sign-in form says about a failed attempt: 401 is always 'Bad credentials' (never which of name or password was wrong). */
export function loginErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 401) return BAD_CREDENTIALS;
  return errorText(error);
}

/** Where to go after signing in: the page the visitor came from when it is a console path, else /. */
export function afterLoginPath(from: unknown): string {
  if (typeof from !== 'string' || !from.startsWith('/') || from.startsWith('//')) return '/';
  if (from === '/login' || from.startsWith('/login?') || from.startsWith('/api/')) return '/';
  return from;
}
