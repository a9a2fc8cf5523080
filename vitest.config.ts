import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    // CLI tests run dozens of Node processes each. On the slowest two-core machine seen (calibrate.mjs about 6,000
    // against 80,000-100,000 elsewhere) some took 45-90 s on SQLite and ran past 60 s on PostgreSQL. A limit, never a
    // measurement: no test asserts on time.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Test files each start their own daemons and databases; two cores are shared by all of them.
    maxWorkers: 2,
    pool: 'forks',
  },
});
