// The composition root, in one pass: the dependencies first (buildEngineDeps), then each
// handle from them (src/engine/handles/), then the facade that holds them. No handle sees
// the facade, and nothing is added to it once it is returned.

import { appliedVersion } from '../db/migrate.js';
import { tracing } from '../observability/tracing/tracing.js';
import type { AnyCodeOperation } from '../operations/defineOperation.js';
import { type BuiltDeps, buildEngineDeps } from './buildEngineDeps.js';
import { createAttemptsHandle } from './handles/attemptsHandle.js';
import { createBudgetsHandle } from './handles/budgetsHandle.js';
import { createInboxHandle } from './handles/inboxHandle.js';
import { createJobsHandle } from './handles/jobsHandle.js';
import { createLedgerHandle } from './handles/ledgerHandle.js';
import { createOutboxHandle } from './handles/outboxHandle.js';
import { createProvidersHandle } from './handles/providersHandle.js';
import { createRolesHandle } from './handles/rolesHandle.js';
import type { Onejob, OnejobOptions, TypedOnejob } from './Onejob.js';

/** The facade over built dependencies: the handles, and close() ending what the engine owns. */
function assemble(deps: BuiltDeps): Onejob {
  const onClose = deps.closers.add;
  const attempts = createAttemptsHandle({ ...deps, onClose });
  const roles = createRolesHandle({ ...deps, attempts });
  return {
    pool: deps.pool,
    connectionString: deps.connectionString,
    config: deps.config,
    operations: deps.operations,
    logger: deps.logger,
    metrics: deps.metrics,
    jobs: createJobsHandle(deps),
    providers: createProvidersHandle(deps),
    attempts,
    outbox: createOutboxHandle(deps),
    inbox: createInboxHandle({ ...deps, batching: deps.batching('deliveries') }),
    ledger: createLedgerHandle(deps),
    budgets: createBudgetsHandle(deps),
    wakeups: deps.wakeups,
    schemaVersion: () => appliedVersion(deps.pool),
    start: roles.start,
    stop: roles.stop,
    onClose,
    async close() {
      await roles.stop();
      await deps.closers.runAll();
      await deps.wakeups.close();
      await tracing().flush();
      if (deps.ownsPool) await deps.pool.end();
    },
  };
}

/**
 * The engine behind `onejob serve`, usable as a library in your own service.
 *
 * @example
 * ```ts
 * const onejob = createOnejob({ pool, config, operations: [charge] });
 * await onejob.start();
 * const { job } = await onejob.jobs.create({ ownerId: 'cus_1', idempotencyKey: 'order:42', operation: 'charge', input: { amount: 1999 } });
 * await onejob.close();
 * ```
 */
export function createOnejob<const Ops extends readonly AnyCodeOperation[] = []>(
  options: OnejobOptions & { operations?: Ops },
): TypedOnejob<Ops[number]> {
  return assemble(buildEngineDeps(options)) as TypedOnejob<Ops[number]>;
}
