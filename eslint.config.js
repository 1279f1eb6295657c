import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const BOUNDARY_PATTERNS = [
  {
    regex: '^@bda/[^/]+/(src|test)(/|$)',
    message: "Import the package's entry ('@bda/x', or '@bda/x/testing' for test helpers), not its files.",
  },
  {
    regex: '^(\\.\\./)+(services|libs)/',
    message: "Reach another package through its name ('@bda/x') and its exports map, not by relative path.",
  },
];

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
    // Package boundaries: another package is reached through its name and its `exports` map (`@bda/x`, or
    // `@bda/x/testing` for test helpers), never through its files.
    files: ['**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: BOUNDARY_PATTERNS }] },
  },
  {
    // A package never reaches into the root test/ folder (the end-to-end suite's own support).
    files: ['libs/**/*.ts', 'services/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...BOUNDARY_PATTERNS,
            { regex: '^(\\.\\./){3,}test/', message: "A package's tests use their own support, not the root test/ folder." },
          ],
        },
      ],
    },
  },
  {
    // Typed rules: a promise nobody awaits or handles is a lost error (or an unfinished write at shutdown).
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    // jest's global setup/teardown and test environment, jest's config and the flat config itself must default-export.
    files: [
      'test/support/global-setup.ts',
      'test/support/global-teardown.ts',
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
