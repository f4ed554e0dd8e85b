// Engines created the way a library user creates them (createOnejob with code
// operations), on a fresh cloned database.
import type { OnejobConfig } from '../../src/config/types.js';
import { createOnejob, type TypedOnejob } from '../../src/createOnejob.js';
import { createLogger } from '../../src/observability/createLogger.js';
import type { AnyCodeOperation } from '../../src/operations/defineOperation.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

export const FAST_WORKER: OnejobConfig['worker'] = { leaseMs: 1_000, pollMs: 20, graceMs: 30_000 };

export function libraryConfig(worker: OnejobConfig['worker'] = FAST_WORKER): OnejobConfig {
  return { providers: {}, operations: {}, worker, outbox: { publishers: [{ kind: 'log' }] } };
}

export async function startLibrary<const Ops extends readonly AnyCodeOperation[]>(
  operations: Ops,
  options: { config?: OnejobConfig; db?: TestDatabase } = {},
): Promise<{ onejob: TypedOnejob<Ops[number]>; db: TestDatabase; close(): Promise<void> }> {
  const db = options.db ?? (await createTestDatabase());
  const onejob = createOnejob({
    connectionString: db.url,
    config: options.config ?? libraryConfig(),
    operations,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  });
  return {
    onejob,
    db,
    async close() {
      await onejob.close();
      if (!options.db) await db.drop();
    },
  };
}

export { until } from '../helpers/until.js';
