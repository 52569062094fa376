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
        {
          selector: "MemberExpression[object.name='Date'][property.name='now']",
          message: 'Read the time from the injected Clock (src/clock.ts), not Date.now.',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read the time from the injected Clock (src/clock.ts): new Date(clock.now()).',
        },
      ],
    },
  },
  {
    // Promises that nobody awaits or catches: a rejection there is an unhandled rejection, which ends
    // the server process (Node's default) or is lost in the console. Type-aware, so only on the
    // packages' src (tests, e2e and bench await their promises through the test runner, and their
    // programs would add most of the lint's time). A promise left on purpose is `void`ed only where
    // its rejection is already handled (a .catch that logs, or a function that catches its own); a
    // React handler calls such a function as `() => void save()`.
    files: ['packages/{server,web,shared}/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['packages/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
);
