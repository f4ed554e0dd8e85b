import { defineConfig } from 'vitest/config';
import { writeMigrationsModule } from './scripts/generateMigrations.mjs';

// src/generated/ is not checked in: every run writes it from migrations/*.sql first.
writeMigrationsModule();

/**
 * Tests that need no services (no PostgreSQL, NATS or RabbitMQ): pure functions, schema
 * and docs checks, the state-machine property test, adapters against in-process fake
 * servers. `npm run test:unit` runs only these, without the database globalSetup. A test
 * listed here that starts needing the database fails there (no template is set up).
 */
export const UNIT_TESTS = [
  'test/architecture/importGraph.test.ts',
  'test/attempts/stateMachine.property.test.ts',
  'test/bench/batchTimings.test.ts',
  'test/chaos/checker.test.ts',
  'test/chaos/faultSchedule.test.ts',
  'test/cli/configCommand.test.ts',
  'test/cli/parseTime.test.ts',
  'test/client/retryPolicy.test.ts',
  'test/compat/normalizeRequests.test.ts',
  'test/config/configurationDoc.test.ts',
  'test/config/loadConfig.test.ts',
  'test/db/poolerSettings.test.ts',
  'test/db/groupCommit.test.ts',
  'test/db/databaseOutage.test.ts',
  'test/db/hostList.test.ts',
  'test/db/migrationsModule.test.ts',
  'test/db/oncePerOutage.test.ts',
  'test/errors/errorsDoc.test.ts',
  'test/http/noSqlInHttpLayer.test.ts',
  'test/inbox/inboxSources.test.ts',
  'test/library/publicTypes.test.ts',
  'test/observability/tracingNotLoaded.test.ts',
  'test/operations/inputChecks.test.ts',
  'test/outbox/outboxConfig.test.ts',
  'test/providers/adapters.test.ts',
  'test/providers/inferenceContract.test.ts',
  'test/providers/providerConfig.test.ts',
  'test/time/periodicTask.test.ts',
  'test/vocabulary/vocabulary.test.ts',
];

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
