import { defineConfig } from 'vitest/config';
import { writeMigrationsModule } from './scripts/generateMigrations.mjs';

// src/generated/ is not checked in: every run writes it from migrations/*.sql first.
writeMigrationsModule();

/**
 * Tests that need no services (no PostgreSQL, NATS or RabbitMQ): pure functions, schema
 * and docs checks, the state-machine property test, adapters against in-process fake
 * servers. Their files end in `.unit.test.ts`; `npm run test:unit` runs only these,
 * without the database globalSetup. A unit test that starts needing the database fails
 * there (no template is set up): move it out of the tier by renaming it.
 */
export const UNIT_TESTS = ['test/**/*.unit.test.ts', 'src/**/*.unit.test.ts'];

const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // Fails a file that leaves pools, clients or handles open; keeps a failed test's databases.
  setupFiles: ['test/helpers/leakCheck.ts'],
};

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 4,
    // Each test file gets its own database cloned from a migrated template, so files run in parallel.
    fileParallelism: true,
    reporters: ['default'],
    projects: [
      { test: { ...shared, name: 'unit', include: UNIT_TESTS } },
      {
        test: {
          ...shared,
          name: 'integration',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: UNIT_TESTS,
          globalSetup: ['test/helpers/globalSetup.ts'],
        },
      },
    ],
  },
});
