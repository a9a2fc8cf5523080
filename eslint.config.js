// Type-aware lint, kept to rules that catch what the compiler does not: a promise or other thenable nobody
// awaits (a write that never runs), an async function handed to a caller that ignores its result, type-only
// imports written as value imports, and dead bindings.
import tseslint from 'typescript-eslint';

// knex's clause-adding members, by the type or method name its declarations give them.
const KNEX_CLAUSES = [
  'Select', 'Table', 'Distinct', 'Join', 'JoinRaw', 'Where', 'WhereRaw', 'WhereExists', 'WhereIn', 'WhereNull',
  'WhereBetween', 'WhereWrapped', 'GroupBy', 'OrderBy', 'Having', 'HavingRange', 'Union', 'Intersect',
  'offset', 'limit', 'forUpdate', 'forShare', 'forNoKeyUpdate', 'forKeyShare', 'skipLocked', 'noWait', 'returning',
];

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**'],
  },
  {
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // One program over src, tests, bench, migrations and bin (the .js files too, for their inferred types).
        project: './tsconfig.eslint.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    plugins: {
      '@typescript-eslint': tseslint.plugin,
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // Any thenable counts, so a knex builder or deferred statement left un-run is caught like a promise.
          // Adding a clause to a builder as a statement (`if (x) query.where(...)`) composes a query; it is not a
          // dropped write, so knex's clause methods are exempt.
          checkThenables: true,
          allowForKnownSafeCalls: [{ from: 'package', package: 'knex', name: KNEX_CLAUSES }],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      'prefer-const': 'error',
    },
  },
  {
    // One transaction API: `transaction()` from src/core/database, which joins a caller's transaction, yields the
    // event loop after a SQLite commit and carries the speed-ups' options. Only the database module calls knex's.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/core/database/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='transaction']",
          message: 'Open transactions with transaction() from src/core/database (its entry point), not knex directly.',
        },
      ],
    },
  },
);
