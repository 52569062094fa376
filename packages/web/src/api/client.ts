import { decryptJsonBody, JSON_ENCRYPT_HEADER, type FieldError } from '@adplane/shared';
import { beginLoading } from '../components/loadingStore.js';
import { browser } from '../browser.js';

/** What every failed call throws: the server's `{ message, field?, errors? }` plus the HTTP status. */
export class ApiError extends Error {
  readonly status: number;
  readonly field?: string;
  readonly errors: FieldError[];

  constructor(message: string, status: number, field?: string, errors: FieldError[] = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.field = field;
    this.errors = errors;
  }
}

/** Shown when fetch itself fails (server down, network gone, CORS): there is no HTTP status. */
export const NETWORK_ERROR_MESSAGE = 'The server could not be reached; check your connection and try again';

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  /** Do not run the 403 handler (the session probe on first render treats 403 as "signed out"). */
  ignoreForbidden?: boolean;
  /** Do not show the call on the top loading bar (background polling). */
  silent?: boolean;
  signal?: AbortSignal;
}

type ForbiddenHandler = () => void;

let forbiddenHandler: ForbiddenHandler = () => {
  browser.assign('/login');
};

/**
 * What to do on HTTP 403 from any call: the auth provider registers a handler that
 * clears the user and the list cache and navigates to /login. Returns a function restoring the
 * previous handler.
 */
export function setForbiddenHandler(handler: ForbiddenHandler): () => void {
  const previous = forbiddenHandler;
  forbiddenHandler = handler;
  return () => {
    forbiddenHandler = previous;
  };
}

/** Parse a response body, decrypting it first when the server sent `json-encrypt: 1`. */
export function parseBody(text: string, headers: Headers): unknown {
  if (text.trim() === '') return null;
  const plain = headers.get(JSON_ENCRYPT_HEADER) === '1' ? decryptJsonBody(text) : text;
  return JSON.parse(plain);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Build the error of a failed response: the server's message, else the status text, else 'Error'. */
export function errorFromResponse(status: number, statusText: string, body: unknown): ApiError {
  if (isRecord(body)) {
    const message =
      typeof body.message === 'string' && body.message.trim() !== '' ? body.message : statusText || 'Error';
    const field = typeof body.field === 'string' ? body.field : undefined;
    const errors = Array.isArray(body.errors)
      ? body.errors.filter(isRecord).map((e) => ({ field: String(e.field ?? ''), message: String(e.message ?? '') }))
      : [];
    return new ApiError(message, status, field, errors);
  }
  if (typeof body === 'string' && body.trim() !== '') return new ApiError(body, status);
  return new ApiError(statusText || 'Error', status);
}

async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { method = 'GET', body, ignoreForbidden = false, silent = false, signal } = options;
  const headers: Record<string, string> = { Accept: 'application/json' };
  // The server takes every POST and PUT as JSON only (its CSRF defence): an action without a body sends {}.
  const payload = body === undefined && (method === 'POST' || method === 'PUT') ? {} : body;
  if (payload !== undefined) headers['Content-Type'] = 'application/json';
  const done = silent ? () => undefined : beginLoading();
  try {
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: payload === undefined ? undefined : JSON.stringify(payload),
        credentials: 'include',
        signal,
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiError(NETWORK_ERROR_MESSAGE, 0);
    }
    const text = await response.text();
    let data: unknown;
    try {
      data = parseBody(text, response.headers);
    } catch {
      data = response.ok ? undefined : text;
      if (response.ok) throw new ApiError('The server sent a response that could not be read', response.status);
    }
    if (response.status === 403 && !ignoreForbidden) forbiddenHandler();
    if (!response.ok) throw errorFromResponse(response.status, response.statusText, data);
    return data as T;
  } finally {
    done();
  }
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    request<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    request<T>(path, { ...options, method: 'POST', body }),
  put: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    request<T>(path, { ...options, method: 'PUT', body }),
  delete: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    request<T>(path, { ...options, method: 'DELETE' }),
};
