import { type ReactNode } from 'react';
import { type Feature } from '@adplane/shared';
import { Navigate, useLocation } from 'react-router';
import { PageSpinner } from '../components/PageSpinner.js';
import { useAuth } from './authContext.js';
import { guardRedirect, type Guard } from './guards.js';

/** Renders the page when the guard (and the feature's mode and edition rule) passes; otherwise goes to /login, remembering where from. */
export function RequireGuard({ guard, feature, children }: { guard: Guard; feature?: Feature; children: ReactNode }) {
  const { user, ready } = useAuth();
  const location = useLocation();
  if (!ready && guard !== 'public') return <PageSpinner />;
  const to = guardRedirect(guard, user, feature);
  if (to) return <Navigate to={to} replace state={{ from: location.pathname + location.search }} />;
  return <>{children}</>;
}
