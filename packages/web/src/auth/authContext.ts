import { createContext, useContext } from 'react';
import { type AuthUser, type Edition, type LoginAnswer, type Mode } from '@adplane/shared';

export interface AuthContextValue {
  /** The signed-in user, or null when signed out. */
  user: AuthUser | null;
  /** False until the session probe of the first render has answered. */
  ready: boolean;
  /** The database setting ("edition") from the user's config; 'default' when signed out. */
  edition: Edition;
  /** SSP or DSP, after applying who may use DSP. */
  mode: Mode;
  /** The password step: signed in, or the second step of two-factor sign-in still to take (no user yet). */
  login: (username: string, password: string) => Promise<LoginAnswer>;
  /** Signed in by a sign-in's last step (two-factor): the user the server answered. */
  completeSignIn: (user: AuthUser) => void;
  logout: () => Promise<void>;
  /** Merge changed fields into the stored user (the profile modal updates timezone and tagParams). */
  updateUser: (patch: Partial<AuthUser>) => void;
}

export const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}

/** The signed-in user, for components that only render for one. */
export function useUser(): AuthUser {
  const { user } = useAuth();
  if (!user) throw new Error('useUser needs a signed-in user');
  return user;
}
