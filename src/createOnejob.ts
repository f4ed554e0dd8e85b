import type pg from 'pg';
import type { Logger } from 'pino';
import { type AttemptsHandle, createAttemptsHandle } from './attempts/attemptsHandle.js';
import type { OnejobConfig } from './config/types.js';
import { createPool, type Queryable } from './db/createPool.js';
import { isOnejobError } from './errors/OnejobError.js';
import { archiveJobs } from './jobs/archiveJobs.js';
import { type CreateJobRequest, type CreateJobResult, createJob } from './jobs/createJob.js';
import { getJob } from './jobs/getJob.js';
import { JobSettledListener } from './jobs/jobSettledListener.js';
import { type JobView, SETTLED_JOB_STATES } from './jobs/jobView.js';
import { type JobPage, type ListJobsQuery, listJobs } from './jobs/listJobs.js';
import { createLogger } from './observability/createLogger.js';
import { createMetrics, type Metrics } from './observability/createMetrics.js';
import { OperationRegistry } from './operations/operationRegistry.js';
import { type ProviderRegistry, createProviders } from './providers/createProviders.js';

export interface OnejobOptions {
  /** Your pool (shared with your own queries), or a connection string for onejob to own one. */
  pool?: pg.Pool;
  connectionString?: string;
  config: OnejobConfig;
  logger?: Logger;
  metrics?: Metrics;
}

/** Options for calls that may join the caller's transaction. */
export interface TxOption {
  /** A client inside your open transaction: the job commits or rolls back with your rows. */
  tx?: pg.PoolClient | pg.Client;
}

export interface Onejob {
  readonly pool: pg.Pool;
  readonly connectionString: string | undefined;
  readonly config: OnejobConfig;
  readonly operations: OperationRegistry;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly jobs: {
    create(req: CreateJobRequest, options?: TxOption): Promise<CreateJobResult>;
    get(ownerId: string, id: string, options?: TxOption): Promise<JobView>;
    list(ownerId: string, query?: ListJobsQuery): Promise<JobPage>;
    /** The job once it settles (succeeded, failed, cancelled or unknown), or as it is after `ms`. */
    wait(ownerId: string, id: string, ms: number): Promise<JobView>;
    archive(
      finishedBefore: Date,
      options?: { batchSize?: number; maxJobs?: number },
    ): Promise<{ archived: number }>;
  };
  /** The configured providers, built from config by kind. */
  readonly providers: ProviderRegistry;
  /** Start, abandon and cancel attempts; run a worker in this process. */
  readonly attempts: AttemptsHandle;
  /** Functions run by close(), last registered first (worker, relay and listeners register here). */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

/** The engine behind `onejob serve`, usable as a library in your own service. */
export function createOnejob(options: OnejobOptions): Onejob {
  const logger = options.logger ?? createLogger();
  const metrics = options.metrics ?? createMetrics();
  const ownsPool = !options.pool;
  if (!options.pool && !options.connectionString)
    throw new TypeError('createOnejob needs a pool or a connectionString');
  const pool = options.pool ?? createPool({ connectionString: options.connectionString!, logger });
  const connectionString =
    options.connectionString ??
    (pool as unknown as { options?: { connectionString?: string } }).options?.connectionString;
  const operations = new OperationRegistry(options.config);
  const listener = connectionString ? new JobSettledListener(connectionString, logger) : undefined;
  const closers: (() => Promise<void> | void)[] = [];

  const db = (o?: TxOption): Queryable => o?.tx ?? pool;

  const onejob: Onejob = {
    pool,
    connectionString,
    config: options.config,
    operations,
    logger,
    metrics,
    jobs: {
      async create(req, o) {
        let result: CreateJobResult;
        try {
          result = await createJob(db(o), operations, req);
        } catch (error) {
          if (isOnejobError(error, 'idempotency_key_reused')) metrics.idempotencyConflicts.inc();
          throw error;
        }
        if (result.replayed) metrics.idempotentReplays.inc({ operation: req.operation });
        else metrics.jobsCreated.inc({ operation: req.operation });
        return result;
      },
      get: (ownerId, id, o) => getJob(db(o), ownerId, id),
      list: (ownerId, query = {}) => listJobs(pool, ownerId, query),
      async wait(ownerId, id, ms) {
        const deadline = Date.now() + ms;
        for (;;) {
          const job = await getJob(pool, ownerId, id);
          const left = deadline - Date.now();
          if (SETTLED_JOB_STATES.includes(job.state) || left <= 0) return job;
          // The notification may have fired before we listened; re-read at least every 500 ms.
          if (listener) await listener.wait(id, Math.min(left, 500));
          else await new Promise((r) => setTimeout(r, Math.min(left, 200)));
        }
      },
      archive: (finishedBefore, o) => archiveJobs(pool, finishedBefore, o),
    },
    providers: createProviders(options.config),
    attempts: createAttemptsHandle(() => onejob),
    onClose(fn) {
      closers.push(fn);
    },
    async close() {
      for (const fn of closers.reverse()) await fn();
      await listener?.close();
      if (ownsPool) await pool.end();
    },
  };
  return onejob;
}
