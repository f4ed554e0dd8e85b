// The engine's public shape: the options `createOnejob` takes, the `Onejob` it returns and
// its typed view. Types only, so the routes, the dashboard and the service can name the
// engine without importing how it is built.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { OnejobConfig } from '../config/types.js';
import type { NotificationHub } from '../events/notificationHub.js';
import type { JobView } from '../jobs/jobView.js';
import type { Metrics } from '../observability/createMetrics.js';
import type {
  InputFor,
  JobReadOptions,
  JobRequest,
  ResultFor,
  TypedCreateJobResult,
} from '../operations/code/typedJobs.js';
import type { AnyCodeOperation } from '../operations/defineOperation.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import type { TxOption } from './engineDeps.js';
import type { AttemptsHandle } from './handles/attemptsHandle.js';
import type { BudgetsHandle } from './handles/budgetsHandle.js';
import type { InboxHandle } from './handles/inboxHandle.js';
import type { JobsHandle } from './handles/jobsHandle.js';
import type { LedgerHandle } from './handles/ledgerHandle.js';
import type { OutboxHandle } from './handles/outboxHandle.js';
import type { ProvidersHandle } from './handles/providersHandle.js';
import type { RunningRoles, StartOptions } from './startRoles.js';

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
  readonly jobs: JobsHandle;
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
  /** Per owner, currency and UTC period: what priced provider calls may hold and spend (docs/budgets.md). */
  readonly budgets: BudgetsHandle;
  /**
   * Wake-ups sent after commit: workers and relays (`jobsQueued()`), relays
   * (`outbox()`) and long-polls (`jobSettled(id)`). onejob calls them after its own
   * commits. After committing your own transaction that created jobs with `{ tx }`, call
   * `jobsQueued()` to have them claimed and announced now rather than at the next polls;
   * after one that only published events, `outbox()`.
   */
  readonly wakeups: NotificationHub;
  /**
   * The last migration the database has applied; rejects when the database cannot be
   * reached (the readiness check, `GET /readyz`).
   */
  schemaVersion(): Promise<number>;
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
