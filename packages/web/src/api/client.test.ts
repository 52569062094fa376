import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encryptJsonBody, JSON_ENCRYPT_HEADER } from '@adplane/shared';
import { jsonResponse } from '../test/fixtures.js';
import { pendingLoads } from '../components/loadingStore.js';
import { api, ApiError, errorFromResponse, NETWORK_ERROR_MESSAGE, parseBody, setForbiddenHandler } from './client.js';

const fetchMock = vi.fn<typeof fetch>();
let restoreHandler: () => void;
const onForbidden = vi.fn();

beforeEach(() => {
  vi.stubGlobal('fetch', fetchMock);
  restoreHandler = setForbiddenHandler(onForbidden);
});

afterEach(() => {
  restoreHandler();
  vi.unstubAllGlobals();
  fetchMock.mockReset();
  onForbidden.mockReset();
});

describe('api client', () => {
  it('sends same-origin JSON with credentials', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ ok: true }));
    await expect(api.put('/api/ui/settings', { tabs: true })).resolves.toEqual({ ok: true });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('/api/ui/settings');
    expect(init).toMatchObject({ method: 'PUT', credentials: 'include', body: '{"tabs":true}' });
    expect((init?.headers as Record<string, string>)['Content-Type']).toBe('application/json');
  });

  it('decrypts a body sent with json-encrypt: 1', async () => {
    const payload = { id: 3, name: 'Acme', list: [1, 2, 3], text: 'héllo' };
    fetchMock.mockResolvedValue(
      new Response(encryptJsonBody(JSON.stringify(payload)), { headers: { [JSON_ENCRYPT_HEADER]: '1' } }),
    );
    await expect(api.get('/api/demand/info')).resolves.toEqual(payload);
  });

  it('reads plain bodies as JSON and an empty body as null', () => {
    expect(parseBody('{"a":1}', new Headers())).toEqual({ a: 1 });
    expect(parseBody('', new Headers())).toBeNull();
    expect(parseBody(encryptJsonBody('[1]'), new Headers({ 'json-encrypt': '1' }))).toEqual([1]);
  });

  it('runs the 403 handler on any 403 and throws', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ message: 'Signed out' }, 403));
    await expect(api.get('/api/demand/tags/list')).rejects.toMatchObject({ status: 403, message: 'Signed out' });
    expect(onForbidden).toHaveBeenCalledTimes(1);
  });

  it('skips the 403 handler when asked (the session probe)', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ message: 'no session' }, 403));
    await expect(api.get('/api/auth/user', { ignoreForbidden: true })).rejects.toBeInstanceOf(ApiError);
    expect(onForbidden).not.toHaveBeenCalled();
  });

  it('does not run the 403 handler for other errors', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ message: 'Bad credentials' }, 401));
    await expect(api.post('/api/auth/login', {})).rejects.toMatchObject({ status: 401, message: 'Bad credentials' });
    expect(onForbidden).not.toHaveBeenCalled();
  });

  it('carries field errors of a 400', async () => {
    fetchMock.mockResolvedValue(
      jsonResponse(
        { message: 'Invalid profile', field: 'name', errors: [{ field: 'name', message: 'is required' }] },
        400,
      ),
    );
    const error = await api.put('/api/demand/info', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      message: 'Invalid profile',
      field: 'name',
      errors: [{ field: 'name', message: 'is required' }],
    });
  });

  it('falls back to the status text, then to Error', () => {
    expect(errorFromResponse(500, 'Internal Server Error', null).message).toBe('Internal Server Error');
    expect(errorFromResponse(500, '', {}).message).toBe('Error');
    expect(errorFromResponse(500, '', { message: '' }).message).toBe('Error');
    expect(errorFromResponse(502, '', 'Bad gateway from proxy').message).toBe('Bad gateway from proxy');
    expect(errorFromResponse(404, 'Not Found', '   ').message).toBe('Not Found');
  });

  it('reads a non-JSON error body as its text', async () => {
    fetchMock.mockResolvedValue(new Response('upstream timed out', { status: 504, statusText: 'Gateway Timeout' }));
    await expect(api.get('/api/x')).rejects.toMatchObject({ status: 504, message: 'upstream timed out' });
  });

  it('turns a network failure into an ApiError with status 0', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    await expect(api.get('/api/x')).rejects.toMatchObject({ status: 0, message: NETWORK_ERROR_MESSAGE });
  });

  it('counts the call on the loading bar while it runs, unless silent', async () => {
    let resolve!: (r: Response) => void;
    fetchMock.mockReturnValue(new Promise((r) => (resolve = r)));
    const call = api.get('/api/x');
    expect(pendingLoads()).toBe(1);
    resolve(jsonResponse([]));
    await call;
    expect(pendingLoads()).toBe(0);
    fetchMock.mockImplementation(async () => jsonResponse([]));
    const silent = api.get('/api/x', { silent: true });
    expect(pendingLoads()).toBe(0);
    await silent;
  });
});
