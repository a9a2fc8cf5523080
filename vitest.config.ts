import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files each start their own daemons and databases; two cores are shared by all of them.
    maxWorkers: 2,
    pool: 'forks',
  },
});
