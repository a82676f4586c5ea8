// ESLint's recommended rules over every JavaScript file of the repository, with the globals of the
// place each runs in: the page and its workers in a browser, the package in either, the rest in Node.
// `npm test` runs it (scripts/lint.sh); `npx eslint .` alone does the same check.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['build/', 'dist/', 'third_party/', 'node_modules/', 'test-output/'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      // An unused catch binding, a leading-underscore argument or a rest sibling ({ ok, ...r }) is deliberate.
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['web/**/*.js', 'wasm/**/*.js', 'tests/browser/pages/**/*.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
  },
  {
    // page.evaluate() callbacks run in the page: the browser tests see both sets of globals.
    files: ['tests/browser/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // The tests strip and match terminal colours (ESC [ ... m) on purpose.
    files: ['tests/**/*.mjs', 'bin/**/*.js'],
    rules: { 'no-control-regex': 'off' },
  },
];
