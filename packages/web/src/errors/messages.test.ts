import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client.js';
import { dispatchShowError, errorText, SHOW_ERROR_EVENT } from './messages.js';
import { notifyLoadError, notifySaveError, registerNotifier } from './notify.js';

afterEach(() => registerNotifier(null));

describe('error toasts', () => {
  it('uses the error message, else Error, else Unknown Error', () => {
    expect(errorText(new ApiError('Name is taken', 400))).toBe('Name is taken');
    expect(errorText(new Error(''))).toBe('Error');
    expect(errorText({})).toBe('Error');
    expect(errorText({ message: 'from a plain object' })).toBe('from a plain object');
    expect(errorText('plain text')).toBe('plain text');
    expect(errorText('')).toBe('Unknown Error');
    expect(errorText(undefined)).toBe('Unknown Error');
    expect(errorText(null)).toBe('Unknown Error');
    expect(errorText(42)).toBe('Unknown Error');
  });

  it('titles load and save failures', () => {
    const error = vi.fn();
    registerNotifier({ error } as unknown as Parameters<typeof registerNotifier>[0]);
    notifyLoadError(new Error('Timeout'));
    notifySaveError(undefined);
    expect(error.mock.calls.map(([args]) => [args.title, args.description])).toEqual([
      ['Error on load data', 'Timeout'],
      ['Error on save', 'Unknown Error'],
    ]);
  });

  it('dispatches the global showError event', () => {
    const listener = vi.fn();
    window.addEventListener(SHOW_ERROR_EVENT, listener);
    dispatchShowError({ title: 'Export failed', message: 'Too many rows' });
    window.removeEventListener(SHOW_ERROR_EVENT, listener);
    expect((listener.mock.calls[0][0] as CustomEvent).detail).toEqual({
      title: 'Export failed',
      message: 'Too many rows',
    });
  });
});
