import { useState } from 'react';
import { App as AntApp, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import { RouterProvider } from 'react-router';
import { createAppRouter } from './routes.js';
import { theme } from './theme.js';

/** The console: theme, antd's App context (toasts, confirms) and the router. */
export function App() {
  const [router] = useState(createAppRouter);
  return (
    <ConfigProvider theme={theme} locale={enUS}>
      <AntApp>
        <RouterProvider router={router} />
      </AntApp>
    </ConfigProvider>
  );
}
