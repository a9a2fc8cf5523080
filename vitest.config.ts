import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    // CLI tests run dozens of Node processes each; on a loaded two-core machine some took just over 30 s. A limit,
    // never a measurement: no test asserts on time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Test files each start their own daemons and databases; two cores are shared by all of them.
    maxWorkers: 2,
    pool: 'forks',
  },
});
