import type pg from 'pg';
import type { Logger } from 'pino';
import { type AttemptsHandle, createAttemptsHandle } from './attempts/attemptsHandle.js';
import { compatOperations } from './compat/compatModels.js';
import type { OnejobConfig } from './config/types.js';
import { createPool, guardCheckedOutClients, type Queryable } from './db/createPool.js';
import { isTransactionPooler, poolerSettings } from './db/poolerSettings.js';
import { unnamedStatementsOnly } from './db/unnamedStatements.js';
import type { TxOption } from './engine/engineDeps.js';
import { isOnejobError, OnejobError } from './errors/OnejobError.js';
import { afterCreate, afterPublish, applyAfterWrite } from './events/afterWrite.js';
import { createNotificationHub } from './events/createNotificationHub.js';
import type { NotificationHub } from './events/notificationHub.js';
import { archiveJobs } from './jobs/archiveJobs.js';
import { type CreateJobRequest, type CreateJobResult, createJob } from './jobs/createJob.js';
import { createJobBatcher } from './jobs/createJobBatcher.js';
import { getJob } from './jobs/getJob.js';
import { refuseReservedKey } from './jobs/idempotencyKey.js';
import { type JobChangeMark, jobChangeMark } from './jobs/jobChangeMark.js';
import {
  type JobDeliveryView,
  type JobEventView,
  listJobDeliveries,
  listJobEvents,
} from './jobs/jobHistory.js';
import { endJobSpan, startJobSpan } from './jobs/jobSpan.js';
import { type JobView, SETTLED_JOB_STATES } from './jobs/jobView.js';
import { type JobPage, type ListJobsQuery, listJobs } from './jobs/listJobs.js';
import { createTransferBatcher } from './ledger/createTransferBatcher.js';
import type { AnyCodeOperation } from './library/defineOperation.js';
import { createInboxHandle, type InboxHandle } from './library/inboxHandle.js';
import { createLedgerHandle, type LedgerHandle } from './library/ledgerHandle.js';
import { createOutboxHandle, type OutboxHandle } from './library/outboxHandle.js';
import { createProvidersHandle, type ProvidersHandle } from './library/providersHandle.js';
import { registerCodeOperations } from './library/registerCodeOperations.js';
import { type RunningRoles, type StartOptions, startRoles } from './library/startRoles.js';
import type {
  InputFor,
  JobReadOptions,
  JobRequest,
  ResultFor,
  TypedCreateJobResult,
} from './library/typedJobs.js';
import { createLogger } from './observability/createLogger.js';
import { createMetrics, type Metrics } from './observability/createMetrics.js';
import { configureTracing } from './observability/tracing/configureTracing.js';
import { tracing } from './observability/tracing/tracing.js';
import { OperationRegistry } from './operations/operationRegistry.js';
import { createProviders } from './providers/createProviders.js';

/** Longest a long-poll goes without re-reading its job when no wake-up arrives. */
const WAIT_REREAD_MS = 5_000;

/**
 * Options of `createOnejob`.
 *
 * @example
 * ```ts
 * const options: OnejobOptions = { pool, config, operations: [charge], env: process.env };
 * ```
 */
export interface OnejobOptions {
  /** Your pool (shared with your own queries), or a connection string for onejob to own one. */
  pool?: pg.Pool;
  connectionString?: string;
  /** Providers, config operations, outbox, inbox, worker settings. Default: none of them. */
  config?: OnejobConfig;
  /** Operations written in TypeScript (`defineOperation`), beside the config's operations. */
  operations?: readonly AnyCodeOperation[];
  logger?: Logger;
  metrics?: Metrics;
  /** Where secrets named in the config are read (`secretEnv`, `apiKeyEnv`). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export type { TxOption };

/** The engine, as the service, the worker and the relay use it. */
export interface Onejob {
  readonly pool: pg.Pool;
  readonly connectionString: string | undefined;
  readonly config: OnejobConfig;
  readonly operations: OperationRegistry;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly jobs: {
    /**
     * Creates the job for (owner, key), or returns the job the key already names
     * (`replayed: true`). With `{ tx }` the job and its `onejob.job.created` event commit
     * or roll back with your transaction.
     */
    create(req: CreateJobRequest, options?: TxOption): Promise<CreateJobResult>;
    get(ownerId: string, id: string, options?: TxOption & JobReadOptions<string>): Promise<JobView>;
    list(ownerId: string, query?: ListJobsQuery): Promise<JobPage>;
    /** The job once it settles (succeeded, failed, cancelled or unknown), or as it is after `ms`. */
    wait(ownerId: string, id: string, ms: number, options?: JobReadOptions<string>): Promise<JobView>;
    /** The job's audit trail, oldest first (created, attempts, unknown outcomes, lost races, abandons). */
    events(ownerId: string, id: string): Promise<JobEventView[]>;
    /** The job's public events and their delivery state per publisher. */
    deliveries(ownerId: string, id: string): Promise<JobDeliveryView[]>;
    /** What watchers see change (state, version, attempts), read without input or result. */
    changeMark(ownerId: string, id: string): Promise<JobChangeMark | undefined>;
    archive(
      finishedBefore: Date,
      options?: { batchSize?: number; maxJobs?: number },
    ): Promise<{ archived: number }>;
  };
  /** The configured providers, built from config by kind, with their verification status and run. */
  readonly providers: ProvidersHandle;
  /** Start, abandon and cancel attempts; run a worker in this process. */
  readonly attempts: AttemptsHandle;
  /** Your own events through the transactional outbox, and the exactly-once consumer helper. */
  readonly outbox: OutboxHandle;
  /** Signed webhooks received from your own HTTP framework. */
  readonly inbox: InboxHandle;
  /** The append-only ledger. */
  readonly ledger: LedgerHandle;
  /**
   * Wake-ups sent after commit: relays (`outbox()`) and long-polls (`jobSettled(id)`).
   * onejob calls them after its own commits; after committing your own transaction that
   * created jobs or published events with `{ tx }`, call `outbox()` to have them
   * published now rather than at the relay's next poll.
   */
  readonly wakeups: NotificationHub;
  /** Starts the background roles in this process: the worker and the outbox relay (default both). */
  start(options?: StartOptions): Promise<RunningRoles>;
  /** Stops the roles start() started; the pool stays open (close() ends everything). */
  stop(): Promise<void>;
  /** Functions run by close(), last registered first (worker, relay and listeners register here). */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

/**
 * The engine as `createOnejob` returns it: `Ops` are the code operations it was created
 * with, and `jobs.create` / `jobs.get` / `jobs.wait` take their input and result types
 * from them. It is an `Onejob` too, so it goes wherever the engine does.
 */
export type TypedOnejob<Ops extends AnyCodeOperation = never> = Omit<Onejob, 'jobs'> & {
  readonly jobs: Omit<Onejob['jobs'], 'create' | 'get' | 'wait'> & {
    create<O extends string>(
      req: JobRequest<Ops, O>,
      options?: TxOption,
    ): Promise<TypedCreateJobResult<InputFor<Ops, O>, ResultFor<Ops, O>>>;
    get<O extends string = string>(
      ownerId: string,
      id: string,
      options?: TxOption & JobReadOptions<O>,
    ): Promise<JobView<InputFor<Ops, O>, ResultFor<Ops, O>>>;
    wait<O extends string = string>(
      ownerId: string,
      id: string,
      ms: number,
      options?: JobReadOptions<O>,
    ): Promise<JobView<InputFor<Ops, O>, ResultFor<Ops, O>>>;
  };
};

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
  const logger = options.logger ?? createLogger();
  const metrics = options.metrics ?? createMetrics();
  const ownsPool = !options.pool;
  // Loads the OpenTelemetry exporter only when an OTLP endpoint is configured (docs/operations.md).
  configureTracing().catch((error: unknown) => logger.error({ err: error }, 'tracing could not start'));
  if (!options.pool && !options.connectionString)
    throw new TypeError('createOnejob needs a pool or a connectionString');
  const config: OnejobConfig = options.config ?? { providers: {}, operations: {} };
  // Behind a transaction pooler (docs/operations.md#poolers): no named statements, LISTEN elsewhere or polling.
  const pooler = poolerSettings(config.database, options.env);
  const pool = options.pool ?? createPool({ connectionString: options.connectionString!, logger });
  // A caller's pool gets the same protection for the clients onejob checks out.
  if (options.pool) guardCheckedOutClients(options.pool, logger);
  if (isTransactionPooler(pooler)) unnamedStatementsOnly(pool);
  const connectionString =
    options.connectionString ??
    (pool as unknown as { options?: { connectionString?: string } }).options?.connectionString;
  const operations = new OperationRegistry(config);
  // The SDK drop-in's models are operations too (docs/compat.md).
  for (const operation of compatOperations(config)) operations.add(operation);
  const closers: (() => Promise<void> | void)[] = [];
  // The process's one LISTEN connection, and the wake-ups sent after commit.
  const wakeups = createNotificationHub(pool, pooler, { logger, connectionString });
  const outbox = createOutboxHandle(pool);
  // Group commit (src/db/groupCommit.ts): one `intake` config sizes every batched path.
  const batching = (path: 'jobs' | 'transfers' | 'deliveries') => ({
    maxBatchSize: config.intake?.maxBatchSize,
    maxWaitMs: config.intake?.maxBatchWaitMs,
    maxInFlight: config.intake?.maxBatchesInFlight,
    observe: ({ waitedMs, tookMs }: { waitedMs: number; tookMs: number }) => {
      metrics.intakeWaitSeconds.observe({ path }, waitedMs / 1000);
      metrics.intakeBatchSeconds.observe({ path }, tookMs / 1000);
    },
    onBatch: ({ size, fellBack, error }: { size: number; fellBack: boolean; error?: unknown }) => {
      metrics.intakeBatches.observe({ path }, size);
      if (fellBack) {
        metrics.intakeFallbacks.inc({ path });
        logger.warn({ err: error, size, path }, 'batch failed; its requests went one at a time');
      }
    },
  });
  const batcher = createJobBatcher(pool, operations, batching('jobs'));
  const transfers = createTransferBatcher(pool, batching('transfers'));

  const db = (o?: TxOption): Queryable => o?.tx ?? pool;
  // A typed read names the operation it expects; any other job is not found, like another owner's.
  const ofOperation = (job: JobView, operation: string | undefined): JobView => {
    if (operation !== undefined && job.operation !== operation)
      throw new OnejobError('job_not_found', `No job ${job.id} of operation "${operation}" for this owner.`);
    return job;
  };
  let roles: RunningRoles | undefined;

  const onejob: Onejob = {
    pool,
    connectionString,
    config,
    operations,
    logger,
    metrics,
    jobs: {
      async create(request, o) {
        refuseReservedKey(request);
        // The job row stores the creation span's traceparent, so its attempts are its children.
        const span = startJobSpan(request);
        const req = span.traceparent ? { ...request, traceparent: span.traceparent } : request;
        let result: CreateJobResult;
        try {
          // The caller's transaction decides alone; everything else joins the group commit.
          result = await (o?.tx ? createJob(o.tx, operations, req) : batcher.create(req));
        } catch (error) {
          if (isOnejobError(error, 'idempotency_key_reused')) metrics.idempotencyConflicts.inc();
          endJobSpan(span, undefined, error);
          throw error;
        }
        endJobSpan(span, result);
        if (result.replayed) metrics.idempotentReplays.inc({ operation: req.operation });
        else metrics.jobsCreated.inc({ operation: req.operation });
        applyAfterWrite({ wakeups }, afterCreate(result, o));
        return result;
      },
      get: async (ownerId, id, o) => ofOperation(await getJob(db(o), ownerId, id), o?.operation),
      list: (ownerId, query = {}) => listJobs(pool, ownerId, query),
      async wait(ownerId, id, ms, o) {
        const deadline = Date.now() + ms;
        for (;;) {
          const job = ofOperation(await getJob(pool, ownerId, id), o?.operation);
          const left = deadline - Date.now();
          if (SETTLED_JOB_STATES.includes(job.state) || left <= 0) return job;
          // Settlements wake this wait (in this process at once, from others by NOTIFY);
          // the re-read every few seconds only covers a notification lost meanwhile.
          await wakeups.waitForJob(id, Math.min(left, WAIT_REREAD_MS));
        }
      },
      archive: (finishedBefore, o) => archiveJobs(pool, finishedBefore, o),
      events: (ownerId, id) => listJobEvents(pool, ownerId, id),
      deliveries: (ownerId, id) => listJobDeliveries(pool, ownerId, id),
      changeMark: (ownerId, id) => jobChangeMark(pool, ownerId, id),
    },
    providers: createProvidersHandle(createProviders(config, options.env), () => onejob),
    attempts: createAttemptsHandle(() => onejob),
    outbox: {
      ...outbox,
      async publish(input, o) {
        const result = await outbox.publish(input, o);
        applyAfterWrite({ wakeups }, afterPublish(result, o));
        return result;
      },
    },
    inbox: createInboxHandle(() => onejob, config, options.env, batching('deliveries')),
    ledger: createLedgerHandle(pool, transfers),
    wakeups,
    async start(o) {
      if (roles) throw new Error('onejob.start(): the roles already run; stop() them first');
      // The relay reads publisher secrets from the same env as the providers.
      roles = await startRoles(onejob, { ...o, relay: { env: options.env, ...o?.relay } });
      return roles;
    },
    async stop() {
      const running = roles;
      roles = undefined;
      await running?.stop();
    },
    onClose(fn) {
      closers.push(fn);
    },
    async close() {
      await onejob.stop();
      for (const fn of closers.reverse()) await fn();
      await wakeups.close();
      await tracing().flush();
      if (ownsPool) await pool.end();
    },
  };
  registerCodeOperations(onejob, options.operations ?? []);
  return onejob as TypedOnejob<Ops[number]>;
}
