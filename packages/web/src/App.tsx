import { useMemo, useState } from 'react';
import { App as AntApp, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import { RouterProvider } from 'react-router';
import { useReducedMotion } from './prefs/reducedMotion.js';
import { createAppRouter } from './routes.js';
import { themeFor } from './theme.js';

/**
 * The console: theme, antd's App context (toasts, confirms) and the router. antd's motion is off for
 * a person who asked their system for reduced motion.
 */
export function App() {
  const [router] = useState(createAppRouter);
  const reduced = useReducedMotion();
  const themed = useMemo(() => themeFor(reduced), [reduced]);
  return (
    <ConfigProvider theme={themed} locale={enUS}>
      <AntApp>
        <RouterProvider router={router} />
      </AntApp>
    </ConfigProvider>
  );
}
