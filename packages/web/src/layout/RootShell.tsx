import { Outlet } from 'react-router';
import { AuthProvider } from '../auth/AuthProvider.js';
import { LoadingBar } from '../components/LoadingBar.js';
import { ErrorToasts } from '../errors/ErrorToasts.js';

/** Everything every route shares: the session, error toasts and the loading bar. */
export function RootShell() {
  return (
    <AuthProvider>
      <ErrorToasts />
      <LoadingBar />
      <Outlet />
    </AuthProvider>
  );
}
