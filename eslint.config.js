import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    // The server reads the time from the clock handed down from buildApp (packages/server/src/clock.ts),
    // so a test can set it; elapsed time (a socket's timeout) is performance.now(), never the wall clock.
    files: ['packages/server/src/**/*.ts'],
    ignores: ['packages/server/src/**/*.test.ts', 'packages/server/src/clock.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='Date'][property.name='now']", message: 'Read the time from the injected Clock (src/clock.ts), not Date.now.' },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Read the time from the injected Clock (src/clock.ts): new Date(clock.now()).' },
      ],
    },
  },
  {
    files: ['packages/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
);
