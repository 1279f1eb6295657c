import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.tmp/**', '.data/**', '.cache/**', '**/dist/**', '.scratch*/**', '**/.scratch*'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    // jest's global setup/teardown and test environment, jest's config and the flat config itself must default-export.
    files: [
      'libs/test-support/src/global-setup.ts',
      'libs/test-support/src/global-teardown.ts',
      'libs/test-support/src/jest-environment.ts',
      'eslint.config.js',
      'jest.config.js',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.mjs', 'scripts/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
