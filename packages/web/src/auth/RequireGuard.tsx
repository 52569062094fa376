import { type ReactNode } from 'react';
import { type Feature } from '@adplane/shared';
import { Navigate, useLocation } from 'react-router';
import { PageSpinner } from '../components/PageSpinner.js';
import { ClosedPage } from '../pages/notFound/ClosedPage.js';
import { useAuth } from './authContext.js';
import { guardRedirect, guardRefusal, type Guard } from './guards.js';

/**
 * Renders the page when the guard (and the feature's mode and edition rule) passes. A signed-out
 * visitor goes to /login, remembering where from; a signed-in user the page is closed to sees why
 * (its account type, the mode or the edition) and a way back, and stays signed in.
 */
export function RequireGuard({ guard, feature, children }: { guard: Guard; feature?: Feature; children: ReactNode }) {
  const { user, ready } = useAuth();
  const location = useLocation();
  if (!ready && guard !== 'public') return <PageSpinner />;
  const to = guardRedirect(guard, user);
  if (to) return <Navigate to={to} replace state={{ from: location.pathname + location.search }} />;
  const refusal = user && guard !== 'public' ? guardRefusal(guard, user, feature) : null;
  if (refusal) return <ClosedPage reason={refusal} />;
  return <>{children}</>;
}
