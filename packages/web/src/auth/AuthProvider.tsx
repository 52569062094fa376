import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { type AuthUser, isSecondStep, type LoginAnswer } from '@adplane/shared';
import { api, ApiError, setForbiddenHandler } from '../api/client.js';
import { clearLists } from '../api/lists.js';
import { notifyLoadError } from '../errors/notify.js';
import { effectiveMode, readStoredMode } from '../prefs/mode.js';
import { uiTabsChanges, writeUiTabs } from '../prefs/uiTabs.js';
import { AuthContext, type AuthContextValue } from './authContext.js';
import { LOGIN_PATH } from './guards.js';

/**
 * Copy the server's UI settings into local storage; a missing or failing endpoint changes nothing,
 * and neither does an answer that arrives after the user changed the setting in this tab (the
 * Settings modal saves the newer choice itself).
 */
export async function syncUiSettings(): Promise<void> {
  const before = uiTabsChanges();
  try {
    const settings = await api.get<{ tabs?: boolean } | null>('/api/ui/settings', {
      silent: true,
      ignoreForbidden: true,
    });
    if (settings && typeof settings.tabs === 'boolean' && uiTabsChanges() === before) writeUiTabs(settings.tabs);
  } catch {
    // The local copy stays in charge.
  }
}

/**
 * Holds the signed-in user: restored from the server session on the first render,
 * set by login (lists are cleared before the call), cleared by logout (lists first; the user becomes
 * null even if the call fails) and by any HTTP 403, which also leads to /login.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const navigate = useNavigate();
  const [user, setUser] = useState<AuthUser | null>(null);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let active = true;
    api
      .get<{ user: AuthUser | null }>('/api/auth/session', { ignoreForbidden: true })
      .then(({ user: restored }) => {
        if (!active) return;
        setUser(restored);
        if (restored) void syncUiSettings();
      })
      .catch((error: unknown) => {
        if (!active) return;
        setUser(null);
        if (!(error instanceof ApiError && (error.status === 403 || error.status === 401))) notifyLoadError(error);
      })
      .finally(() => {
        if (active) setReady(true);
      });
    return () => {
      active = false;
    };
  }, []);

  useEffect(
    () =>
      setForbiddenHandler(() => {
        clearLists();
        setUser(null);
        const { pathname, search } = window.location;
        if (pathname !== LOGIN_PATH) void navigate(LOGIN_PATH, { replace: true, state: { from: pathname + search } });
      }),
    [navigate],
  );

  const completeSignIn = useCallback((signedIn: AuthUser) => {
    setUser(signedIn);
    setReady(true);
    void syncUiSettings();
  }, []);

  const login = useCallback(
    async (username: string, password: string) => {
      clearLists();
      const answer = await api.post<LoginAnswer>('/api/auth/login', { username, password });
      // With two-factor sign-in the password earns only a pending token: the login page takes the next step.
      if (!isSecondStep(answer)) completeSignIn(answer);
      return answer;
    },
    [completeSignIn],
  );

  const logout = useCallback(async () => {
    clearLists();
    try {
      await api.get('/api/auth/logout', { ignoreForbidden: true });
    } catch (error) {
      console.error('Sign-out call failed:', error);
    } finally {
      setUser(null);
    }
  }, []);

  const updateUser = useCallback((patch: Partial<AuthUser>) => {
    setUser((current) => (current ? { ...current, ...patch } : current));
  }, []);

  const value = useMemo<AuthContextValue>(
    () => ({
      user,
      ready,
      edition: user?.config?.database ?? 'default',
      mode: effectiveMode(user, readStoredMode()),
      login,
      completeSignIn,
      logout,
      updateUser,
    }),
    [user, ready, login, completeSignIn, logout, updateUser],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
