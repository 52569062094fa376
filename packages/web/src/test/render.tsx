import { type ReactNode } from 'react';
import { render } from '@testing-library/react';
import { App as AntApp, ConfigProvider } from 'antd';
import { type AuthUser } from '@adplane/shared';
import { AuthContext, type AuthContextValue } from '../auth/authContext.js';
import { ErrorToasts } from '../errors/ErrorToasts.js';
import { theme } from '../theme.js';

/** Render inside the antd App context and a fixed auth context (no router). */
export function renderWithAuth(ui: ReactNode, user: AuthUser | null, overrides: Partial<AuthContextValue> = {}) {
  const value: AuthContextValue = {
    user,
    ready: true,
    edition: user?.config.database ?? 'default',
    mode: 'ssp',
    login: async () => {
      throw new Error('not in this test');
    },
    completeSignIn: () => undefined,
    logout: async () => undefined,
    updateUser: () => undefined,
    ...overrides,
  };
  return render(
    <ConfigProvider theme={theme}>
      <AntApp>
        <AuthContext.Provider value={value}>
          <ErrorToasts />
          {ui}
        </AuthContext.Provider>
      </AntApp>
    </ConfigProvider>,
  );
}
