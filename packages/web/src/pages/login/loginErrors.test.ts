import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client.js';
import { afterLoginPath, BAD_CREDENTIALS, loginErrorMessage } from './loginErrors.js';

describe('sign-in errors', () => {
  it("says 'Bad credentials' on 401 and the server's message otherwise", () => {
    expect(loginErrorMessage(new ApiError('whatever the server said', 401))).toBe(BAD_CREDENTIALS);
    expect(loginErrorMessage(new ApiError('Too many failed sign-ins; try again in 15 minutes', 429))).toBe(
      'Too many failed sign-ins; try again in 15 minutes',
    );
    expect(loginErrorMessage(new ApiError('', 500))).toBe('Error');
  });

  it('goes back to the page the visitor came from, if it is a console page', () => {
    expect(afterLoginPath('/channels?page=2')).toBe('/channels?page=2');
    expect(afterLoginPath(undefined)).toBe('/');
    expect(afterLoginPath('/login')).toBe('/');
    expect(afterLoginPath('//evil.example/')).toBe('/');
    expect(afterLoginPath('https://evil.example/')).toBe('/');
    expect(afterLoginPath('/api/switch?type=admin&id=1')).toBe('/');
  });
});
