// The first pass of the composition root: everything the handles are built from — the
// pool, the process's LISTEN connection, the operations and providers (code operations
// included), the group-commit batchers and the list of what close() runs. Nothing here
// knows the engine object; the handles (src/engine/handles/) receive these as they are.
import type pg from 'pg';
import type { Logger } from 'pino';
import { compatOperations } from '../compat/compatModels.js';
import { compatTextRelay, type RelayText } from '../compat/streamRelay.js';
import type { OnejobConfig } from '../config/types.js';
import { createPool, guardCheckedOutClients } from '../db/createPool.js';
import { createKeptPlanPool } from '../db/keptPlanPool.js';
import { isTransactionPooler, poolerSettings } from '../db/poolerSettings.js';
import { unnamedStatementsOnly } from '../db/unnamedStatements.js';
import { createNotificationHub } from '../events/createNotificationHub.js';
import type { NotificationHub } from '../events/notificationHub.js';
import { createJobBatcher, type JobBatcher } from '../jobs/createJobBatcher.js';
import { createJobReader, type JobReader } from '../jobs/createJobReader.js';
import { createTransferBatcher, type TransferBatcher } from '../ledger/createTransferBatcher.js';
import { createLogger } from '../observability/createLogger.js';
import { createMetrics } from '../observability/createMetrics.js';
import { configureTracing } from '../observability/tracing/configureTracing.js';
import { codeOperationParts } from '../operations/code/codeOperations.js';
import { operationInputChecks } from '../operations/operationInputChecks.js';
import { OperationRegistry } from '../operations/operationRegistry.js';
import { createProviders } from '../providers/createProviders.js';
import { type Batching, batchingFor } from './batchingFor.js';
import type { EngineDeps } from './engineDeps.js';
import type { OnejobOptions } from './Onejob.js';

/** Functions close() runs, last registered first. */
export interface Closers {
  add(fn: () => Promise<void> | void): void;
  runAll(): Promise<void>;
}

/** Everything the handles are built from. */
export interface BuiltDeps extends EngineDeps {
  readonly connectionString: string | undefined;
  readonly wakeups: NotificationHub;
  readonly ownsPool: boolean;
  readonly keptPlanPool: pg.Pool | undefined;
  readonly relayText: RelayText;
  readonly env: NodeJS.ProcessEnv | undefined;
  readonly batching: Batching;
  readonly jobBatcher: JobBatcher;
  readonly jobReader: JobReader;
  readonly transferBatcher: TransferBatcher;
  readonly closers: Closers;
}

function createClosers(): Closers {
  const fns: (() => Promise<void> | void)[] = [];
  return {
    add: (fn) => void fns.push(fn),
    async runAll() {
      for (const fn of fns.splice(0).reverse()) await fn();
    },
  };
}

/** The pool, protected the same way whether onejob owns it or the caller does. */
function enginePool(inputs: OnejobOptions, config: OnejobConfig, logger: Logger) {
  if (!inputs.pool && !inputs.connectionString)
    throw new TypeError('createOnejob needs a pool or a connectionString');
  // Behind a transaction pooler (docs/operations.md#poolers): no named statements, LISTEN elsewhere or polling.
  const pooler = poolerSettings(config.database, inputs.env);
  const pool = inputs.pool ?? createPool({ connectionString: inputs.connectionString!, logger });
  // A caller's pool gets the same protection for the clients onejob checks out.
  if (inputs.pool) guardCheckedOutClients(inputs.pool, logger);
  if (isTransactionPooler(pooler)) unnamedStatementsOnly(pool);
  const connectionString =
    inputs.connectionString ??
    (pool as unknown as { options?: { connectionString?: string } }).options?.connectionString;
  // The worker's claim and completion batch run on connections that keep their plans
  // (src/db/keptPlanPool.ts). Only where onejob opens its own connections and no pooler is
  // declared: a pooler refuses the startup settings (an undeclared one is found by the
  // worker's first batch, worker/batchDb.ts), and a caller's pool is the caller's budget.
  // No connection opens until a worker sends a statement; at most one claim and the
  // completion batcher's statements in flight use it at once.
  const keptPlanPool =
    !inputs.pool && (pooler.mode === 'none' || pooler.mode === undefined)
      ? createKeptPlanPool({
          connectionString: inputs.connectionString!,
          max: KEPT_PLAN_CONNECTIONS,
          applicationName: 'onejob-worker',
          // A lost database is reported by the shared pool and the worker's outage lines; the
          // same failure on these few connections would only repeat them.
          logger: logger.child({ pool: 'kept-plan' }, { level: 'error' }),
        })
      : undefined;
  return { pool, pooler, connectionString, keptPlanPool };
}

/** Connections of the kept-plan pool: the claim loop's one, and the completion batcher's four in flight. */
const KEPT_PLAN_CONNECTIONS = 5;

export function buildEngineDeps(inputs: OnejobOptions): BuiltDeps {
  const logger = inputs.logger ?? createLogger();
  const metrics = inputs.metrics ?? createMetrics();
  // Loads the OpenTelemetry exporter only when an OTLP endpoint is configured (docs/operations.md).
  configureTracing().catch((error: unknown) => logger.error({ err: error }, 'tracing could not start'));
  const config: OnejobConfig = inputs.config ?? { providers: {}, operations: {} };
  const { pool, pooler, connectionString, keptPlanPool } = enginePool(inputs, config, logger);
  const closers = createClosers();
  if (keptPlanPool) closers.add(() => keptPlanPool.end());
  const code = codeOperationParts({ pool, config, logger }, inputs.operations ?? []);
  closers.add(() => code.close());
  // The SDK drop-in's models are operations too (docs/compat.md); every input check by
  // kind comes from one explicit list.
  const operations = new OperationRegistry({
    config,
    inputChecks: operationInputChecks,
    more: [...compatOperations(config), ...code.operations],
  });
  const providers = createProviders(config, inputs.env, code.providers);
  // The process's one LISTEN connection, and the wake-ups sent after commit.
  const wakeups = createNotificationHub(pool, pooler, { logger, connectionString });
  const batching = batchingFor(config, metrics, logger);
  return {
    pool,
    connectionString,
    config,
    operations,
    providers,
    wakeups,
    metrics,
    logger,
    ownsPool: !inputs.pool,
    keptPlanPool,
    // The SDK drop-in's live streams: a compat attempt's text reaches them as it comes.
    relayText: compatTextRelay(pool),
    env: inputs.env,
    batching,
    jobBatcher: createJobBatcher(pool, operations, batching('jobs')),
    jobReader: createJobReader(pool, batching('reads')),
    transferBatcher: createTransferBatcher(pool, batching('transfers')),
    closers,
  };
}
